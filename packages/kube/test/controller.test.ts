import { describe, expect, it } from 'vitest';
import { Controller, KubeError, ownerKeyMapper, type KubeObject } from '../src/index.js';

const owned = (kind: string, name: string, namespace?: string, controller = true): KubeObject => {
  const o: KubeObject = {
    metadata: { name: 'child', ownerReferences: [{ apiVersion: 'v1', kind, name, uid: 'u', controller }] },
  };
  if (namespace !== undefined) o.metadata.namespace = namespace;
  return o;
};

describe('ownerKeyMapper', () => {
  it('maps objects to their controlling owner of the given kind', () => {
    const toRs = ownerKeyMapper('ReplicaSet');
    expect(toRs(owned('ReplicaSet', 'web-1', 'apps'))).toEqual(['apps/web-1']);
    expect(toRs(owned('DaemonSet', 'ds', 'apps'))).toEqual([]);
    expect(toRs(owned('ReplicaSet', 'web-1', 'apps', false))).toEqual([]);
    expect(toRs({ metadata: { name: 'orphan', namespace: 'apps' } })).toEqual([]);
    const toPool = ownerKeyMapper('MachineConfigPool', { namespaced: false });
    expect(toPool(owned('MachineConfigPool', 'worker'))).toEqual(['worker']);
  });
});

describe('Controller without a cluster', () => {
  it('processes enqueued keys, dedupes while queued, and refuses a second run()', async () => {
    const seen: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const c = new Controller({
      name: 'unit',
      workers: 3,
      reconcile: async (key) => {
        seen.push(key);
        if (key === 'slow') await gate;
        return undefined;
      },
    });
    c.enqueue('slow');
    c.enqueue('a');
    c.enqueue('a');
    c.enqueueObject({ metadata: { name: 'b', namespace: 'ns' } });
    const running = c.run();
    await expect(c.run()).rejects.toBeInstanceOf(KubeError);
    for (let i = 0; i < 50 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(seen.sort()).toEqual(['a', 'ns/b', 'slow']);
    const stopping = c.stop();
    release();
    await stopping;
    await running;
    expect(c.queue.processingCount()).toBe(0);
  });
});
