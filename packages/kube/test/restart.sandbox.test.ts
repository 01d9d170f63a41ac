import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '@keelson/kube-sandbox';
import { afterAll, describe, expect, it } from 'vitest';
import { Informer, KubeClient, MachineConfigPools, type MachineConfigPool } from '../src/index.js';
import { MCP_CRD, installCrd, until } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'keelson-kube-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Informer across an API server restart (state persisted to disk, same port)', () => {
  it('backs off while the server is down and catches up with changes made during the outage', async () => {
    const token = 'restart-test-token';
    const first = await startSandbox({ persistDir: dir, token });
    const port = Number(new URL(first.url).port);
    const client = KubeClient.fromKubeconfigString(first.kubeconfigYaml());
    await installCrd(client, MCP_CRD, 'machineconfigpools', 'machineconfiguration.openshift.io');
    const pools = client.resource(MachineConfigPools);
    await pools.create({ metadata: { name: 'worker' }, spec: { paused: false } });
    await pools.create({ metadata: { name: 'gone-soon' }, spec: {} });

    const inf = new Informer(client, MachineConfigPools, { backoff: { initialMs: 50, maxMs: 200 } });
    const seen: string[] = [];
    inf.addHandlers({
      update: (_o, n) => seen.push(`update ${n.metadata.name} paused=${String(n.spec.paused)}`),
      delete: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    inf.start();
    await inf.waitForSync();

    await first.stop(); // breaks the watch; snapshot written
    await until(() => inf.stats.watchErrors > 0, 10_000, 'informer notices the outage');

    const second = await startSandbox({ persistDir: dir, token, port });
    const t = second.cluster.findType('machineconfiguration.openshift.io', 'v1', 'machineconfigpools');
    if (t === undefined) throw new Error('CRD not restored from the snapshot');
    const cur = second.cluster.peek(t, undefined, 'worker') as unknown as MachineConfigPool;
    second.cluster.update(t, undefined, 'worker', { ...cur, spec: { ...cur.spec, paused: true } });
    second.cluster.delete(t, undefined, 'gone-soon');

    await until(
      () => inf.store.get('worker')?.spec.paused === true && inf.store.get('gone-soon') === undefined,
      15_000,
      'catch-up after restart',
    );
    expect(seen).toContain('update worker paused=true');
    expect(seen).toContain('delete gone-soon');
    await inf.stop();
    await client.close();
    await second.stop();
  });
});
