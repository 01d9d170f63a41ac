import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });
import { sandbox, type Client } from './helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox();
});
afterAll(async () => {
  await c.sb.stop();
});

describe('auth and discovery', () => {
  it('rejects a wrong token with a 401 Status', async () => {
    const bad = await fetch(`${c.sb.url}/api/v1/namespaces`, { headers: { Authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });
  it('serves /version, /api, /apis and resource lists', async () => {
    expect((await c.req('GET', '/version')).body.major).toBe('1');
    const api = await c.req('GET', '/api');
    expect(api.body.kind).toBe('APIVersions');
    expect(api.body.versions).toEqual(['v1']);
    const apis = await c.req('GET', '/apis');
    const names = (apis.body.groups as { name: string }[]).map((g) => g.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'apps',
        'coordination.k8s.io',
        'policy',
        'apiextensions.k8s.io',
        'events.k8s.io',
        'rbac.authorization.k8s.io',
        'batch',
      ]),
    );
    const v1 = await c.req('GET', '/api/v1');
    expect(v1.body.kind).toBe('APIResourceList');
    expect(v1.body.groupVersion).toBe('v1');
    const pods = (v1.body.resources as { name: string; verbs: string[] }[]).find((r) => r.name === 'pods');
    expect(pods).toMatchObject({
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      shortNames: ['po'],
    });
    expect(pods!.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    expect((v1.body.resources as { name: string }[]).map((r) => r.name)).toEqual(
      expect.arrayContaining(['pods/status', 'pods/eviction', 'nodes', 'configmaps', 'events', 'namespaces/status']),
    );
    const apps = await c.req('GET', '/apis/apps/v1');
    expect((apps.body.resources as { name: string }[]).find((r) => r.name === 'deployments/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    expect((await c.req('GET', '/apis/apps')).body).toMatchObject({
      kind: 'APIGroup',
      name: 'apps',
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
    expect((await c.req('GET', '/apis/nope.example.com/v1')).status).toBe(404);
  });
});

describe('object semantics', () => {
  it('creates with uid, creationTimestamp, string resourceVersion; 409 AlreadyExists', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
      data: { k: 'v' },
    });
    expect(r.status).toBe(201);
    expect(r.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(typeof r.body.metadata.resourceVersion).toBe('string');
    expect(r.body.metadata.generation).toBeUndefined();
    const dup = await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "a" already exists',
      reason: 'AlreadyExists',
      details: { name: 'a', kind: 'configmaps' },
      code: 409,
    });
  });
  it('answers 404 NotFound like the real server, including for groups', async () => {
    const r = await c.req('GET', '/apis/apps/v1/namespaces/default/deployments/nope');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'deployments.apps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', group: 'apps', kind: 'deployments' },
      code: 404,
    });
  });
  it('requires the namespace to exist', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/missing/configmaps', { metadata: { name: 'x' } });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('namespaces "missing" not found');
  });
  it('rejects invalid names with 422 Invalid and causes', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'Bad_Name' } });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.message).toMatch(
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    expect(r.body.details).toMatchObject({
      name: 'Bad_Name',
      kind: 'ConfigMap',
      causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name' }],
    });
    const none = await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: {} });
    expect(none.body.message).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
  });
  it('generates names from generateName', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'gen-' } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
  it('enforces optimistic concurrency with 409 Conflict', async () => {
    const a = await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'occ' },
      data: { v: '1' },
    });
    const u1 = await c.req('PUT', '/api/v1/namespaces/default/configmaps/occ', { ...a.body, data: { v: '2' } });
    expect(u1.status).toBe(200);
    expect(Number(u1.body.metadata.resourceVersion)).toBeGreaterThan(Number(a.body.metadata.resourceVersion));
    const u2 = await c.req('PUT', '/api/v1/namespaces/default/configmaps/occ', { ...a.body, data: { v: '3' } });
    expect(u2.status).toBe(409);
    expect(u2.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'occ', kind: 'configmaps' },
      code: 409,
    });
    // a no-op update does not bump the resourceVersion
    const same = await c.req('PUT', '/api/v1/namespaces/default/configmaps/occ', u1.body);
    expect(same.body.metadata.resourceVersion).toBe(u1.body.metadata.resourceVersion);
  });
  it('bumps generation only on spec changes, keeps status on main-resource writes', async () => {
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      },
    };
    const r = await c.req('POST', '/apis/apps/v1/namespaces/default/deployments', d);
    expect(r.status).toBe(201);
    expect(r.body.metadata.generation).toBe(1);
    const lab = await c.req(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web',
      { metadata: { labels: { x: 'y' } } },
      'application/merge-patch+json',
    );
    expect(lab.body.metadata.generation).toBe(1);
    const st = await c.req(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web/status',
      { status: { replicas: 5 } },
      'application/merge-patch+json',
    );
    expect(st.body.status.replicas).toBe(5);
    expect(st.body.metadata.generation).toBe(1);
    const spec = await c.req(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web',
      { spec: { replicas: 3 }, status: { replicas: 99 } },
      'application/merge-patch+json',
    );
    expect(spec.body.metadata.generation).toBe(2);
    expect(spec.body.status.replicas).toBe(5);
    const scale = await c.req('GET', '/apis/apps/v1/namespaces/default/deployments/web/scale');
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 3 },
      status: { replicas: 5, selector: 'app=web' },
    });
    const sc = await c.req(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web/scale',
      { spec: { replicas: 4 } },
      'application/merge-patch+json',
    );
    expect(sc.body.spec.replicas).toBe(4);
  });
  it('lists with label and field selectors and paginates', async () => {
    for (let i = 0; i < 7; i++)
      await c.req('POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: `p${i}`, labels: { page: 'yes', idx: String(i) } },
      });
    const sel = await c.req(
      'GET',
      '/api/v1/namespaces/default/configmaps?labelSelector=' + encodeURIComponent('page=yes,idx in (1,2,3),idx!=2'),
    );
    expect((sel.body.items as { metadata: { name: string } }[]).map((o) => o.metadata.name)).toEqual(['p1', 'p3']);
    expect(sel.body.kind).toBe('ConfigMapList');
    const f = await c.req('GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dp4');
    expect(f.body.items).toHaveLength(1);
    const bad = await c.req('GET', '/api/v1/configmaps?fieldSelector=spec.nope%3Dx');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('field label not supported: spec.nope');
    const names: string[] = [];
    let cont = '';
    let pages = 0;
    do {
      const r = await c.req(
        'GET',
        `/api/v1/namespaces/default/configmaps?labelSelector=page%3Dyes&limit=3${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
      );
      names.push(...(r.body.items as { metadata: { name: string } }[]).map((o) => o.metadata.name));
      cont = r.body.metadata.continue ?? '';
      pages++;
    } while (cont);
    expect(pages).toBe(3);
    expect(names).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
  });
  it('filters pods by spec.nodeName', async () => {
    for (const [n, node] of [
      ['pa', 'n1'],
      ['pb', 'n2'],
    ]) {
      const r = await c.req('POST', '/api/v1/namespaces/default/pods', {
        metadata: { name: n },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'x:1' }] },
      });
      expect(r.status).toBe(201);
      expect(r.body.status.phase).toBe('Pending');
    }
    const r = await c.req('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn2');
    expect((r.body.items as { metadata: { name: string } }[]).map((p) => p.metadata.name)).toEqual(['pb']);
  });
  it('supports dryRun=All without persisting', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'dry' } });
    expect(r.status).toBe(201);
    expect((await c.req('GET', '/api/v1/namespaces/default/configmaps/dry')).status).toBe(404);
  });
  it('deletes with Status Success, deletecollection by selector', async () => {
    const d = await c.req('DELETE', '/api/v1/namespaces/default/configmaps/a');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'a', kind: 'configmaps' } });
    const dc = await c.req('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=page%3Dyes');
    expect(dc.body.items).toHaveLength(7);
    expect(
      (await c.req('GET', '/api/v1/namespaces/default/configmaps?labelSelector=page%3Dyes')).body.items,
    ).toHaveLength(0);
  });
  it('answers 202 for an object that stays only when the client asked OrphanDependents=false (handlers.DeleteResource)', async () => {
    await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'fin-od', finalizers: ['example.com/hold'] },
    });
    const d = await c.req('DELETE', '/api/v1/namespaces/default/configmaps/fin-od', {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      orphanDependents: false,
    });
    expect(d.status).toBe(202);
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();
  });
  it('keeps objects with finalizers until they are removed', async () => {
    await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'fin', finalizers: ['example.com/hold'] },
    });
    const d = await c.req('DELETE', '/api/v1/namespaces/default/configmaps/fin');
    expect(d.status).toBe(200);
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();
    const g = await c.req('GET', '/api/v1/namespaces/default/configmaps/fin');
    expect(g.status).toBe(200);
    const add = await c.req(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/fin',
      { metadata: { finalizers: ['example.com/hold', 'other/new'] } },
      'application/merge-patch+json',
    );
    expect(add.status).toBe(422);
    const rm = await c.req(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/fin',
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    expect(rm.status).toBe(200);
    expect((await c.req('GET', '/api/v1/namespaces/default/configmaps/fin')).status).toBe(404);
  });
});

describe('events: core/v1 and events.k8s.io/v1 share storage', () => {
  it('serves one Event through both APIs with converted field names', async () => {
    const r = await c.req('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ev1' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      regarding: { kind: 'Pod', name: 'pa', namespace: 'default' },
      reason: 'Started',
      note: 'container started',
      type: 'Normal',
      action: 'Start',
      reportingController: 'keelson/test',
      reportingInstance: 'test-1',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      regarding: { name: 'pa' },
      note: 'container started',
    });
    const core = await c.req('GET', '/api/v1/namespaces/default/events/ev1');
    expect(core.body).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { kind: 'Pod', name: 'pa' },
      message: 'container started',
      reportingComponent: 'keelson/test',
      reason: 'Started',
    });
    expect(core.body.note).toBeUndefined();
    const sel = await c.req(
      'GET',
      '/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dpa',
    );
    expect((sel.body.items as { metadata: { name: string } }[]).map((e) => e.metadata.name)).toEqual(['ev1']);
    const coreSel = await c.req('GET', '/api/v1/events?fieldSelector=involvedObject.name%3Dpa,reason%3DStarted');
    expect(coreSel.body.items).toHaveLength(1);
    const p = await c.req(
      'PATCH',
      '/apis/events.k8s.io/v1/namespaces/default/events/ev1',
      { note: 'updated' },
      'application/merge-patch+json',
    );
    expect(p.body.note).toBe('updated');
    expect((await c.req('GET', '/api/v1/namespaces/default/events/ev1')).body.message).toBe('updated');
    expect((await c.req('DELETE', '/apis/events.k8s.io/v1/namespaces/default/events/ev1')).status).toBe(200);
    expect((await c.req('GET', '/api/v1/namespaces/default/events/ev1')).status).toBe(404);
  });
});

describe('hostile input', () => {
  it('refuses oversized, malformed and mistyped bodies with Status errors', async () => {
    const big = await c.req(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      JSON.stringify({ metadata: { name: 'big' }, data: { x: 'a'.repeat(4 * 1024 * 1024) } }),
    );
    expect(big.status).toBe(413);
    expect(big.body.reason).toBe('RequestEntityTooLarge');
    const bad = await c.req('POST', '/api/v1/namespaces/default/configmaps', '{"metadata": ');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^error decoding request body: /);
    const proto = await c.req(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      'k8s\u0000\u00ff\u00ff\u00ff',
      'application/vnd.kubernetes.protobuf',
    );
    expect(proto.status).toBe(400);
    const ct = await c.req('POST', '/api/v1/namespaces/default/configmaps', '<x/>', 'application/xml');
    expect(ct.status).toBe(415);
    const kind = await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'k' },
    });
    expect(kind.status).toBe(400);
    expect(kind.body.message).toBe('the kind in the data (Secret) does not match the expected kind (ConfigMap)');
    const yamlBomb = await c.req(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/occ?fieldManager=x',
      'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n',
      'application/apply-patch+yaml',
    );
    expect(yamlBomb.status).toBe(400);
    const deep = await c.req(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      `{"metadata":{"name":"deep"},"x":${'['.repeat(100000)}${']'.repeat(100000)}}`,
    );
    expect([400, 422, 500]).toContain(deep.status);
    expect(deep.body.kind).toBe('Status');
    expect((await c.req('GET', '/version')).status).toBe(200);
  });
});

describe('generic kinds', () => {
  it('serves a kind registered with defineResourceType', async () => {
    const { defineResourceType } = await import('../src/index.js');
    c.sb.cluster.addType(
      defineResourceType({
        group: 'storage.k8s.io',
        version: 'v1',
        plural: 'storageclasses',
        kind: 'StorageClass',
        namespaced: false,
        shortNames: ['sc'],
      }),
    );
    const rl = await c.req('GET', '/apis/storage.k8s.io/v1');
    expect(rl.body.resources).toEqual([
      expect.objectContaining({ name: 'storageclasses', kind: 'StorageClass', namespaced: false, shortNames: ['sc'] }),
    ]);
    const r = await c.req('POST', '/apis/storage.k8s.io/v1/storageclasses', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: 'x',
    });
    expect(r.status).toBe(201);
    expect((await c.req('GET', '/apis/storage.k8s.io/v1/storageclasses/fast')).body.provisioner).toBe('x');
  });
});

describe('services', () => {
  it('allocates an immutable cluster IP and defaults ports', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'svc' },
      spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
    });
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(r.body.spec.clusterIP).toMatch(/^172\.30\.\d+\.\d+$/);
    expect(r.body.spec.clusterIPs).toEqual([r.body.spec.clusterIP]);
    const change = await c.req(
      'PATCH',
      '/api/v1/namespaces/default/services/svc',
      { spec: { clusterIP: '172.30.9.9' } },
      'application/merge-patch+json',
    );
    expect(change.status).toBe(422);
    expect(change.body.message).toBe(
      'Service "svc" is invalid: spec.clusterIP: Invalid value: "172.30.9.9": field is immutable',
    );
  });
});
