/**
 * One rollout per upgrade, on the embedded API server (no test doubles; the requests go through a counting HTTP
 * proxy on loopback): an unchanged cluster costs no writes however often the operator syncs, and an upgrade-shaped
 * sequence — the operator of the new release writes a new ControllerConfig, then the controller of the new version
 * replaces the old one — produces exactly one new rendered MachineConfig per pool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigMaps,
  ControllerConfigs,
  Informer,
  MachineConfigPools,
  MachineConfigs,
  nullLogger,
  Registry,
  type Logger,
} from '@keelson/kube';
import { defaultPool } from '@keelson/machineconfig';
import {
  startMachineConfigController,
  startMachineConfigOperator,
  type ControllerConfig,
  type MachineConfig,
  type MachineConfigPool,
  type Running,
} from '../../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from '../helpers/cluster.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';

const NS = 'openshift-machine-config-operator';
const OS1 = `quay.io/test/rhcos@sha256:${'1'.repeat(64)}`;
const OS2 = `quay.io/test/rhcos@sha256:${'2'.repeat(64)}`;
const POOLS = ['master', 'worker'] as const;
const DURATIONS = { renderDelayMs: 100, nodeSyncDelayMs: 50 };

let tc: TestCluster;
let proxy: CountingProxy;
let operator: Running | undefined;
let controller: Running | undefined;
let poolWatch: Informer<MachineConfigPool>;
/** Every spec.configuration.name each pool was seen targeting, in order. */
const targets: Record<string, string[]> = { master: [], worker: [] };
const operatorLog: string[] = [];
/** The running operator's metrics (its controller counts its reconciles). */
let operatorMetrics = new Registry();

/** Reconciles of the operator's controller so far (`controller_reconcile_total`). */
async function operatorSyncs(): Promise<number> {
  const m = await operatorMetrics.getSingleMetric('controller_reconcile_total')?.get();
  return (m?.values ?? [])
    .filter((v) => v.labels['controller'] === 'machine-config-operator')
    .reduce((n, v) => n + v.value, 0);
}

/** A logger that keeps the operator's messages (the test counts "ControllerConfig updated"). */
const recording: Logger = {
  debug: () => undefined,
  info: (m) => {
    operatorLog.push(m);
  },
  warn: (m) => {
    operatorLog.push(m);
  },
  error: (m) => {
    operatorLog.push(m);
  },
  child: () => recording,
};

function observeTargets(p: MachineConfigPool): void {
  const name = p.metadata.name ?? '';
  const t = p.spec.configuration?.name;
  const seen = targets[name];
  if (seen === undefined || t === undefined || t === '') return;
  if (seen[seen.length - 1] !== t) seen.push(t);
}

const renderedOf = async (pool: string): Promise<MachineConfig[]> =>
  (await tc.client.resource(MachineConfigs).list()).items.filter((m) =>
    (m.metadata.name ?? '').startsWith(`rendered-${pool}-`),
  );
const ccNow = (): Promise<ControllerConfig> => tc.client.resource(ControllerConfigs).get('machine-config-controller');

async function startOperator(release: string, mcoVersion: string, controllerVersion: string): Promise<Running> {
  operatorMetrics = new Registry();
  return startMachineConfigOperator({
    registry: operatorMetrics,
    operands: false,
    kubeconfig: proxy.kubeConfig(tc.kubeConfig),
    logger: recording,
    releaseVersion: release,
    mcoVersion,
    controllerVersion,
    resyncIntervalMs: 100,
    leaderElection: false,
    health: false,
  });
}
async function startController(controllerVersion: string, operatorVersion: string): Promise<Running> {
  return startMachineConfigController({
    kubeconfig: proxy.kubeConfig(tc.kubeConfig),
    logger: nullLogger,
    leaderElection: false,
    health: false,
    controllerVersion,
    operatorVersion,
    durations: DURATIONS,
  });
}
async function setRelease(release: string, os: string): Promise<void> {
  const cms = tc.client.resource(ConfigMaps);
  const data = { baseOSContainerImage: os, baseOSExtensionsContainerImage: '', releaseVersion: release };
  try {
    const cm = await cms.get('machine-config-osimageurl', NS);
    await cms.update({ ...cm, data });
  } catch {
    await cms.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: NS },
      data,
    });
  }
}
/** Waits until every pool targets a rendered config whose OS image is `os`; returns the names. */
async function waitRendered(os: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of POOLS) {
    out[p] = await waitFor(
      `pool ${p} targeting a render with ${os}`,
      async () => {
        const name = (await tc.client.resource(MachineConfigPools).get(p)).spec.configuration?.name;
        if (name === undefined || name === '') return undefined;
        const mc = await tc.client.resource(MachineConfigs).get(name);
        return mc.spec?.osImageURL === os ? name : undefined;
      },
      20_000,
    );
  }
  return out;
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  tc = await startTestCluster();
  proxy = await startCountingProxy(tc.sandbox.url);
  for (const p of POOLS) {
    const d = defaultPool(p);
    await tc.client
      .resource(MachineConfigPools)
      .create({ ...d, metadata: { ...d.metadata, labels: d.metadata.labels ?? {} } } as never);
  }
  poolWatch = new Informer<MachineConfigPool>(tc.client, MachineConfigPools, { logger: nullLogger });
  poolWatch.addHandlers({
    add: observeTargets,
    update: (_o, n) => {
      observeTargets(n);
    },
  });
  poolWatch.start();
  await setRelease('4.99.0', OS1);
  operator = await startOperator('4.99.0', 'op-1', 'ctrl-1');
  controller = await startController('ctrl-1', 'op-1');
  await waitRendered(OS1);
}, 60_000);

afterAll(async () => {
  await controller?.stop();
  await operator?.stop();
  await poolWatch.stop();
  await proxy.stop();
  await tc.stop();
}, 30_000);

describe('MCO render churn', { timeout: 60_000 }, () => {
  it('N operator syncs of an unchanged cluster write nothing (ControllerConfig compared as the API server stores it)', async () => {
    // the config objects, the ConfigMaps and ClusterOperator image-registry of a sync come from informers
    // settle: the ClusterOperator status and the pools' first status writes are done
    await waitFor('ClusterOperator machine-config reports the release', async () => {
      const co = await tc.client.request<{ status?: { versions?: Array<{ version: string }> } }>(
        'GET',
        '/apis/config.openshift.io/v1/clusteroperators/machine-config',
      );
      return co.status?.versions?.[0]?.version === '4.99.0' ? true : undefined;
    });
    await sleep(500);
    const from = proxy.requests.length;
    const syncsBefore = await operatorSyncs();
    const updatesBefore = operatorLog.filter((m) => m === 'ControllerConfig updated').length;
    await sleep(1_500);
    expect((await operatorSyncs()) - syncsBefore).toBeGreaterThanOrEqual(5);
    // upstream's listers: no ConfigMap (machine-config-server-ca included) or ClusterOperator is read from the API
    // server by a sync
    const listed = proxy.requests
      .slice(from)
      .filter(
        (r) =>
          r.method === 'GET' &&
          /^\/api\/v1\/namespaces\/[^/]+\/configmaps\/[^/?]+|^\/apis\/config\.openshift\.io\/v1\/clusteroperators\/[^/?]+/.test(
            r.path,
          ),
      );
    expect(listed.map((r) => r.path)).toEqual([]);
    expect(proxy.writesSince(from)).toEqual([]);
    expect(operatorLog.filter((m) => m === 'ControllerConfig updated').length).toBe(updatesBefore);
  });

  it('a new ControllerConfig from the operator + a new controller version render ONE new config per pool', async () => {
    const before = await waitRendered(OS1);
    for (const p of POOLS) expect(await renderedOf(p)).toHaveLength(1);
    const updatesBefore = operatorLog.filter((m) => m === 'ControllerConfig updated').length;

    // the CVO rolls the operator Deployment and applies the new osimageurl ConfigMap
    await operator?.stop();
    operator = await startOperator('4.99.1', 'op-2', 'ctrl-2');
    await setRelease('4.99.1', OS2);
    await waitFor('ControllerConfig of op-2', async () => {
      const cc = await ccNow();
      return cc.spec.baseOSContainerImage === OS2 &&
        cc.metadata.annotations?.['machineconfiguration.openshift.io/generated-by-version'] === 'op-2'
        ? cc
        : undefined;
    });
    // the old controller must not render the new release (version skew), however long it runs
    await sleep(10 * DURATIONS.renderDelayMs);
    for (const p of POOLS)
      expect((await tc.client.resource(MachineConfigPools).get(p)).spec.configuration?.name).toBe(before[p]);

    // the operator rolls the controller to the new version
    await controller?.stop();
    controller = await startController('ctrl-2', 'op-2');
    const after = await waitRendered(OS2);
    await sleep(15 * DURATIONS.renderDelayMs);

    for (const p of POOLS) {
      expect(targets[p]).toEqual([before[p], after[p]]);
      const rendered = await renderedOf(p);
      expect(rendered.map((m) => m.metadata.name).sort()).toEqual([before[p], after[p]].sort());
      const pool = await tc.client.resource(MachineConfigPools).get(p);
      expect(pool.spec.configuration?.name).toBe(after[p]);
      expect(pool.status?.conditions?.find((c) => c.type === 'RenderDegraded')?.status).toBe('False');
      const mc = rendered.find((m) => m.metadata.name === after[p]);
      expect(mc?.metadata.annotations?.['machineconfiguration.openshift.io/generated-by-controller-version']).toBe(
        'ctrl-2',
      );
    }
    const cc = await ccNow();
    expect(cc.status?.conditions?.find((c) => c.type === 'TemplateControllerCompleted')?.message).toBe(
      `sync completed towards (${String(cc.metadata.generation)}) generation using controller version ctrl-2`,
    );
    // one ControllerConfig write for the new release, none after
    expect(operatorLog.filter((m) => m === 'ControllerConfig updated').length - updatesBefore).toBe(1);
  });

  it('a generated base MachineConfig overwritten by another writer (owner reference dropped) is restored at once', async () => {
    const mcs = tc.client.resource(MachineConfigs);
    const target = (await tc.client.resource(MachineConfigPools).get('worker')).spec.configuration?.name;
    const mine = await mcs.get('00-worker');
    // e.g. a release manifest of the same name applied by the CVO: other content, no owner reference
    await mcs.update({
      ...mine,
      metadata: { ...mine.metadata, ownerReferences: [] },
      spec: { ...mine.spec, kernelArguments: ['audit=1'] },
    });
    await waitFor(
      '00-worker restored',
      async () => {
        const mc = await mcs.get('00-worker');
        return (mc.spec?.kernelArguments ?? []).length === 0 &&
          mc.metadata.ownerReferences?.[0]?.kind === 'ControllerConfig'
          ? mc
          : undefined;
      },
      10_000,
    );
    // the pool ends on the config it had (a render of the foreign content in between, possible when the machine is
    // loaded, is undone by the restore: rendered names are content hashes)
    await waitFor(
      'the worker pool back on its target',
      async () =>
        (await tc.client.resource(MachineConfigPools).get('worker')).spec.configuration?.name === target
          ? true
          : undefined,
      30_000,
    );
    await sleep(10 * DURATIONS.renderDelayMs);
    expect((await tc.client.resource(MachineConfigPools).get('worker')).spec.configuration?.name).toBe(target);
  }, 90_000);
});
