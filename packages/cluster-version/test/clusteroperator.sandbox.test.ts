/**
 * The ClusterOperator builder of the registry (upstream pkg/cvo/internal/operatorstatus.go `clusterOperatorBuilder`)
 * through the real ResourceApplier and client, against the embedded API server over HTTP: precreation, the metadata
 * merge in Reconciling, the gate on the live status, the cache source preferred over a GET.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterOperator } from '@keelson/api';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { ResourceApplier, UpdateError, type ClusterOperatorSource, type JsonObject } from '../src/index.js';
import { startCluster } from './helpers.js';

let sandbox: Sandbox;
let client: KubeClient;

beforeAll(async () => {
  ({ sandbox, client } = await startCluster());
});
afterAll(async () => {
  await sandbox?.stop();
});

const PATH = '/apis/config.openshift.io/v1/clusteroperators';
const T = '2026-11-27T00:00:00Z';
const manifest = (name: string, version: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ClusterOperator',
  metadata: { name, labels, annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' } },
  spec: {},
  status: {
    versions: [{ name: 'operator', version }],
    relatedObjects: [{ group: '', resource: 'namespaces', name: `openshift-${name}` }],
  },
});

async function report(name: string, version: string, available = 'True'): Promise<void> {
  const live = await client.request<JsonObject>('GET', `${PATH}/${name}`);
  const conditions = [
    { type: 'Available', status: available, lastTransitionTime: T },
    { type: 'Degraded', status: 'False', lastTransitionTime: T },
  ];
  await client.request('PUT', `${PATH}/${name}/status`, {
    body: { ...live, status: { versions: [{ name: 'operator', version }], conditions } },
  });
}

function recorder(): ClusterOperatorSource & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    get: () => undefined,
    done: (name) => {
      events.push(`done ${name}`);
    },
    waiting: (name, reason) => {
      events.push(`waiting ${name} ${reason}`);
    },
  };
}

describe('the ClusterOperator builder', () => {
  it('precreates with an empty spec and the relatedObjects, once', async () => {
    const applier = new ResourceApplier(client, nullLogger, { liveObjectCache: false });
    expect((await applier.apply(manifest('dns', '4.18.3'), 'precreating')).action).toBe('created');
    const live = await client.request<JsonObject>('GET', `${PATH}/dns`);
    expect(live['spec']).toEqual({});
    expect(live['status']).toEqual({ relatedObjects: [{ group: '', resource: 'namespaces', name: 'openshift-dns' }] });
    expect((await applier.apply(manifest('dns', '4.18.3'), 'precreating')).action).toBe('unchanged');
    expect(applier.writes).toEqual({ creates: 1, updates: 1, deletes: 0 });
  });

  it('gates on the live status: not available, updating (effect None), then done', async () => {
    const src = recorder();
    const applier = new ResourceApplier(client, nullLogger, { liveObjectCache: false, clusterOperators: src });
    await applier.apply(manifest('etcd', '4.18.3'), 'precreating');
    const err = await applier.apply(manifest('etcd', '4.18.3'), 'updating').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpdateError);
    expect((err as UpdateError).reason).toBe('ClusterOperatorNotAvailable');
    await report('etcd', '4.18.2');
    const upd = await applier.apply(manifest('etcd', '4.18.3'), 'updating').catch((e: unknown) => e);
    expect([(upd as UpdateError).reason, (upd as UpdateError).effect]).toEqual(['ClusterOperatorUpdating', 'None']);
    // Initializing allows versions not reached yet
    expect((await applier.apply(manifest('etcd', '4.18.3'), 'initializing')).action).toBe('unchanged');
    await report('etcd', '4.18.3');
    expect((await applier.apply(manifest('etcd', '4.18.3'), 'updating')).action).toBe('unchanged');
    expect(src.events).toEqual([
      'waiting etcd ClusterOperatorNotAvailable',
      'waiting etcd ClusterOperatorUpdating',
      'done etcd',
      'done etcd',
    ]);
  });

  it('merges metadata in Reconciling only, never writes the manifest, and adds no owner reference', async () => {
    const applier = new ResourceApplier(client, nullLogger, { liveObjectCache: false });
    await applier.apply(manifest('console', '4.18.3'), 'precreating');
    await report('console', '4.18.3');
    const owner = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version', uid: 'u1' };
    const before = { ...applier.writes };
    const labelled = manifest('console', '4.18.3', { team: 'ui' });
    expect((await applier.apply(labelled, 'updating', undefined, owner)).action).toBe('unchanged');
    expect(applier.writes).toEqual(before);
    expect((await applier.apply(labelled, 'reconciling', undefined, owner)).action).toBe('updated');
    expect((await applier.apply(labelled, 'reconciling', undefined, owner)).action).toBe('unchanged');
    expect(applier.writes.updates).toBe(before.updates + 1);
    const live = await client.request<{ metadata: JsonObject; status: JsonObject }>('GET', `${PATH}/console`);
    expect(live.metadata['labels']).toEqual({ team: 'ui' });
    expect(live.metadata['ownerReferences']).toBeUndefined();
    expect(live.status['versions']).toEqual([{ name: 'operator', version: '4.18.3' }]);
  });

  it('reads the live ClusterOperator from the source before a GET', async () => {
    await new ResourceApplier(client, nullLogger, { liveObjectCache: false }).apply(
      manifest('ingress', '4.18.3'),
      'precreating',
    ); // on the server: no conditions (not available)
    const cached: ClusterOperator = {
      metadata: { name: 'ingress' },
      spec: {},
      status: {
        versions: [{ name: 'operator', version: '4.18.3' }],
        conditions: [
          { type: 'Available', status: 'True', lastTransitionTime: T },
          { type: 'Degraded', status: 'False', lastTransitionTime: T },
        ],
      },
    };
    const withCache = new ResourceApplier(client, nullLogger, {
      liveObjectCache: false,
      clusterOperators: { get: (name) => (name === 'ingress' ? cached : undefined) },
    });
    expect((await withCache.apply(manifest('ingress', '4.18.3'), 'updating')).action).toBe('unchanged');
    const withoutCache = new ResourceApplier(client, nullLogger, { liveObjectCache: false });
    await expect(withoutCache.apply(manifest('ingress', '4.18.3'), 'updating')).rejects.toMatchObject({
      reason: 'ClusterOperatorNotAvailable',
    });
  });
});
