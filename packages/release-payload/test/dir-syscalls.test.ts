/**
 * Reading a payload directory costs open, fstat, read and close per regular file: no realpath (a readlink per path
 * component) and no stat by path for entries the listing already says are regular files. Counted with strace on a
 * child process reading the built package (skipped where strace cannot trace).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const canTrace = spawnSync('strace', ['-f', '-o', '/dev/null', 'true']).status === 0;
const root = mkdtempSync(join(tmpdir(), 'keelson-dir-syscalls-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writePayload(dir: string, n: number): void {
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  mkdirSync(join(dir, 'release-manifests', 'ignored-subdir'), { recursive: true });
  writeFileSync(
    join(dir, 'release-manifests', 'release-metadata'),
    JSON.stringify({ kind: 'cincinnati-metadata-v0', version: '4.18.1' }),
  );
  writeFileSync(
    join(dir, 'release-manifests', 'image-references'),
    JSON.stringify({
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      metadata: { name: '4.18.1' },
      spec: { tags: [] },
    }),
  );
  for (let i = 0; i < n; i++) {
    const name = `cm-${String(i).padStart(3, '0')}`;
    writeFileSync(
      join(dir, 'release-manifests', `0000_50_test_${name}.yaml`),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: test\n`,
    );
  }
  // a link inside the payload is still resolved and read
  symlinkSync('0000_50_test_cm-000.yaml', join(dir, 'release-manifests', '0000_60_link.yaml'));
}

describe.skipIf(!canTrace)('readPayloadDirectory system calls', () => {
  it('reads regular files without resolving or stat-ing them by path', () => {
    const dir = join(root, 'payload');
    writePayload(dir, 100);
    const trace = join(root, 'trace.txt');
    const script = `const m = await import(${JSON.stringify(DIST)}); const f = await m.readPayloadDirectory(${JSON.stringify(dir)}); console.log(JSON.stringify([...f.releaseManifests.keys()]));`;
    const r = spawnSync(
      'strace',
      [
        '-f',
        '-e',
        'trace=readlink,readlinkat,stat,lstat,newfstatat,statx,openat',
        '-o',
        trace,
        process.execPath,
        '--input-type=module',
        '-e',
        script,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const names = JSON.parse(r.stdout) as string[];
    expect(names).toHaveLength(103);
    expect(names).toContain('0000_60_link.yaml');
    expect(names).not.toContain('ignored-subdir');
    const lines = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => l.includes('0000_50_test_cm-'));
    const count = (re: RegExp): number => lines.filter((l) => re.test(l)).length;
    // the link's target is resolved (a handful of calls); the 100 regular files are only opened
    expect(count(/readlink/)).toBeLessThanOrEqual(3);
    expect(count(/\b(stat|lstat|newfstatat|statx)\(/)).toBeLessThanOrEqual(3);
    expect(count(/\bopenat\(/)).toBeGreaterThanOrEqual(100);
    expect(count(/\bopenat\(/)).toBeLessThanOrEqual(102);
  });
});
