import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Informer, MachineConfigPools, labelIndex, type MachineConfigPool } from '../src/index.js';
import { MCP_CRD, installCrd, sandboxWithClient, until } from './helpers.js';

let env: Awaited<ReturnType<typeof sandboxWithClient>>;
beforeAll(async () => {
  env = await sandboxWithClient();
  await installCrd(env.client, MCP_CRD, 'machineconfigpools', 'machineconfiguration.openshift.io');
});
afterAll(async () => env.stop());

const pool = (name: string, role: string): MachineConfigPool => ({
  metadata: { name, labels: { role } },
  spec: { paused: false },
});

describe('Informer against the sandbox (real HTTP watch)', () => {
  it('lists, watches, indexes, and survives broken and expired watches without losing updates', async () => {
    const pools = env.client.resource(MachineConfigPools);
    await pools.create(pool('master', 'master'));
    const inf = new Informer(env.client, MachineConfigPools, {
      indexers: { role: labelIndex('role') },
      backoff: { initialMs: 20, maxMs: 200 },
    });
    const log: string[] = [];
    inf.addHandlers({
      add: (o) => log.push(`add ${o.metadata.name}`),
      update: (_o, n) => log.push(`update ${n.metadata.name} paused=${String(n.spec.paused)}`),
      delete: (o) => log.push(`delete ${o.metadata.name}`),
    });
    inf.start();
    await inf.waitForSync();
    expect(inf.store.get('master')?.metadata.name).toBe('master');
    expect(log).toEqual(['add master']);

    // live watch events
    await pools.create(pool('worker', 'worker'));
    await pools.create(pool('infra', 'worker'));
    await until(() => inf.store.size() === 3, 10_000, 'adds');
    expect(
      inf.store
        .byIndex('role', 'worker')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['infra', 'worker']);

    // 1) the server closes every watch; a change made while no watch is open must still arrive
    const t = env.sandbox.cluster.findType('machineconfiguration.openshift.io', 'v1', 'machineconfigpools');
    if (t === undefined) throw new Error('MCP type not registered');
    const watchesBefore = inf.stats.watches;
    env.sandbox.closeWatches();
    const cur = env.sandbox.cluster.peek(t, undefined, 'worker') as unknown as MachineConfigPool;
    env.sandbox.cluster.update(t, undefined, 'worker', { ...cur, spec: { ...cur.spec, paused: true } }); // same tick: no watch open yet
    await until(() => inf.store.get('worker')?.spec.paused === true, 10_000, 'update after broken watch');
    expect(inf.stats.watches).toBeGreaterThan(watchesBefore);
    expect(inf.stats.expired).toBe(0);

    // 2) history compacted and watches closed: re-watch gets 410 Gone, the informer relists and
    //    delivers the update and the delete that happened meanwhile
    env.sandbox.closeWatches();
    env.sandbox.compactHistory();
    const w2 = env.sandbox.cluster.peek(t, undefined, 'infra') as unknown as MachineConfigPool;
    env.sandbox.cluster.update(t, undefined, 'infra', { ...w2, spec: { ...w2.spec, paused: true } });
    env.sandbox.cluster.delete(t, undefined, 'master');
    await until(
      () => inf.store.get('master') === undefined && inf.store.get('infra')?.spec.paused === true,
      10_000,
      'relist after 410',
    );
    expect(inf.stats.expired).toBeGreaterThanOrEqual(1);
    expect(inf.stats.lists).toBeGreaterThanOrEqual(2);
    expect(inf.store.byIndex('role', 'master')).toEqual([]);

    // and the new watch is live again
    await pools.patch('worker', { metadata: { labels: { role: 'infra' } } });
    await until(() => inf.store.byIndex('role', 'infra').length === 1, 10_000, 'index update');

    await inf.stop();
    expect(log).toContain('update worker paused=true');
    expect(log).toContain('update infra paused=true');
    expect(log).toContain('delete master');
    expect(log.filter((l) => l.startsWith('add')).sort()).toEqual(['add infra', 'add master', 'add worker']);
  });

  it('re-syncs cached objects periodically as updates', async () => {
    const inf = new Informer(env.client, MachineConfigPools, { resyncPeriodMs: 100 });
    let resyncs = 0;
    inf.addHandlers({
      update: (o, n) => {
        if (o === n) resyncs++;
      },
    });
    inf.start();
    await inf.waitForSync();
    await until(() => resyncs >= 2, 10_000, 'resync');
    await inf.stop();
    expect(inf.hasSynced()).toBe(true);
  });
});
