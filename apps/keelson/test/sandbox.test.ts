/** `keelson sandbox start` / `keelson sandbox kubeconfig` run as real child processes, checked with kubectl. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 30_000 });

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'keelson-sandbox-cli-'));
const state = join(dir, 'state');
let proc: ChildProcess;
let url = '';

beforeAll(async () => {
  proc = spawn(process.execPath, [BIN, 'sandbox', 'start', '--state-dir', state, '--nodes', 'worker-0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  for (let i = 0; i < 300 && !out.includes('kubeconfig:'); i++) await new Promise((r) => setTimeout(r, 50));
  url = /serving at (\S+)/.exec(out)?.[1] ?? '';
}, 30_000);

afterAll(async () => {
  if (proc.exitCode === null) {
    const done = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await done;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('keelson sandbox', () => {
  it('starts an HTTPS API server on 127.0.0.1 and writes its kubeconfig', () => {
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = readFileSync(join(state, 'kubeconfig'), 'utf8');
    expect(kc).toContain(`server: ${url}`);
    expect(statSync(join(state, 'kubeconfig')).mode & 0o777).toBe(0o600);
  });

  it('prints a kubeconfig that kubectl can use', async () => {
    const out = join(dir, 'my-kubeconfig');
    const r = await run(process.execPath, [
      BIN,
      'sandbox',
      'kubeconfig',
      '--state-dir',
      state,
      '--to',
      out,
      '--namespace',
      'kube-system',
    ]);
    expect(r.stdout.trim()).toBe(out);
    const nodes = await run('kubectl', [
      '--kubeconfig',
      out,
      '--cache-dir',
      join(dir, 'cache'),
      'get',
      'nodes',
      '-o',
      'name',
    ]);
    expect(nodes.stdout.trim()).toBe('node/worker-0');
    const ns = await run('kubectl', [
      '--kubeconfig',
      out,
      '--cache-dir',
      join(dir, 'cache'),
      'config',
      'view',
      '--minify',
      '-o',
      'jsonpath={.contexts[0].context.namespace}',
    ]);
    expect(ns.stdout).toBe('kube-system');
    const stdout = await run(process.execPath, [BIN, 'sandbox', 'kubeconfig', '--state-dir', state]);
    expect(stdout.stdout).toContain('kind: Config');
    const json = await run(process.execPath, [BIN, 'sandbox', 'kubeconfig', '--state-dir', state, '-o', 'json']);
    expect(
      (JSON.parse(json.stdout) as { clusters: { cluster: { server: string } }[] }).clusters[0]?.cluster.server,
    ).toBe(url);
  });

  it('says so when the recorded sandbox is not running', async () => {
    const stale = join(dir, 'stale');
    mkdirSync(stale);
    // a pid that has exited and a port nothing listens on: a sandbox killed with SIGKILL leaves such a record
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    writeFileSync(
      join(stale, 'sandbox.json'),
      JSON.stringify({ url: 'https://127.0.0.1:1', token: 't', pid: gone.pid }),
    );
    const r = await run(process.execPath, [BIN, 'sandbox', 'kubeconfig', '--state-dir', stale]).then(
      () => ({ code: 0, stderr: '' }),
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: the sandbox recorded in ${join(stale, 'sandbox.json')} is not running (its process ${gone.pid} has exited); start it again with "keelson sandbox start"\n`,
    );
  });

  it('rejects an unknown output format as a usage error', async () => {
    const r = await run(process.execPath, [BIN, 'sandbox', 'kubeconfig', '--state-dir', state, '-o', 'wide']).then(
      () => ({ code: 0, stderr: '' }),
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown output format "wide" for "kubeconfig"; use one of: yaml, json');
  });

  it('fails with a clear message when no sandbox was started', async () => {
    const r = await run(process.execPath, [BIN, 'sandbox', 'kubeconfig', '--state-dir', join(dir, 'nothing')]).then(
      () => ({ code: 0, stderr: '' }),
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: no running sandbox recorded in .*sandbox\.json; start one with "keelson sandbox start"/,
    );
  });

  it('rejects a bad port as a usage error', async () => {
    const r = await run(process.execPath, [
      BIN,
      'sandbox',
      'start',
      '--port',
      'abc',
      '--state-dir',
      join(dir, 'x'),
    ]).then(
      () => ({ code: 0, stderr: '' }),
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--port must be an integer between 0 and 65535, got "abc"');
  });

  it('stops cleanly on SIGTERM, after which kubeconfig says no sandbox runs', async () => {
    const done = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    proc.kill('SIGTERM');
    expect(await done).toBe(0);
    const r = await run(process.execPath, [BIN, 'sandbox', 'kubeconfig', '--state-dir', state]).then(
      () => ({ code: 0, stderr: '' }),
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: no running sandbox recorded in .*sandbox\.json/);
  });

  it('persists objects across restarts with --persist', async () => {
    const persist = join(dir, 'persist');
    const st = join(dir, 'pstate');
    const start = async (): Promise<ChildProcess> => {
      const p = spawn(process.execPath, [BIN, 'sandbox', 'start', '--state-dir', st, '--persist', persist], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      for (let i = 0; i < 300 && !out.includes('kubeconfig:'); i++) await new Promise((r) => setTimeout(r, 50));
      return p;
    };
    const stop = async (p: ChildProcess): Promise<void> => {
      const done = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      await done;
    };
    const kc = ['--kubeconfig', join(st, 'kubeconfig'), '--cache-dir', join(dir, 'pcache')];
    const a = await start();
    await run('kubectl', [...kc, 'create', 'configmap', 'kept', '--from-literal=k=v']);
    await stop(a);
    const b = await start();
    try {
      const got = await run('kubectl', [...kc, 'get', 'configmap', 'kept', '-o', 'jsonpath={.data.k}']);
      expect(got.stdout).toBe('v');
    } finally {
      await stop(b);
    }
  });
});
