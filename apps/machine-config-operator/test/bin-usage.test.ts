/**
 * The four built MCO binaries parse their command lines with one library (commander, through `@keelson/kube`): an
 * unknown flag or a flag without its value is a usage error, exit 2, with the message on stderr; `--help` exits 0.
 * Needs the build (`pnpm turbo run build --filter=@keelson/machine-config-operator`).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = (name: string): string => fileURLToPath(new URL(`../dist/bin/${name}.js`, import.meta.url));
const run = (name: string, args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, [bin(name), ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('MCO binaries: one argument parser, usage errors exit 2', () => {
  it.each([
    ['machine-config-operator', ['start', '--bogus']],
    ['machine-config-controller', ['start', '--bogus']],
    ['machine-config-daemon', ['start', '--bogus']],
    ['machine-config-daemon', ['firstboot-complete-machineconfig', '--bogus']],
    ['machine-config-server', ['start', '--bogus']],
    ['machine-config-server', ['bootstrap', '--bogus']],
  ])('%s %s', (name, args) => {
    const r = run(name, args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
  });

  it('a flag without its value is a usage error naming it', () => {
    const r = run('machine-config-daemon', ['start', '--node-name']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("option '--node-name <value>' argument missing");
    expect(r.stderr).toContain('Usage:\n  machine-config-daemon start');
  });

  it('--help prints the usage text and exits 0', () => {
    const d = run('machine-config-server', ['start', '--help']);
    expect(d.status).toBe(0);
    expect(d.stdout).toContain('machine-config-server start --apiserver-url URL');
    const o = run('machine-config-operator', ['start', '--help']);
    expect(o.status).toBe(0);
    expect(o.stdout).toContain('--leader-elect');
  });
});
