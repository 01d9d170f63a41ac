/**
 * The CVO as a real child process (`cluster-version-operator start`): the rehearsal's supervisor must learn when it
 * exits on its own (a crash), as the kubelet does, and not mistake a stop it asked for for one.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '@keelson/cluster-version-operator';
import { cvoArgs, startCvoProcess, type CvoProcessOptions } from '../src/cvo-process.js';

let work: string;
let opts: CvoProcessOptions;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'keelson-cvo-process-'));
  // a kubeconfig that is not one: the bin exits at once with an error, before any Lease
  await writeFile(join(work, 'kubeconfig'), 'this: is not a kubeconfig\n');
  opts = {
    kubeconfig: join(work, 'kubeconfig'),
    payloadDir: join(work, 'none'),
    releaseImage: 'example.invalid/r@sha256:' + '0'.repeat(64),
    payloadCache: join(work, 'cache'),
    updateService: 'http://127.0.0.1:9',
    promqlTarget: 'http://127.0.0.1:9',
    timeScale: 1,
    leaseDurationMs: 1000,
    renewDeadlineMs: 800,
    retryPeriodMs: 200,
    log: () => undefined,
  };
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function until(f: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!f() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return f();
}

describe('startCvoProcess', { timeout: 30_000 }, () => {
  it('reports a process that exited on its own as exited, never having led', async () => {
    const p = await startCvoProcess(opts);
    expect(await until(() => p.exited(), 20_000)).toBe(true);
    expect(p.leading()).toBe(false);
  });

  it('a process the rehearsal stopped or killed is not reported as exited', async () => {
    const p = await startCvoProcess(opts);
    await p.kill();
    expect(p.exited()).toBe(false);
    const q = await startCvoProcess(opts);
    await q.stop();
    expect(q.exited()).toBe(false);
  });
});

describe('cvoArgs', () => {
  it("is read back by the CVO's own command-line parser into the options the rehearsal meant", () => {
    const { log: _log, ...flags } = opts;
    const c = parseCommandLine(
      cvoArgs({ ...flags, nodeName: 'master-0', servingCert: { certFile: '/c.crt', keyFile: '/c.key' } }),
    );
    if (c.command !== 'start') throw new Error(`parsed as ${c.command}`);
    expect(c.options).toMatchObject({
      kubeconfig: opts.kubeconfig,
      payloadDir: opts.payloadDir,
      releaseImage: opts.releaseImage,
      payloadCache: opts.payloadCache,
      payloadRetrieval: 'pod',
      nodeName: 'master-0',
      listen: '127.0.0.1:0',
      servingCertFile: '/c.crt',
      servingKeyFile: '/c.key',
      updateService: opts.updateService,
      promqlTarget: opts.promqlTarget,
      timeScale: 1,
      intervals: { leaseDurationMs: 1000, renewDeadlineMs: 800, retryPeriodMs: 200 },
    });
  });
});
