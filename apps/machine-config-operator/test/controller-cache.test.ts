/**
 * The machine-config-controller's controllers read through the process's `@keelson/kube` Manager cache: the shared
 * informers come from `mgr.informer()` (one watch per kind however many controllers ask), and the cluster config
 * singletons (FeatureGate, APIServer, nodes.config) are read from it once synced instead of a GET per sync.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { KubeClient, Manager, nullLogger, Registry } from '@keelson/kube';
import { DEFAULT_DURATIONS } from '@keelson/machineconfig';
import {
  clusterSingleton,
  createRecorder,
  createSharedInformers,
  informerOf,
  type ControllerContext,
} from '../src/controllers/context.js';
import { FeatureGates } from '../src/controllers/kubelet/features-controller.js';
import { startCountingProxy, type CountingProxy } from './helpers/counting-proxy.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';

const FG_PATH = '/apis/config.openshift.io/v1/featuregates';

describe('controllers on the Manager cache', { timeout: 60_000 }, () => {
  let tc: TestCluster;
  let proxy: CountingProxy;
  let client: KubeClient;
  let mgr: Manager;
  let ctx: ControllerContext;
  const withoutManager = (c: ControllerContext): ControllerContext => {
    const { manager: _manager, ...rest } = c;
    return rest;
  };

  beforeAll(async () => {
    tc = await startTestCluster();
    const crd = parseYaml(
      readFileSync(new URL('./data/kubelet/0000_10_config-operator_01_featuregates.crd.yaml', import.meta.url), 'utf8'),
    ) as object;
    await tc.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    await waitFor('featuregates served', () => tc.client.request('GET', FG_PATH).then(() => true));
    await tc.client
      .resource(FeatureGates)
      .create({ apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {} });
    proxy = await startCountingProxy(tc.sandbox.url);
    client = new KubeClient(proxy.kubeConfig(tc.kubeConfig));
    mgr = new Manager({ client, health: false });
    await mgr.start();
    ctx = {
      client,
      informers: createSharedInformers(mgr, nullLogger),
      manager: mgr,
      recorder: createRecorder(client, nullLogger),
      logger: nullLogger,
      registry: new Registry(),
      durations: DEFAULT_DURATIONS,
      now: () => new Date(),
    };
  });
  afterAll(async () => {
    await mgr.stop();
    await proxy.stop();
    await tc.stop();
  });

  it('shares one informer per kind: the shared set, a second ask and a controller informer are the same', () => {
    const again = createSharedInformers(mgr, nullLogger);
    expect(again.pools).toBe(ctx.informers.pools);
    expect(again.machineConfigs).toBe(ctx.informers.machineConfigs);
    expect(ctx.informers.machineConfigs.store.byIndex('role', 'worker')).toEqual([]);
    const gates = informerOf(ctx, FeatureGates);
    expect(gates).toEqual({ informer: mgr.informer(FeatureGates), owned: false });
    const own = informerOf(withoutManager(ctx), FeatureGates);
    expect(own.owned).toBe(true);
    expect(own.informer).not.toBe(gates.informer);
  });

  it('reads the FeatureGate from the cache once synced: no GET per sync, one watch, changes seen', async () => {
    const inf = mgr.informer(FeatureGates);
    await inf.waitForSync();
    const from = proxy.requests.length;
    for (let i = 0; i < 5; i++) expect((await clusterSingleton(ctx, FeatureGates))?.metadata.name).toBe('cluster');
    await tc.client.resource(FeatureGates).update({
      ...(await tc.client.resource(FeatureGates).get('cluster')),
      spec: { featureSet: 'TechPreviewNoUpgrade' },
    });
    await waitFor('the cache sees the change', async () =>
      (await clusterSingleton(ctx, FeatureGates))?.spec?.['featureSet'] === 'TechPreviewNoUpgrade' ? true : undefined,
    );
    const gets = proxy.requests
      .slice(from)
      .filter((r) => r.method === 'GET' && r.path.startsWith(`${FG_PATH}/cluster`));
    expect(gets).toEqual([]);
    const watches = proxy.requests.filter((r) => r.path.startsWith(FG_PATH) && r.path.includes('watch=true'));
    expect(watches.length).toBe(1);
  });

  it('without a Manager: a GET, and absent is undefined', async () => {
    const bare = withoutManager(ctx);
    const from = proxy.requests.length;
    expect((await clusterSingleton(bare, FeatureGates))?.metadata.name).toBe('cluster');
    await tc.client.resource(FeatureGates).delete('cluster');
    expect(await clusterSingleton(bare, FeatureGates)).toBeUndefined();
    expect(proxy.requests.slice(from).filter((r) => r.path.startsWith(`${FG_PATH}/cluster`)).length).toBe(2);
  });
});
