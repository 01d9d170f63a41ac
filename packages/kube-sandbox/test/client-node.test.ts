/** Proof with @kubernetes/client-node: KubernetesObjectApi CRUD, Watch, and informers that relist after 410. */
import {
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  makeInformer,
  V1ConfigMap,
  V1Namespace,
  V1ObjectMeta,
  Watch,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';

vi.setConfig({ testTimeout: 30_000 });

let sb: Sandbox;
let kc: KubeConfig;
beforeAll(async () => {
  sb = await startSandbox({ tls: true });
  kc = new KubeConfig();
  kc.loadFromString(sb.kubeconfigYaml());
});
afterAll(async () => {
  await sb.stop();
});

/** client-node's models are classes: build real instances of them instead of passing look-alike object literals. */
function meta(fields: Pick<V1ObjectMeta, 'name'> & Partial<Pick<V1ObjectMeta, 'namespace' | 'labels'>>): V1ObjectMeta {
  return Object.assign(new V1ObjectMeta(), fields);
}
function configMap(metadata: V1ObjectMeta): V1ConfigMap {
  return Object.assign(new V1ConfigMap(), { metadata });
}
function namespace(metadata: V1ObjectMeta): V1Namespace {
  return Object.assign(new V1Namespace(), { metadata });
}

async function eventually(fn: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 750; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('@kubernetes/client-node against the sandbox', () => {
  it('does CRUD with KubernetesObjectApi, including a custom resource', async () => {
    const api = KubernetesObjectApi.makeApiClient(kc);
    const created = await api.create<KubernetesObject & { data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta({ name: 'obj', namespace: 'default' }),
      data: { a: '1' },
    });
    expect(created.metadata?.uid).toBeTruthy();
    const read = await api.read<KubernetesObject & { data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'obj', namespace: 'default' },
    });
    expect(read.data).toEqual({ a: '1' });
    read.data = { a: '2' };
    const replaced = await api.replace(read);
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));
    // stale write: 409 surfaces as an ApiException with the Status body
    await expect(api.replace({ ...read, data: { a: '3' } })).rejects.toMatchObject({ code: 409 });
    const patched = await api.patch<KubernetesObject & { data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta({ name: 'obj', namespace: 'default' }),
      data: { b: 'x' },
    });
    expect(patched.data).toEqual({ a: '2', b: 'x' });
    const list = await api.list('v1', 'ConfigMap', 'default');
    expect(list.items.map((o) => o.metadata?.name)).toContain('obj');
    await api.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta({ name: 'obj', namespace: 'default' }) });
    await expect(
      api.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'obj', namespace: 'default' } }),
    ).rejects.toMatchObject({ code: 404 });

    await api.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: meta({ name: 'widgets.example.com' }),
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        // client-node's model names the schema keyword `default` as `_default` (it serializes it back to "default")
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { size: { type: 'integer', _default: 3 }, color: { type: 'string' } },
                  },
                  status: { type: 'object', properties: { ready: { type: 'boolean' } } },
                },
              },
            },
          },
        ],
      },
    } as KubernetesObject);
    const w = await api.create<KubernetesObject & { spec: { size: number; color: string } }>({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: meta({ name: 'w', namespace: 'default' }),
      spec: { color: 'red' },
    } as KubernetesObject & { spec: { size: number; color: string } });
    expect(w.spec).toEqual({ size: 3, color: 'red' });
    await expect(
      api.create({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: meta({ name: 'bad', namespace: 'default' }),
        spec: { size: 'big' },
      } as KubernetesObject),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('streams events with Watch', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const seen: string[] = [];
    const watch = new Watch(kc);
    const ctl = await watch.watch(
      '/api/v1/namespaces/default/configmaps',
      { labelSelector: 'watched=yes' },
      (phase, obj: V1ConfigMap) => seen.push(`${phase} ${obj.metadata?.name ?? ''}`),
      () => undefined,
    );
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: configMap(meta({ name: 'wa', labels: { watched: 'yes' } })),
    });
    await core.patchNamespacedConfigMap({
      namespace: 'default',
      name: 'wa',
      body: [{ op: 'add', path: '/data', value: { k: 'v' } }],
    });
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'wa' });
    await eventually(() => seen.length >= 3, 'three watch events');
    ctl.abort();
    expect(seen).toEqual(['ADDED wa', 'MODIFIED wa', 'DELETED wa']);
  });

  it('keeps an informer cache in sync and relists after 410 Gone', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: namespace(meta({ name: 'inf' })) });
    let lists = 0;
    const informer = makeInformer(kc, '/api/v1/namespaces/inf/configmaps', () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'inf' });
    });
    const events: string[] = [];
    informer.on('add', (o) => events.push(`add ${o.metadata?.name ?? ''}`));
    informer.on('update', (o) => events.push(`update ${o.metadata?.name ?? ''}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata?.name ?? ''}`));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'inf', body: configMap(meta({ name: 'one' })) });
    await eventually(() => events.includes('add one'), 'add one');
    const names = (): string[] =>
      informer
        .list('inf')
        .map((o) => o.metadata?.name ?? '')
        .sort();
    // break the watch and forget history: the informer's resume position is now too old
    sb.compactHistory();
    sb.closeWatches();
    await core.createNamespacedConfigMap({ namespace: 'inf', body: configMap(meta({ name: 'two' })) });
    await core.deleteNamespacedConfigMap({ namespace: 'inf', name: 'one' });
    await eventually(() => names().join(',') === 'kube-root-ca.crt,two', 'relisted cache');
    expect(events).toEqual(expect.arrayContaining(['add one', 'add two', 'delete one']));
    expect(lists).toBe(2);
    // the informer keeps watching after the relist
    await core.createNamespacedConfigMap({ namespace: 'inf', body: configMap(meta({ name: 'three' })) });
    await eventually(() => names().includes('three'), 'three');
    await informer.stop();
    expect(errors).toEqual([]);
  });
});
