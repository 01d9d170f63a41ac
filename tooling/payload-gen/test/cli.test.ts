/**
 * The build-time CLI over the bundled generator (`dist/cli.js`, built from `@keelson/rehearsal`'s `src/release`): it
 * writes what the generator writes, and its usage errors exit 2.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
let work = '';

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'payload-gen-cli-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('keelson-payload-gen', { timeout: 60_000 }, () => {
  it('--rehearsal writes releases A and B with their release metadata', async () => {
    const r = await run(['--rehearsal', '--out', work]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*4\.18\.7 and .*4\.18\.8/);
    for (const v of ['4.18.7', '4.18.8']) {
      const meta = JSON.parse(await readFile(join(work, v, 'release-manifests', 'release-metadata'), 'utf8')) as {
        version: string;
      };
      expect(meta.version).toBe(v);
    }
  });

  it('refuses a missing --out and unknown flags with exit 2 and the usage', async () => {
    const missing = await run([]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--out DIR is required');
    const unknown = await run(['--out', work, '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Usage: keelson-payload-gen');
  });
});
