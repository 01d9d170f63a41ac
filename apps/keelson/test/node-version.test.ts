/**
 * Every bin checks the Node version before it loads anything: run with an older Node it says what to do (exit 1)
 * instead of dying in a dependency (undici's `createZstdDecompress.bind` on Node 20). The bins run as real child
 * processes with this Node told it is 20.20.2 (process.versions.node redefined by a preload); when the machine has a
 * real older Node at /usr/bin/node, with that too.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '@keelson/kube/node-version';

const root = (p: string): string => fileURLToPath(new URL(`../../../${p}`, import.meta.url));
const BINS: [string, string][] = [
  ['keelson', root('apps/keelson/dist/bin.js')],
  ['cluster-version-operator', root('apps/cluster-version-operator/dist/bin/cluster-version-operator.js')],
  ['machine-config-operator', root('apps/machine-config-operator/dist/bin/machine-config-operator.js')],
  ['machine-config-controller', root('apps/machine-config-operator/dist/bin/machine-config-controller.js')],
  ['machine-config-server', root('apps/machine-config-operator/dist/bin/machine-config-server.js')],
  ['machine-config-daemon', root('apps/machine-config-operator/dist/bin/machine-config-daemon.js')],
  ['keelson-payload-gen', root('tooling/payload-gen/dist/cli.js')],
];
const PRETEND_20 = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.20.2"})';

function run(node: string, args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(node, args, { timeout: 30_000 }, (err, _stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stderr });
    });
  });
}

describe('nodeVersionProblem', () => {
  it('accepts 22.12 and newer, refuses older with what to do', () => {
    expect(nodeVersionProblem('keelson', '22.12.0', '/n')).toBeUndefined();
    expect(nodeVersionProblem('keelson', '24.1.0', '/n')).toBeUndefined();
    expect(nodeVersionProblem('keelson', '22.11.9', '/n')).toContain(
      'keelson needs Node >= 22.12.0, this is Node 22.11.9 (/n)',
    );
    expect(nodeVersionProblem('keelson', '20.20.2', '/n')).toContain('source scripts/bootstrap.sh');
  });
});

describe('every bin on an older Node', { timeout: 120_000 }, () => {
  it.each(BINS)('%s: one clear message, exit 1, no stack trace', async (name, bin) => {
    const r = await run(process.execPath, ['--import', PRETEND_20, bin, 'start', '--help']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: ${name} needs Node >= 22\\.12\\.0, this is Node 20\\.20\\.2 `));
    expect(r.stderr).toContain('source scripts/bootstrap.sh');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  const old = '/usr/bin/node';
  const oldVersion = existsSync(old) ? execFileSync(old, ['--version'], { encoding: 'utf8' }).trim() : '';
  it.runIf(oldVersion !== '' && nodeVersionProblem('x', oldVersion, old) !== undefined)(
    `with the machine's ${oldVersion || 'older Node'} for real`,
    async () => {
      for (const [name, bin] of BINS) {
        const r = await run(old, [bin, 'sandbox', 'start', '--help']);
        expect(r.code, name).toBe(1);
        expect(r.stderr, name).toContain(`error: ${name} needs Node >= 22.12.0`);
        expect(r.stderr, name).not.toContain('createZstdDecompress');
      }
    },
  );
});
