import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../src/index.js';
import { sandbox, type Client } from './helpers.js';

vi.setConfig({ testTimeout: 20_000 });

let c: Client;
beforeAll(async () => {
  c = await sandbox({ simulatePods: true, nodes: ['n1'] });
});
afterAll(async () => {
  await c.sb.stop();
});

async function eventually(fn: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 750; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const cm = (name: string, owner?: { name: string; uid: string }): unknown => ({
  metadata: {
    name,
    ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.name, uid: owner.uid }] } : {}),
  },
});

describe('garbage collection', () => {
  it('deletes dependents in the background, orphans them on request, waits for them in the foreground', async () => {
    const owner = (await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('owner'))).body;
    await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('dep', { name: 'owner', uid: owner.metadata.uid }));
    await c.req('DELETE', '/api/v1/namespaces/default/configmaps/owner');
    await eventually(
      async () => (await c.req('GET', '/api/v1/namespaces/default/configmaps/dep')).status === 404,
      'background GC',
    );

    const o2 = (await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('owner2'))).body;
    await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('dep2', { name: 'owner2', uid: o2.metadata.uid }));
    const del = await c.req('DELETE', '/api/v1/namespaces/default/configmaps/owner2', {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Orphan',
    });
    expect(del.status).toBe(200);
    expect(del.body.metadata.finalizers).toEqual(['orphan']);
    await eventually(
      async () => (await c.req('GET', '/api/v1/namespaces/default/configmaps/owner2')).status === 404,
      'orphaning owner gone',
    );
    const dep2 = await c.req('GET', '/api/v1/namespaces/default/configmaps/dep2');
    expect(dep2.status).toBe(200);
    expect(dep2.body.metadata.ownerReferences).toBeUndefined();

    const o3 = (await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('owner3'))).body;
    await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('dep3', { name: 'owner3', uid: o3.metadata.uid }));
    const fg = await c.req('DELETE', '/api/v1/namespaces/default/configmaps/owner3?propagationPolicy=Foreground');
    expect(fg.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await eventually(
      async () => (await c.req('GET', '/api/v1/namespaces/default/configmaps/owner3')).status === 404,
      'foreground owner gone',
    );
    expect((await c.req('GET', '/api/v1/namespaces/default/configmaps/dep3')).status).toBe(404);
  });

  it('keeps an index of dependents: an owner reference dropped or deleted leaves it', async () => {
    const owner = (await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('idx-owner'))).body;
    const uid = owner.metadata.uid as string;
    expect(c.sb.cluster.hasDependents(uid)).toBe(false);
    await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('idx-a', { name: 'idx-owner', uid }));
    await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('idx-b', { name: 'idx-owner', uid }));
    expect(c.sb.cluster.hasDependents(uid)).toBe(true);
    const a = (await c.req('GET', '/api/v1/namespaces/default/configmaps/idx-a')).body;
    delete a.metadata.ownerReferences;
    expect((await c.req('PUT', '/api/v1/namespaces/default/configmaps/idx-a', a)).status).toBe(200);
    expect(c.sb.cluster.hasDependents(uid)).toBe(true);
    await c.req('DELETE', '/api/v1/namespaces/default/configmaps/idx-b');
    expect(c.sb.cluster.hasDependents(uid)).toBe(false);
  });

  it('collects objects written with owners that do not exist, keeps those whose owners do, drops dangling references', async () => {
    const owner = (await c.req('POST', '/api/v1/namespaces/default/configmaps', cm('live-owner'))).body;
    // many dependents of a live owner, written in one burst: all stay
    for (let i = 0; i < 20; i++)
      await c.req(
        'POST',
        '/api/v1/namespaces/default/configmaps',
        cm(`kept-${i}`, { name: 'live-owner', uid: owner.metadata.uid }),
      );
    // a dependent naming only an owner that never existed is collected
    await c.req(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      cm('orphan-born', { name: 'nobody', uid: '00000000-0000-4000-8000-000000000000' }),
    );
    await eventually(
      async () => (await c.req('GET', '/api/v1/namespaces/default/configmaps/orphan-born')).status === 404,
      'dependent of a missing owner collected',
    );
    // one live and one missing owner: the dangling reference is dropped, the object stays
    const both = {
      metadata: {
        name: 'two-owners',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'live-owner', uid: owner.metadata.uid },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-4000-8000-000000000001' },
        ],
      },
    };
    await c.req('POST', '/api/v1/namespaces/default/configmaps', both);
    await eventually(
      async () =>
        (await c.req('GET', '/api/v1/namespaces/default/configmaps/two-owners')).body.metadata.ownerReferences
          ?.length === 1,
      'dangling reference dropped',
    );
    for (let i = 0; i < 20; i++)
      expect((await c.req('GET', `/api/v1/namespaces/default/configmaps/kept-${i}`)).status).toBe(200);
    // the owner goes: every dependent follows
    await c.req('DELETE', '/api/v1/namespaces/default/configmaps/live-owner');
    await eventually(
      async () => (await c.req('GET', '/api/v1/namespaces/default/configmaps/kept-19')).status === 404,
      'dependents collected with their owner',
    );
    expect((await c.req('GET', '/api/v1/namespaces/default/configmaps/two-owners')).status).toBe(404);
  });
});

describe('namespaces', () => {
  it('seeds the default ServiceAccount and kube-root-ca.crt, and cascades deletion', async () => {
    await c.req('POST', '/api/v1/namespaces', { metadata: { name: 'gone', finalizers: ['example.com/hold'] } });
    await eventually(
      async () => (await c.req('GET', '/api/v1/namespaces/gone/serviceaccounts/default')).status === 200,
      'default SA',
    );
    expect((await c.req('GET', '/api/v1/namespaces/gone/configmaps/kube-root-ca.crt')).status).toBe(200);
    await c.req('POST', '/api/v1/namespaces/gone/configmaps', { metadata: { name: 'x' } });
    const d = await c.req('DELETE', '/api/v1/namespaces/gone');
    expect(d.body.status.phase).toBe('Terminating');
    const blocked = await c.req('POST', '/api/v1/namespaces/gone/configmaps', { metadata: { name: 'late' } });
    expect(blocked.status).toBe(403);
    expect(blocked.body.message).toBe(
      'configmaps "late" is forbidden: unable to create new content in namespace gone because it is being terminated',
    );
    // content goes first; the namespace stays while a finalizer holds it
    await eventually(
      async () => (await c.req('GET', '/api/v1/namespaces/gone/configmaps')).body.items.length === 0,
      'content removal',
    );
    await eventually(
      async () => (await c.req('GET', '/api/v1/namespaces/gone')).body.spec.finalizers.length === 0,
      'spec finalizer removal',
    );
    expect((await c.req('GET', '/api/v1/namespaces/gone')).status).toBe(200);
    await c.req('PATCH', '/api/v1/namespaces/gone', { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await eventually(async () => (await c.req('GET', '/api/v1/namespaces/gone')).status === 404, 'namespace removal');
    expect(c.sb.cluster.peekAll(c.sb.cluster.findType('', 'v1', 'configmaps')!, 'gone')).toEqual([]);
  });
});

describe('pod simulator and workloads', () => {
  it('derives Deployment and DaemonSet status from ready pods; node readiness is settable', async () => {
    const tmpl = { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } };
    await c.req('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'd' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'd' } }, template: tmpl },
    });
    await eventually(
      async () =>
        (await c.req('GET', '/apis/apps/v1/namespaces/default/deployments/d')).body.status?.readyReplicas === 3,
      'deployment ready',
    );
    const dep = (await c.req('GET', '/apis/apps/v1/namespaces/default/deployments/d')).body;
    expect(dep.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    expect(
      (dep.status.conditions as { type: string; status: string }[]).find((x) => x.type === 'Available')!.status,
    ).toBe('True');
    const pods = (await c.req('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dd')).body.items;
    expect(pods).toHaveLength(3);
    expect(pods[0].metadata.ownerReferences[0]).toMatchObject({ kind: 'ReplicaSet', controller: true });
    expect(pods[0].status.phase).toBe('Running');

    await c.req('POST', '/apis/apps/v1/namespaces/default/daemonsets', {
      metadata: { name: 'ds' },
      spec: { selector: { matchLabels: { app: 'ds' } }, template: { ...tmpl, metadata: { labels: { app: 'ds' } } } },
    });
    c.sb.setNodeReady('n2', true);
    await eventually(
      async () => (await c.req('GET', '/apis/apps/v1/namespaces/default/daemonsets/ds')).body.status?.numberReady === 2,
      'daemonset ready on 2 nodes',
    );
    c.sb.setNodeReady('n3', false);
    await eventually(
      async () =>
        (await c.req('GET', '/apis/apps/v1/namespaces/default/daemonsets/ds')).body.status?.desiredNumberScheduled ===
        3,
      'desired 3',
    );
    const ds = (await c.req('GET', '/apis/apps/v1/namespaces/default/daemonsets/ds')).body;
    expect(ds.status).toMatchObject({ desiredNumberScheduled: 3, numberReady: 2, numberUnavailable: 1 });
    const node = (await c.req('GET', '/api/v1/nodes/n3')).body;
    expect((node.status.conditions as { type: string; status: string }[]).find((x) => x.type === 'Ready')!.status).toBe(
      'False',
    );
  });

  it('refuses evictions that would violate a PDB with 429 TooManyRequests', async () => {
    await c.req('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', {
      metadata: { name: 'd' },
      spec: { minAvailable: 3, selector: { matchLabels: { app: 'd' } } },
    });
    await c.sb.settle();
    const pod = (await c.req('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dd')).body.items[0];
    const ev = await c.req('POST', `/api/v1/namespaces/default/pods/${pod.metadata.name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: pod.metadata.name, namespace: 'default' },
    });
    expect(ev.status).toBe(429);
    expect(ev.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: {
        causes: [
          { reason: 'DisruptionBudget', message: 'The disruption budget d needs 3 healthy pods and has 3 currently' },
        ],
      },
      code: 429,
    });
    const pdb = (await c.req('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/d')).body;
    expect(pdb.status).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3, expectedPods: 3 });
    await c.req(
      'PATCH',
      '/apis/policy/v1/namespaces/default/poddisruptionbudgets/d',
      { spec: { minAvailable: 2 } },
      'application/merge-patch+json',
    );
    const ok = await c.req('POST', `/api/v1/namespaces/default/pods/${pod.metadata.name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: pod.metadata.name, namespace: 'default' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await c.req('GET', `/api/v1/namespaces/default/pods/${pod.metadata.name}`)).status).toBe(404);
  });
});

describe('persistence', () => {
  it('saves a JSON snapshot on stop and resumes from it, CRDs included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-sandbox-persist-'));
    const a = await startSandbox({ persistDir: dir, token: 't' });
    const h = { Authorization: 'Bearer t', 'Content-Type': 'application/json' };
    await fetch(`${a.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({
        metadata: { name: 'things.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Cluster',
          names: { plural: 'things', kind: 'Thing' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      }),
    });
    expect(
      (
        await fetch(`${a.url}/apis/example.com/v1/things`, {
          method: 'POST',
          headers: h,
          body: JSON.stringify({
            apiVersion: 'example.com/v1',
            kind: 'Thing',
            metadata: { name: 'one' },
            extra: { kept: true },
          }),
        })
      ).status,
    ).toBe(201);
    const rv = a.cluster.rv;
    await a.stop();
    const b = await startSandbox({ persistDir: dir, token: 't' });
    try {
      const got = (await (await fetch(`${b.url}/apis/example.com/v1/things/one`, { headers: h })).json()) as {
        extra: unknown;
      };
      expect(got.extra).toEqual({ kept: true });
      expect(b.cluster.rv).toBeGreaterThanOrEqual(rv);
      const created = (await (
        await fetch(`${b.url}/api/v1/namespaces/default/configmaps`, {
          method: 'POST',
          headers: h,
          body: JSON.stringify({ metadata: { name: 'after' } }),
        })
      ).json()) as { metadata: { resourceVersion: string } };
      expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(rv);
    } finally {
      await b.stop();
    }
  });
});
