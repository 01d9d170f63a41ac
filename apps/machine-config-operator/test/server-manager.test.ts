/**
 * The machine-config-server runs on `@keelson/kube`'s Manager like the other MCO processes: cluster mode reads its
 * pools through the Manager's informers, bootstrap mode runs a Manager without a client; stop() closes the listeners,
 * then the informers, and leaves a caller's client open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MachineConfigPools, type Logger } from '@keelson/kube';
import { startMachineConfigServer } from '../src/server/server.js';
import { createMc, createPool, machineConfig, startEnv, type TestEnv } from './daemon-helpers.js';

function capture(): { logger: Logger; lines: { msg: string; fields: Record<string, unknown> }[] } {
  const lines: { msg: string; fields: Record<string, unknown> }[] = [];
  const push = (msg: string, fields?: Record<string, unknown>): void => {
    lines.push({ msg, fields: fields ?? {} });
  };
  const logger: Logger = { debug: push, info: push, warn: push, error: push, child: () => logger };
  return { logger, lines };
}

describe('machine-config-server on the Manager', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startEnv();
    await createMc(env.client, machineConfig('rendered-worker-1', { files: { '/etc/motd': 'hi\n' } }));
    await createPool(env.client, 'worker', 'rendered-worker-1');
  }, 60_000);
  afterAll(async () => {
    await env.stop();
  });

  it('cluster mode: serves from the informers, stops through the Manager, keeps the caller client open', async () => {
    const { logger, lines } = capture();
    const mcs = await startMachineConfigServer({
      client: env.client,
      apiserverURL: 'https://api.example:6443',
      securePort: null,
      insecurePort: 0,
      host: '127.0.0.1',
      noKubeconfig: true,
      logger,
    });
    const url = mcs.insecureUrl ?? '';
    const res = await fetch(`${url}/config/worker`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('/etc/motd');
    await mcs.stop();
    expect(lines.some((l) => l.msg === 'stopping' && l.fields['reason'] === 'stopped')).toBe(true);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    // the given client belongs to the caller: still usable after stop()
    await expect(env.client.resource(MachineConfigPools).get('worker')).resolves.toBeDefined();
  }, 30_000);

  it('bootstrap mode: a Manager without a client serves files and stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcs-mgr-'));
    const { logger, lines } = capture();
    try {
      const mcs = await startMachineConfigServer({
        bootstrap: true,
        bootstrapDir: dir,
        noKubeconfig: true,
        apiserverURL: 'https://api.example:6443',
        securePort: null,
        insecurePort: 0,
        host: '127.0.0.1',
        logger,
      });
      const res = await fetch(`${mcs.insecureUrl ?? ''}/healthz`);
      expect(res.status).toBe(200);
      await mcs.stop();
      expect(lines.some((l) => l.msg === 'stopping' && l.fields['reason'] === 'stopped')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
