/**
 * Rollout of N virtual worker nodes (env `MCO_BENCH_NODES`, default 500) with maxUnavailable 10 % and simulated
 * reboots of a fixed length (env `MCO_BENCH_REBOOT_MS`, default 1000) on the embedded API server, with the real
 * operator, the real controller (render, node and drain controllers) and the daemon's virtual nodes. A new worker
 * MachineConfig is applied; the wall time until the pool is Updated is compared with the ideal bound
 * ceil(N / maxUnavailable) × one node's update time, where one node's update time is the mean, measured in the same
 * run, from the node's desiredConfig being set to the node being Done on that config and Ready again (the mean over
 * the rollout, under its concurrency), and also alone: a custom pool `solo` of one node first rolls the same kind of
 * change by itself, and the bound with that time is printed too. Also prints
 * the maximum number of unavailable workers observed from the API and the API requests per node update, counted by
 * a small counting HTTP proxy in front of the sandbox (one for the controller + operator, one for the daemons).
 * Run: `MCO_BENCH_NODES=100 pnpm --filter @keelson/machine-config-operator exec vitest bench --run bench/rollout.bench.ts`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import {
  ConfigMaps,
  Informer,
  KubeClient,
  KubeConfig,
  MachineConfigPools,
  MachineConfigs,
  nullLogger,
} from '@keelson/kube';
import { customPool, defaultPool, isNodeUnavailable, NodeAnnotations } from '@keelson/machineconfig';
import {
  Nodes,
  startMachineConfigController,
  startMachineConfigOperator,
  startVirtualNodes,
  type MachineConfigPool,
  type Node,
  type Running,
  type VirtualNodes,
} from '../src/index.js';

const N = Number(process.env['MCO_BENCH_NODES'] ?? '500');
const REBOOT_MS = Number(process.env['MCO_BENCH_REBOOT_MS'] ?? '1000');
const MAX_UNAVAILABLE = Math.max(1, Math.floor(N / 10)); // 10 % of the pool, rounded down as upstream (at least 1)
const NS = 'openshift-machine-config-operator';
const SOLO = 'solo-0';

/** A counting HTTP proxy in front of the sandbox: every request (watches included) is counted once. */
interface CountingProxy {
  readonly url: string;
  count: number;
  close(): Promise<void>;
}
async function countingProxy(target: string): Promise<CountingProxy> {
  const t = new URL(target);
  const proxy: CountingProxy = { url: '', count: 0, close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    proxy.count++;
    const up = request(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
    res.on('close', () => up.destroy());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  Object.assign(proxy, {
    url: `http://127.0.0.1:${String(port)}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => {
          r();
        });
      }),
  });
  return proxy;
}

function kubeConfigFor(sandbox: Sandbox, server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(sandbox.kubeconfigYaml().replace(sandbox.url, server));
  return kc;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${String(timeoutMs)} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let sandbox: Sandbox;
let client: KubeClient;
let ctlProxy: CountingProxy;
let nodeProxy: CountingProxy;
let nodeClient: KubeClient;
let operator: Running;
let controller: Running;
let vn: VirtualNodes;
let observer: Informer<Node>;
let dir: string;

// per-node update timing and unavailability, observed from the API
let target = '';
let maxUnavailableSeen = 0;
const desiredAt = new Map<string, number>();
const doneAt = new Map<string, number>();
function observe(): void {
  let unavailable = 0;
  const now = performance.now();
  for (const n of observer.store.list()) {
    if (n.metadata.name !== SOLO && isNodeUnavailable(n)) unavailable++;
    if (target === '') continue;
    const a = n.metadata.annotations ?? {};
    const name = n.metadata.name ?? '';
    if (a[NodeAnnotations.desiredConfig] === target && !desiredAt.has(name)) desiredAt.set(name, now);
    if (
      a[NodeAnnotations.currentConfig] === target &&
      !isNodeUnavailable(n) &&
      desiredAt.has(name) &&
      !doneAt.has(name)
    )
      doneAt.set(name, now);
  }
  maxUnavailableSeen = Math.max(maxUnavailableSeen, unavailable);
}

async function poolUpdated(
  not: string | undefined,
  timeoutMs: number,
  pool = 'worker',
  count = N,
): Promise<MachineConfigPool> {
  return waitFor(
    `${pool} pool Updated`,
    async () => {
      const p = await client.resource(MachineConfigPools).get(pool);
      const t = p.spec.configuration?.name ?? '';
      const ok =
        t !== '' &&
        t !== not &&
        p.status?.machineCount === count &&
        p.status.updatedMachineCount === count &&
        p.status.configuration?.name === t &&
        p.status.conditions?.some((c) => c.type === 'Updated' && c.status === 'True') === true;
      return ok ? p : undefined;
    },
    timeoutMs,
  );
}

describe(`rollout of ${String(N)} virtual workers, maxUnavailable 10 %, reboot ${String(REBOOT_MS)} ms`, () => {
  beforeAll(async () => {
    sandbox = await startSandbox({ openshiftCrds: true, historySize: 200_000 });
    client = new KubeClient(kubeConfigFor(sandbox, sandbox.url));
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    });
    await client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: NS },
      data: {
        baseOSContainerImage: `quay.io/test/rhcos@sha256:${'1'.repeat(64)}`,
        baseOSExtensionsContainerImage: '',
        releaseVersion: '4.99.0',
      },
    });
    const w = defaultPool('worker');
    await client.resource(MachineConfigPools).create({
      ...w,
      metadata: { ...w.metadata, labels: w.metadata.labels ?? {} },
      spec: { ...w.spec, maxUnavailable: '10%' },
    } as never);
    const solo = customPool('solo');
    await client
      .resource(MachineConfigPools)
      .create({ ...solo, metadata: { ...solo.metadata, labels: solo.metadata.labels ?? {} } } as never);
    ctlProxy = await countingProxy(sandbox.url);
    nodeProxy = await countingProxy(sandbox.url);
    const ctlConfig = kubeConfigFor(sandbox, ctlProxy.url);
    operator = await startMachineConfigOperator({
      kubeconfig: ctlConfig,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 1000,
      leaderElection: false,
      health: false,
    });
    controller = await startMachineConfigController({
      kubeconfig: ctlConfig,
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
    observer = new Informer<Node>(client, Nodes, { logger: nullLogger });
    observer.addHandlers({ add: observe, update: observe, delete: observe });
    observer.start();
    await waitFor(
      'worker pool rendered',
      async () => (await client.resource(MachineConfigPools).get('worker')).spec.configuration?.name ?? undefined,
      120_000,
    );
    dir = mkdtempSync(join(tmpdir(), 'mco-rollout-bench-'));
    nodeClient = new KubeClient(kubeConfigFor(sandbox, nodeProxy.url));
    vn = await startVirtualNodes({
      client: nodeClient,
      rootDir: dir,
      rebootDurationMs: REBOOT_MS,
      syncBackoff: { initialMs: 50, maxMs: 400 },
      concurrency: 16,
      nodes: [
        ...Array.from({ length: N }, (_, i) => ({
          name: `worker-${String(i)}`,
          role: 'worker',
          zone: `z${String(i % 3)}`,
        })),
        { name: SOLO, role: 'worker', pool: 'solo', labels: { 'node-role.kubernetes.io/solo': '' } },
      ],
    });
    await poolUpdated(undefined, 600_000);
    await poolUpdated(undefined, 60_000, 'solo', 1);
  }, 900_000);

  afterAll(async () => {
    await vn.stop();
    await observer.stop();
    await controller.stop();
    await operator.stop();
    await nodeClient.close();
    await client.close();
    await ctlProxy.close();
    await nodeProxy.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  test('apply a worker MachineConfig, wait for the pool to be Updated', async () => {
    // one node alone: a MachineConfig for the one-node custom pool `solo`
    const soloBefore = (await client.resource(MachineConfigPools).get('solo')).spec.configuration?.name;
    const soloStart = performance.now();
    await client.resource(MachineConfigs).create({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '50-solo-bench', labels: { 'machineconfiguration.openshift.io/role': 'solo' } },
      spec: {
        config: {
          ignition: { version: '3.2.0' },
          storage: { files: [{ path: '/etc/solo.conf', mode: 420, contents: { source: 'data:,solo%0A' } }] },
        },
      },
    });
    target = await waitFor(
      'new solo rendered config',
      async () => {
        const t = (await client.resource(MachineConfigPools).get('solo')).spec.configuration?.name;
        return t !== undefined && t !== soloBefore ? t : undefined;
      },
      60_000,
    );
    observe();
    await poolUpdated(soloBefore, 120_000, 'solo', 1);
    const soloWall = performance.now() - soloStart;
    const soloNode = (doneAt.get(SOLO) ?? 0) - (desiredAt.get(SOLO) ?? 0);
    target = '';
    desiredAt.clear();
    doneAt.clear();

    const before = (await client.resource(MachineConfigPools).get('worker')).spec.configuration?.name;
    maxUnavailableSeen = 0;
    ctlProxy.count = 0;
    nodeProxy.count = 0;
    const start = performance.now();
    await client.resource(MachineConfigs).create({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '50-worker-bench', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      // a file change: drain + reboot on every node
      spec: {
        config: {
          ignition: { version: '3.2.0' },
          storage: { files: [{ path: '/etc/bench.conf', mode: 420, contents: { source: 'data:,bench%0A' } }] },
        },
      },
    });
    target = await waitFor(
      'new rendered config',
      async () => {
        const t = (await client.resource(MachineConfigPools).get('worker')).spec.configuration?.name;
        return t !== undefined && t !== before ? t : undefined;
      },
      60_000,
    );
    observe();
    await poolUpdated(before, 1_800_000);
    const wall = performance.now() - start;
    const perNode = [...doneAt].filter(([n]) => n !== SOLO).map(([n, t]) => t - (desiredAt.get(n) ?? t));
    const mean = perNode.reduce((a, b) => a + b, 0) / Math.max(1, perNode.length);
    const ideal = Math.ceil(N / MAX_UNAVAILABLE) * mean;
    const requests = ctlProxy.count + nodeProxy.count;
    const lines = [
      `nodes ${String(N)}, maxUnavailable ${String(MAX_UNAVAILABLE)}, reboot ${String(REBOOT_MS)} ms, node updates timed ${String(perNode.length)}`,
      `wall time to Updated: ${(wall / 1000).toFixed(1)} s`,
      `one node's update (desiredConfig → Done + Ready), mean ${(mean / 1000).toFixed(2)} s, min ${(Math.min(...perNode) / 1000).toFixed(2)} s, max ${(Math.max(...perNode) / 1000).toFixed(2)} s`,
      `ideal bound ceil(${String(N)}/${String(MAX_UNAVAILABLE)}) × mean = ${(ideal / 1000).toFixed(1)} s; ratio ${(wall / ideal).toFixed(2)}× (goal ≤ 1.25×)`,
      `one node alone (pool solo): desiredConfig → Done + Ready ${(soloNode / 1000).toFixed(2)} s (MachineConfig → pool Updated ${(soloWall / 1000).toFixed(2)} s); bound ceil(N/maxUnavailable) × that = ${((Math.ceil(N / MAX_UNAVAILABLE) * soloNode) / 1000).toFixed(1)} s; ratio ${(wall / (Math.ceil(N / MAX_UNAVAILABLE) * soloNode)).toFixed(2)}×`,
      `max unavailable observed: ${String(maxUnavailableSeen)} (limit ${String(MAX_UNAVAILABLE)})`,
      `API requests during the rollout: ${String(requests)} (controller+operator ${String(ctlProxy.count)}, daemons ${String(nodeProxy.count)}); per node update ${(requests / N).toFixed(1)} (daemons ${(nodeProxy.count / N).toFixed(1)})`,
    ];
    console.log(lines.join('\n'));
    if (maxUnavailableSeen > MAX_UNAVAILABLE)
      throw new Error(`maxUnavailable exceeded: ${String(maxUnavailableSeen)} > ${String(MAX_UNAVAILABLE)}`);
  }, 1_800_000);
});
