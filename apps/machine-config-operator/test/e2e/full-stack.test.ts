/**
 * The whole MCO on the embedded API server with the daemon half's virtual nodes (no test doubles): operator,
 * controller, machine-config-server (plain HTTP listener) and 3 masters + 5 workers + a custom infra pool of 2
 * virtual nodes that boot from /config/<pool>. A worker MachineConfig rolls with maxUnavailable 2 (observed from the
 * API), infra follows, masters stay untouched.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMaps, Informer, MachineConfigPools, MachineConfigs, nullLogger } from '@keelson/kube';
import { customPool, defaultPool, isNodeUnavailable, NodeAnnotations } from '@keelson/machineconfig';
import {
  Nodes,
  startMachineConfigController,
  startMachineConfigOperator,
  startMachineConfigServer,
  startVirtualNodes,
  type MachineConfigPool,
  type MachineConfigServer,
  type Node,
  type Running,
  type VirtualNodes,
} from '../../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from '../helpers/cluster.js';

const NS = 'openshift-machine-config-operator';
const OS1 = `quay.io/test/rhcos@sha256:${'1'.repeat(64)}`;
let tc: TestCluster;
let dir: string;
let operator: Running;
let controller: Running;
let mcs: MachineConfigServer;
let vn: VirtualNodes;
let observer: Informer<Node>;
const maxUnavailable: Record<string, number> = {};

const poolOf = (n: Node): string => {
  const l = n.metadata.labels ?? {};
  return 'node-role.kubernetes.io/master' in l ? 'master' : 'node-role.kubernetes.io/infra' in l ? 'infra' : 'worker';
};
function observe(): void {
  const c: Record<string, number> = {};
  for (const n of observer.store.list()) if (isNodeUnavailable(n)) c[poolOf(n)] = (c[poolOf(n)] ?? 0) + 1;
  for (const [p, v] of Object.entries(c)) maxUnavailable[p] = Math.max(maxUnavailable[p] ?? 0, v);
}
const pool = (name: string): Promise<MachineConfigPool> => tc.client.resource(MachineConfigPools).get(name);
async function waitUpdated(name: string, count: number, not?: string): Promise<MachineConfigPool> {
  return waitFor(
    `pool ${name} updated`,
    async () => {
      const p = await pool(name);
      const t = p.spec.configuration?.name ?? '';
      const ok =
        t !== '' &&
        t !== not &&
        p.status?.machineCount === count &&
        p.status.configuration?.name === t &&
        p.status.conditions?.some((c) => c.type === 'Updated' && c.status === 'True');
      return ok ? p : undefined;
    },
    90_000,
    100,
  );
}

beforeAll(async () => {
  tc = await startTestCluster();
  dir = mkdtempSync(join(tmpdir(), 'mco-full-'));
  await tc.client.resource(ConfigMaps).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: NS },
    data: { baseOSContainerImage: OS1, baseOSExtensionsContainerImage: '', releaseVersion: '4.99.0' },
  });
  const w = defaultPool('worker');
  await tc.client.resource(MachineConfigPools).create({
    ...w,
    metadata: { ...w.metadata, labels: w.metadata.labels ?? {} },
    spec: { ...w.spec, maxUnavailable: 2 },
  } as never);
  const i = customPool('infra');
  await tc.client
    .resource(MachineConfigPools)
    .create({ ...i, metadata: { ...i.metadata, labels: i.metadata.labels ?? {} } } as never);
  operator = await startMachineConfigOperator({
    operands: false,
    kubeconfig: tc.kubeConfig,
    logger: nullLogger,
    releaseVersion: '4.99.0',
    resyncIntervalMs: 300,
    leaderElection: false,
    health: false,
  });
  controller = await startMachineConfigController({
    kubeconfig: tc.kubeConfig,
    logger: nullLogger,
    leaderElection: false,
    health: false,
    durations: {
      renderDelayMs: 100,
      nodeSyncDelayMs: 50,
      drainDelayMs: 20,
      evictionRetryMs: 50,
      drainAttemptTimeoutMs: 2000,
      podDeletePollMs: 20,
    },
    cordonBackoff: { initialMs: 20, steps: 5 },
  });
  for (const p of ['master', 'worker', 'infra']) await waitUpdated(p, 0);
  mcs = await startMachineConfigServer({
    client: tc.client,
    apiserverURL: 'https://api-int.example.com:6443',
    securePort: null,
    insecurePort: 0,
    host: '127.0.0.1',
    noKubeconfig: true,
  });
  observer = new Informer<Node>(tc.client, Nodes, { logger: nullLogger });
  observer.addHandlers({ add: observe, update: observe, delete: observe });
  observer.start();
  vn = await startVirtualNodes({
    client: tc.client,
    serverUrl: mcs.insecureUrl ?? '',
    rootDir: dir,
    rebootDurationMs: 100,
    syncBackoff: { initialMs: 50, maxMs: 400 },
    nodes: [
      ...[0, 1, 2].map((n) => ({ name: `master-${String(n)}`, role: 'master', zone: `z${String(n)}` })),
      ...[0, 1, 2, 3, 4].map((n) => ({ name: `worker-${String(n)}`, role: 'worker', zone: `z${String(n % 3)}` })),
      ...[0, 1].map((n) => ({
        name: `infra-${String(n)}`,
        role: 'worker',
        pool: 'infra',
        labels: { 'node-role.kubernetes.io/infra': '' },
      })),
    ],
  });
}, 120_000);

afterAll(async () => {
  await vn.stop();
  await observer.stop();
  await mcs.stop();
  await controller.stop();
  await operator.stop();
  await tc.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('full stack with virtual nodes', () => {
  it('machines boot from the server into their pools', async () => {
    for (const [p, n] of [
      ['master', 3],
      ['worker', 5],
      ['infra', 2],
    ] as const)
      await waitUpdated(p, n);
    const kubelet = readFileSync(join(dir, 'worker-0', 'etc/kubernetes/kubelet.conf'), 'utf8');
    expect(kubelet).toContain('- 172.30.0.10');
  }, 120_000);

  it('a worker MachineConfig rolls with maxUnavailable 2 on real daemons; infra follows; masters untouched', async () => {
    const before = {
      worker: (await pool('worker')).spec.configuration?.name,
      infra: (await pool('infra')).spec.configuration?.name,
      master: (await pool('master')).spec.configuration?.name,
    };
    for (const k of Object.keys(maxUnavailable)) maxUnavailable[k] = 0;
    await tc.client.resource(MachineConfigs).create({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '50-worker-chrony', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: {
        config: {
          ignition: { version: '3.2.0' },
          storage: {
            files: [
              {
                path: '/etc/chrony.conf',
                mode: 420,
                contents: { source: 'data:,server%20ntp.example.com%20iburst%0A' },
              },
            ],
          },
        },
      },
    });
    await waitUpdated('worker', 5, before.worker);
    await waitUpdated('infra', 2, before.infra);
    expect(maxUnavailable['worker']).toBe(2);
    expect(maxUnavailable['infra']).toBe(1);
    expect(maxUnavailable['master'] ?? 0).toBe(0);
    expect((await pool('master')).spec.configuration?.name).toBe(before.master);
    for (const n of ['worker-0', 'worker-4', 'infra-1'])
      expect(readFileSync(join(dir, n, 'etc/chrony.conf'), 'utf8')).toBe('server ntp.example.com iburst\n');
    const masters = (await tc.client.resource(Nodes).list()).items.filter((n) => poolOf(n) === 'master');
    for (const m of masters) expect(m.metadata.annotations?.[NodeAnnotations.currentConfig]).toBe(before.master);
  }, 120_000);
});
