/**
 * What wakes the operator (upstream pkg/operator/operator.go New/eventHandler/enqueue): its informers come from the
 * process Manager's shared cache; a MachineConfig write (upstream's mcInformer has no handler) and a ConfigMap
 * carrying a leader-election record (dropped by upstream's enqueue) run no sync; a MachineConfigPool status write
 * runs one, and that sync, with nothing to change, writes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClusterOperators,
  ConfigMaps,
  KubeClient,
  MachineConfigPools,
  MachineConfigs,
  nullLogger,
  Registry,
} from '@keelson/kube';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { LEADER_ELECTION_RECORD_ANNOTATION } from '../src/operator/informers.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';
import { loadProfile } from './helpers/cluster-config.js';
import { startCountingProxy, type CountingProxy } from './helpers/counting-proxy.js';

const NS = 'openshift-machine-config-operator';
const OS = `quay.io/test/rhcos@sha256:${'3'.repeat(64)}`;
const VERSION = '4.99.0';

/** Reconciles of the operator's controller so far (its `controller_reconcile_total`). */
async function syncs(registry: Registry): Promise<number> {
  const m = registry.getSingleMetric('controller_reconcile_total');
  if (m === undefined) return 0;
  const { values } = await m.get();
  return values.filter((v) => v.labels['controller'] === 'machine-config-operator').reduce((a, v) => a + v.value, 0);
}

/** Waits until no sync completes for half a second (the queue drained), then the count. */
async function quiet(registry: Registry): Promise<number> {
  for (;;) {
    const a = await syncs(registry);
    await new Promise((r) => setTimeout(r, 500));
    if ((await syncs(registry)) === a) return a;
  }
}

describe('operator events (what queues a sync)', { timeout: 60_000 }, () => {
  let tc: TestCluster | undefined;
  let proxy: CountingProxy | undefined;
  let operator: Running | undefined;
  afterEach(async () => {
    await operator?.stop();
    await proxy?.stop();
    await tc?.stop();
    operator = proxy = tc = undefined;
  });

  it('MC and leader-record ConfigMap writes run no sync; a pool status write runs one that writes nothing', async () => {
    tc = await startTestCluster();
    await loadProfile(tc.client, 'aws');
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: NS },
      data: { baseOSContainerImage: OS, baseOSExtensionsContainerImage: '', releaseVersion: VERSION, osImageURL: '' },
    });
    proxy = await startCountingProxy(tc.sandbox.url);
    const kubeconfig = proxy.kubeConfig(tc.kubeConfig);
    const registry = new Registry();
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig,
      logger: nullLogger,
      registry,
      releaseVersion: VERSION,
      images: { releaseVersion: VERSION },
      resyncIntervalMs: 10 * 60_000,
      leaderElection: false,
      health: false,
    });
    const client = new KubeClient(kubeconfig);
    const pools = client.resource(MachineConfigPools);
    await waitFor('both pools', async () => ((await pools.list()).items.length === 2 ? true : undefined));
    await waitFor('ClusterOperator status', async () => {
      const co = await client
        .resource(ClusterOperators)
        .get('machine-config')
        .catch(() => undefined);
      return (co?.status?.conditions?.length ?? 0) > 0 ? true : undefined;
    });
    // settled: the last sync wrote nothing (two syncs in a row without a write)
    let settled = -1;
    await waitFor('a sync that writes nothing', async () => {
      const from = proxy!.requests.length;
      const before = await syncs(registry);
      await pools.patch('worker', { metadata: { labels: { probe: String(Date.now()) } } }, { type: 'merge' });
      const seen = await waitFor('sync', async () => ((await syncs(registry)) > before ? true : undefined));
      const writes = proxy!.writesSince(from).filter((r) => !r.path.includes('/machineconfigpools/worker'));
      if (seen && writes.length === 0) settled = await syncs(registry);
      return settled >= 0 ? true : undefined;
    });

    // one watch per kind and selection: the operator's ConfigMaps of its namespace watched once
    const cmWatches = proxy.requests.filter(
      (r) =>
        r.method === 'GET' &&
        r.path.startsWith(`/api/v1/namespaces/${NS}/configmaps?`) &&
        r.path.includes('watch=true'),
    );
    expect(cmWatches.length).toBe(1);

    // not a trigger: a MachineConfig and a leader-election record
    const mark = await quiet(registry);
    await client.resource(MachineConfigs).create({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '99-probe', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: {},
    });
    await client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'some-lock',
        namespace: NS,
        annotations: { [LEADER_ELECTION_RECORD_ANNOTATION]: '{"holderIdentity":"x"}' },
      },
    });
    // a trigger after them, on the same informers' order: a plain ConfigMap of the namespace
    const from = proxy.requests.length;
    await client
      .resource(ConfigMaps)
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain', namespace: NS }, data: {} });
    await waitFor('the plain ConfigMap sync', async () => ((await syncs(registry)) > mark ? true : undefined));
    expect(await quiet(registry)).toBe(mark + 1);
    expect(proxy.writesSince(from).filter((r) => !r.path.includes('/configmaps'))).toEqual([]);

    // a pool status write queues a sync; with nothing to change it writes nothing
    const pool = await pools.get('worker');
    const at = proxy.requests.length;
    await pools.updateStatus({ ...pool, status: { ...pool.status, observedGeneration: 99 } });
    await waitFor('pool-status sync', async () => ((await syncs(registry)) > mark + 1 ? true : undefined));
    expect(await quiet(registry)).toBe(mark + 2);
    expect(proxy.writesSince(at).map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker/status',
    ]);
  });
});
