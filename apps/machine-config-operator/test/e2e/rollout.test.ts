/**
 * End to end against the embedded API server over real HTTP: the operator and the controller (all sub-controllers,
 * leader election on) with 3 masters, 5 workers and a custom infra pool of 2. Nodes are played by the
 * FakeNodeUpdater TEST DOUBLE (see test/helpers/node-updater.ts) until the daemon's virtual nodes exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClusterOperators,
  ConfigMaps,
  Informer,
  Leases,
  MachineConfigPools,
  MachineConfigs,
  nullLogger,
} from '@keelson/kube';
import { customPool, defaultPool, isNodeUnavailable, NodeAnnotations } from '@keelson/machineconfig';
import {
  Nodes,
  startMachineConfigController,
  startMachineConfigOperator,
  type MachineConfigPool,
  type Node,
  type Running,
} from '../../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from '../helpers/cluster.js';
import { FakeNodeUpdater } from '../helpers/node-updater.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';

const Pools = MachineConfigPools;
const NS = 'openshift-machine-config-operator';
const ROLE = 'machineconfiguration.openshift.io/role';
const durations = {
  renderDelayMs: 100,
  nodeSyncDelayMs: 50,
  drainDelayMs: 20,
  drainRequeueMs: 200,
  drainRequeueAfterThresholdMs: 300,
  drainThresholdMs: 600,
  drainFailedMs: 60_000,
  evictionRetryMs: 50,
  drainAttemptTimeoutMs: 300,
  podDeletePollMs: 20,
};

let tc: TestCluster;
let controller: Running;
let operator: Running;
let updater: FakeNodeUpdater;
let observer: Informer<Node>;
const maxUnavailable: Record<string, number> = { worker: 0, infra: 0, master: 0 };

const poolOfNode = (n: Node): string => {
  const l = n.metadata.labels ?? {};
  if ('node-role.kubernetes.io/master' in l) return 'master';
  if ('node-role.kubernetes.io/infra' in l) return 'infra';
  return 'worker';
};

function observe(): void {
  const counts: Record<string, number> = { worker: 0, infra: 0, master: 0 };
  for (const n of observer.store.list())
    if (isNodeUnavailable(n)) counts[poolOfNode(n)] = (counts[poolOfNode(n)] ?? 0) + 1;
  for (const [p, c] of Object.entries(counts)) maxUnavailable[p] = Math.max(maxUnavailable[p] ?? 0, c);
}

const pool = (name: string): Promise<MachineConfigPool> => tc.client.resource(Pools).get(name);
const cond = (p: MachineConfigPool, t: string): string | undefined =>
  p.status?.conditions?.find((c) => c.type === t)?.status;

async function waitPoolUpdated(
  name: string,
  notConfig?: string,
  count?: number,
  timeoutMs = 30_000,
): Promise<MachineConfigPool> {
  return waitFor(
    `pool ${name} updated`,
    async () => {
      const p = await pool(name);
      const target = p.spec.configuration?.name ?? '';
      if (target === '' || target === notConfig) return undefined;
      if (count !== undefined && p.status?.machineCount !== count) return undefined;
      return cond(p, 'Updated') === 'True' && p.status?.configuration?.name === target ? p : undefined;
    },
    timeoutMs,
  );
}

/** The controller's requests (it talks to the server through this proxy). */
let controllerProxy: CountingProxy;

function startController(): Promise<Running> {
  return startMachineConfigController({
    kubeconfig: controllerProxy.kubeConfig(tc.kubeConfig),
    logger: nullLogger,
    durations,
    cordonBackoff: { initialMs: 20, steps: 5 },
    leaderElection: { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 },
  });
}

function workerMC(name: string, path: string, role = 'worker'): Record<string, unknown> {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, labels: { [ROLE]: role } },
    spec: {
      config: {
        ignition: { version: '3.2.0' },
        storage: { files: [{ path, mode: 420, contents: { source: `data:,${name}` } }] },
      },
    },
  };
}

beforeAll(async () => {
  tc = await startTestCluster();
  await tc.client.resource(ConfigMaps).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: NS },
    data: {
      baseOSContainerImage: 'quay.io/openshift/os@sha256:1111',
      baseOSExtensionsContainerImage: 'quay.io/openshift/ext@sha256:2222',
      releaseVersion: '4.99.0',
    },
  });
  // worker pool with maxUnavailable 2 (the operator keeps an existing pool), custom infra pool inheriting worker
  const w = defaultPool('worker');
  await tc.client.resource(Pools).create({
    ...w,
    metadata: { ...w.metadata, labels: w.metadata.labels ?? {} },
    spec: { ...w.spec, maxUnavailable: 2 },
  } as unknown as MachineConfigPool);
  const infra = customPool('infra');
  await tc.client.resource(Pools).create({
    ...infra,
    metadata: { ...infra.metadata, labels: infra.metadata.labels ?? {} },
  } as unknown as MachineConfigPool);
  operator = await startMachineConfigOperator({
    operands: false,
    kubeconfig: tc.kubeConfig,
    logger: nullLogger,
    releaseVersion: '4.99.0',
    resyncIntervalMs: 200,
    leaderElection: { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 },
  });
  controllerProxy = await startCountingProxy(tc.sandbox.url);
  controller = await startController();
  observer = new Informer<Node>(tc.client, Nodes, { logger: nullLogger });
  observer.addHandlers({ add: observe, update: observe, delete: observe });
  observer.start();
}, 60_000);

afterAll(async () => {
  await updater.stop();
  await observer.stop();
  await controller.stop();
  await operator.stop();
  await controllerProxy.stop();
  await tc.stop();
}, 30_000);

describe('machine-config operator + controller on the embedded API server', () => {
  it('renders master, worker and infra; nodes are born on their pool config; ClusterOperator reports 4.99.0', async () => {
    const rendered: Record<string, string> = {};
    for (const p of ['master', 'worker', 'infra']) {
      rendered[p] = await waitFor(
        `pool ${p} rendered`,
        async () => (await pool(p)).spec.configuration?.name || undefined,
      );
      expect(rendered[p]).toMatch(new RegExp(`^rendered-${p}-[0-9a-f]{32}$`));
    }
    const mc = await tc.client.resource(MachineConfigs).get(rendered['worker'] ?? '');
    expect(mc.spec?.osImageURL).toBe('quay.io/openshift/os@sha256:1111');
    expect(mc.metadata.annotations?.['machineconfiguration.openshift.io/release-image-version']).toBe('4.99.0');
    const base = (await tc.client.resource(MachineConfigs).list()).items.map((m) => m.metadata.name ?? '');
    expect(base).toEqual(
      expect.arrayContaining([
        '00-worker',
        '01-worker-container-runtime',
        '01-worker-kubelet',
        '00-master',
        '01-master-kubelet',
      ]),
    );
    // nodes are born with the annotations the server writes at first boot (node-annotations.json)
    const make = async (name: string, labels: Record<string, string>, p: string): Promise<void> => {
      tc.sandbox.setNodeReady(name, true, labels);
      const r = rendered[p] ?? '';
      await tc.client.resource(Nodes).patch(
        name,
        {
          metadata: {
            annotations: {
              [NodeAnnotations.currentConfig]: r,
              [NodeAnnotations.desiredConfig]: r,
              [NodeAnnotations.state]: 'Done',
            },
          },
        },
        { type: 'merge' },
      );
    };
    for (let i = 0; i < 3; i++)
      await make(
        `master-${i}`,
        {
          'node-role.kubernetes.io/master': '',
          'node-role.kubernetes.io/control-plane': '',
          'topology.kubernetes.io/zone': `z${i}`,
        },
        'master',
      );
    for (let i = 0; i < 5; i++)
      await make(
        `worker-${i}`,
        { 'node-role.kubernetes.io/worker': '', 'topology.kubernetes.io/zone': `z${i % 3}` },
        'worker',
      );
    for (let i = 0; i < 2; i++)
      await make(`infra-${i}`, { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/infra': '' }, 'infra');
    updater = new FakeNodeUpdater(tc.client, 150);
    updater.start();
    for (const p of ['master', 'worker', 'infra']) {
      const s = (await waitPoolUpdated(p, undefined, p === 'master' ? 3 : p === 'worker' ? 5 : 2)).status;
      expect(s?.readyMachineCount).toBe(s?.machineCount);
    }
    const co = await waitFor('ClusterOperator at 4.99.0', async () => {
      const c = await tc.client.resource(ClusterOperators).get('machine-config');
      return c.status?.versions?.[0]?.version === '4.99.0' ? c : undefined;
    });
    const st = (t: string): string | undefined => co.status?.conditions?.find((c) => c.type === t)?.status;
    expect(co.status?.versions).toEqual([{ name: 'operator', version: '4.99.0' }]);
    expect(st('Available')).toBe('True');
    expect(st('Degraded')).toBe('False');
    expect(await tc.client.resource(Leases).get('machine-config-controller', NS)).toBeDefined();
    expect(await tc.client.resource(Leases).get('machine-config', NS)).toBeDefined();
  }, 60_000);

  it('rolls a new worker MachineConfig with maxUnavailable 2 (never exceeded), infra follows, masters untouched', async () => {
    const before = {
      worker: (await pool('worker')).spec.configuration?.name,
      infra: (await pool('infra')).spec.configuration?.name,
      master: (await pool('master')).spec.configuration?.name,
    };
    const masterDesired = (await tc.client.resource(Nodes).list()).items
      .filter((n) => poolOfNode(n) === 'master')
      .map((n) => n.metadata.annotations?.[NodeAnnotations.desiredConfig]);
    for (const k of Object.keys(maxUnavailable)) maxUnavailable[k] = 0;
    const from = controllerProxy.requests.length;
    await tc.client.resource(MachineConfigs).create(workerMC('50-worker-chrony', '/etc/chrony.conf') as never);
    const w = await waitPoolUpdated('worker', before.worker);
    const i = await waitPoolUpdated('infra', before.infra);
    // the node controller and the drain controller read nodes from the informer before patching them; a node GET is
    // only the retry after a conflict (409) of a patch made with a stale copy
    const sinceMc = controllerProxy.requests.slice(from);
    const nodePath = /^\/api\/v1\/nodes\/[^/?]+(\?|$)/;
    const nodePatches = sinceMc.filter((r) => r.method === 'PATCH' && nodePath.test(r.path));
    const nodeGets = sinceMc.filter((r) => r.method === 'GET' && nodePath.test(r.path)).length;
    expect(nodePatches.length).toBeGreaterThanOrEqual(7);
    expect(nodeGets).toBeLessThanOrEqual(nodePatches.filter((r) => r.status === 409).length);
    expect(w.status?.updatedMachineCount).toBe(5);
    expect(i.status?.updatedMachineCount).toBe(2);
    expect(maxUnavailable['worker']).toBe(2);
    expect(maxUnavailable['infra']).toBe(1);
    expect(maxUnavailable['master']).toBe(0);
    expect((await pool('master')).spec.configuration?.name).toBe(before.master);
    const after = (await tc.client.resource(Nodes).list()).items
      .filter((n) => poolOfNode(n) === 'master')
      .map((n) => n.metadata.annotations?.[NodeAnnotations.desiredConfig]);
    expect(after).toEqual(masterDesired);
    // the old rendered configs are kept (no garbage collection)
    expect(await tc.client.resource(MachineConfigs).get(before.worker ?? '')).toBeDefined();
  }, 60_000);

  it('a paused pool renders but holds its update until unpaused', async () => {
    await tc.client.resource(Pools).patch('infra', { spec: { paused: true } }, { type: 'merge' });
    const old = (await pool('infra')).spec.configuration?.name;
    await tc.client.resource(MachineConfigs).create(workerMC('60-infra-motd', '/etc/motd', 'infra') as never);
    const p = await waitFor('infra paused with pending config', async () => {
      const x = await pool('infra');
      const u = x.status?.conditions?.find((c) => c.type === 'Updating');
      return x.spec.configuration?.name !== old &&
        u?.message === `Pool is paused; will not update to MachineConfig ${x.spec.configuration?.name ?? ''}`
        ? x
        : undefined;
    });
    expect(cond(p, 'Updating')).toBe('False');
    await new Promise((r) => setTimeout(r, 500));
    const infraNodes = (await tc.client.resource(Nodes).list()).items.filter((n) => poolOfNode(n) === 'infra');
    for (const n of infraNodes) expect(n.metadata.annotations?.[NodeAnnotations.desiredConfig]).toBe(old);
    await tc.client.resource(Pools).patch('infra', { spec: { paused: false } }, { type: 'merge' });
    const done = await waitPoolUpdated('infra', old);
    expect(done.status?.configuration?.name).toBe(p.spec.configuration?.name);
  }, 60_000);

  it('a PodDisruptionBudget allowing 0 disruptions blocks the drain (reported), and releasing it lets the pool finish', async () => {
    await tc.client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } },
    });
    await tc.client.request('POST', '/api/v1/namespaces/app/pods', {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'db-0', labels: { app: 'db' } },
        spec: { nodeName: 'worker-0', containers: [{ name: 'db', image: 'db' }] },
      },
    });
    await tc.client.request('PATCH', '/api/v1/namespaces/app/pods/db-0/status', {
      body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      contentType: 'application/merge-patch+json',
    });
    await tc.client.request('POST', '/apis/policy/v1/namespaces/app/poddisruptionbudgets', {
      body: {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'db-pdb' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
      },
    });
    const old = (await pool('worker')).spec.configuration?.name;
    await tc.client
      .resource(MachineConfigs)
      .create(workerMC('70-worker-limits', '/etc/security/limits.d/x.conf') as never);
    const ev = await waitFor(
      'DrainThresholdExceeded event for worker-0',
      async () => {
        const list = await tc.client.request<{
          items: Array<{ reason?: string; message?: string; involvedObject: { name?: string } }>;
        }>('GET', '/api/v1/events');
        return list.items.find((e) => e.reason === 'DrainThresholdExceeded' && e.involvedObject.name === 'worker-0');
      },
      30_000,
    );
    expect(ev.message).toContain('Drain failed. Drain has been failing for more than');
    expect(ev.message).toContain('error when evicting pods/"db-0" -n "app"');
    const n0 = await tc.client.resource(Nodes).get('worker-0');
    expect(n0.metadata.annotations?.[NodeAnnotations.desiredDrain]).toMatch(/^drain-rendered-worker-/);
    expect(n0.metadata.annotations?.[NodeAnnotations.lastAppliedDrain]).not.toBe(
      n0.metadata.annotations?.[NodeAnnotations.desiredDrain],
    );
    expect(n0.spec?.unschedulable).toBe(true);
    await tc.client.request('DELETE', '/apis/policy/v1/namespaces/app/poddisruptionbudgets/db-pdb');
    await waitPoolUpdated('worker', old);
    await expect(tc.client.request('GET', '/api/v1/namespaces/app/pods/db-0')).rejects.toThrow(/404/);
    expect(maxUnavailable['worker']).toBeLessThanOrEqual(2);
  }, 60_000);

  it('a KubeletConfig becomes 99-worker-generated-kubelet (status Success) and rolls out', async () => {
    const old = (await pool('worker')).spec.configuration?.name;
    await tc.client.request('POST', '/apis/machineconfiguration.openshift.io/v1/kubeletconfigs', {
      body: {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'KubeletConfig',
        metadata: { name: 'max-pods' },
        spec: {
          machineConfigPoolSelector: { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } },
          kubeletConfig: { maxPods: 300 },
        },
      },
    });
    const mc = await waitFor('generated kubelet MC', () =>
      tc.client.resource(MachineConfigs).get('99-worker-generated-kubelet'),
    );
    expect(mc.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'KubeletConfig', name: 'max-pods' });
    // The controller writes the MachineConfig first and the KubeletConfig's status after it (as upstream's
    // syncKubeletConfig does), so the condition is waited for rather than read once.
    const condition = await waitFor('KubeletConfig status condition', async () => {
      const kc = await tc.client.request<{
        status?: { conditions?: Array<{ type: string; status: string; message?: string }> };
      }>('GET', '/apis/machineconfiguration.openshift.io/v1/kubeletconfigs/max-pods');
      return kc.status?.conditions?.at(-1);
    });
    expect(condition).toMatchObject({ type: 'Success', status: 'True', message: 'Success' });
    const w = await waitPoolUpdated('worker', old);
    expect(w.spec.configuration?.source?.map((s) => s.name)).toContain('99-worker-generated-kubelet');
  }, 60_000);

  it('a controller restarted mid-rollout never exceeds maxUnavailable', async () => {
    for (const k of Object.keys(maxUnavailable)) maxUnavailable[k] = 0;
    const old = (await pool('worker')).spec.configuration?.name;
    await tc.client.resource(MachineConfigs).create(workerMC('80-worker-sysctl', '/etc/sysctl.d/80.conf') as never);
    await waitFor('rollout started', async () =>
      (await tc.client.resource(Nodes).list()).items.some(
        (n) =>
          poolOfNode(n) === 'worker' &&
          n.metadata.annotations?.[NodeAnnotations.desiredConfig] !== old &&
          n.metadata.annotations?.[NodeAnnotations.desiredConfig]?.startsWith('rendered-worker-'),
      )
        ? true
        : undefined,
    );
    await controller.stop();
    await new Promise((r) => setTimeout(r, 200));
    controller = await startController();
    await waitPoolUpdated('worker', old);
    expect(maxUnavailable['worker']).toBe(2);
  }, 60_000);

  it('an upgrade: the ClusterOperator reports the new version only once the required master pool runs it', async () => {
    const oldMaster = (await pool('master')).spec.configuration?.name;
    await operator.stop();
    await tc.client
      .resource(ConfigMaps)
      .patch(
        'machine-config-osimageurl',
        { data: { baseOSContainerImage: 'quay.io/openshift/os@sha256:3333', releaseVersion: '4.99.1' } },
        { type: 'merge', namespace: NS },
      );
    const seen: Array<{ version: string | undefined; masterConfig: string | undefined; masterUpdated: boolean }> = [];
    const watcher = setInterval(() => {
      void (async () => {
        const co = await tc.client.resource(ClusterOperators).get('machine-config');
        const m = await pool('master');
        seen.push({
          version: co.status?.versions?.[0]?.version,
          masterConfig: m.status?.configuration?.name,
          masterUpdated: cond(m, 'Updated') === 'True',
        });
      })().catch(() => undefined);
    }, 50);
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: tc.kubeConfig,
      logger: nullLogger,
      releaseVersion: '4.99.1',
      resyncIntervalMs: 200,
      leaderElection: false,
    });
    try {
      const progressing = await waitFor('Progressing towards 4.99.1', async () => {
        const co = await tc.client.resource(ClusterOperators).get('machine-config');
        return co.status?.conditions?.find(
          (c) => c.type === 'Progressing' && c.status === 'True' && c.message === 'Working towards 4.99.1',
        )
          ? co
          : undefined;
      });
      expect(progressing.status?.versions?.[0]?.version).toBe('4.99.0');
      await waitFor(
        'ClusterOperator at 4.99.1',
        async () =>
          (await tc.client.resource(ClusterOperators).get('machine-config')).status?.versions?.[0]?.version === '4.99.1'
            ? true
            : undefined,
        40_000,
      );
    } finally {
      clearInterval(watcher);
    }
    const m = await pool('master');
    expect(m.status?.configuration?.name).not.toBe(oldMaster);
    const rendered = await tc.client.resource(MachineConfigs).get(m.status?.configuration?.name ?? '');
    expect(rendered.spec?.osImageURL).toBe('quay.io/openshift/os@sha256:3333');
    expect(rendered.metadata.annotations?.['machineconfiguration.openshift.io/release-image-version']).toBe('4.99.1');
    // while the masters were still on the old release, the old version was reported
    const firstNew = seen.findIndex((s) => s.version === '4.99.1');
    expect(seen.slice(0, firstNew > 0 ? firstNew : seen.length).some((s) => s.masterConfig === oldMaster)).toBe(true);
    if (firstNew >= 0) expect(seen[firstNew]?.masterConfig).not.toBe(oldMaster);
  }, 60_000);
});
