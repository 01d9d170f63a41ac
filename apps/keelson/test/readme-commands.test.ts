/**
 * The root README's command block, run as written with bash from a copy of the repository layout (the built apps,
 * packages and tooling linked in; `.keelson/` created there): every command must exit 0. This is the block an admin
 * types first after `npm start`, so a README that drifts from the CLI fails here.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MARK = '<!-- readme-commands: the test runs this block with bash -->';

/** The fenced block right after the marker. */
export function readmeCommands(readme: string): string {
  const at = readme.indexOf(MARK);
  if (at < 0) throw new Error(`README.md has no "${MARK}"`);
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (m === null) throw new Error('no ```sh block after the marker');
  return m[1] ?? '';
}

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'keelson-readme-'));
  for (const d of ['apps', 'packages', 'tooling', 'node_modules']) await symlink(join(ROOT, d), join(work, d));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('README.md commands', { timeout: 900_000 }, () => {
  it('run as written after npm start', async () => {
    const block = readmeCommands(await readFile(join(ROOT, 'README.md'), 'utf8'));
    expect(block).toContain('.keelson/demo-payload');
    // every line a command; stop at the first failure; background jobs are ended whatever happens
    const script = `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT\nset -x\n${block}`;
    await writeFile(join(work, 'readme.sh'), script);
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'bash',
        ['readme.sh'],
        {
          cwd: work,
          maxBuffer: 256 * 1024 * 1024,
          timeout: 850_000,
          env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env['PATH'] ?? ''}` },
        },
        (err, stdout, stderr) => {
          resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
        },
      );
    });
    expect(r.code, r.stderr.slice(-4000)).toBe(0);
    // what the commands produced
    expect(r.stdout).toContain('rpm-ostree rebase');
    expect(r.stdout).toMatch(/4\.18\.8 +\S+/);
    expect(await readFile(join(work, '.keelson/rehearsal.txt'), 'utf8')).toContain('Completed (exit 0)');
    const held = await readFile(join(work, '.keelson/held.txt'), 'utf8');
    expect(held).toContain('Stalled (exit 5)');
    expect(held).toContain('PodDisruptionBudget rehearsal-workload/critical-app');
    expect(r.stdout).toContain('cannot be drained: PodDisruptionBudget');
  });
});

describe('install instructions until the packages are published, and the release workflow', () => {
  it('every public package README says how to install it from a clone; the root README and the workflow say how it is released', async () => {
    const { readdir } = await import('node:fs/promises');
    for (const name of await readdir(join(ROOT, 'packages'))) {
      const pkg = JSON.parse(await readFile(join(ROOT, 'packages', name, 'package.json'), 'utf8')) as {
        name: string;
        private?: boolean;
      };
      if (pkg.private === true) continue;
      const readme = await readFile(join(ROOT, 'packages', name, 'README.md'), 'utf8');
      const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('```', readme.indexOf('## Install')));
      expect(install, pkg.name).toContain('Not on npm yet');
      expect(install, pkg.name).toContain('../../README.md#installing-the-packages');
    }
    const root = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(root).toContain('## Installing the packages');
    expect(root).toContain('pnpm pack --pack-destination');
    const wf = await readFile(join(ROOT, '.github/workflows/release.yml'), 'utf8');
    for (const s of [
      'changesets/action@v1',
      'publish: pnpm release',
      'version: pnpm version-packages',
      "NPM_CONFIG_PROVENANCE: 'true'",
      'id-token: write',
    ])
      expect(wf).toContain(s);
    const scripts = (
      JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts['release']).toContain('changeset publish');
    expect(scripts['version-packages']).toBe('changeset version');
  });
});
