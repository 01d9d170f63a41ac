/**
 * Benchmarks against the embedded API server (real HTTP on loopback):
 * - Initializing sync of the ~900-manifest synthetic payload (tooling/payload-gen, seed 1) with every ClusterOperator
 *   reported at once by the cluster-operator simulator of @keelson/kube-sandbox, against the API bound of the same run
 *   (bench/api-bound.ts: the run's requests per task-graph node x the cost per request class, probed before and after
 *   the sync);
 * - a Reconciling pass over the unchanged cluster: API writes (goal 0) and time;
 * - RSS of the process with the payload loaded.
 * The operator runs on upstream's clock (time scale 1: Initializing task backoff 1 s, 2 s, 4 s, status writes at most
 * every 15 s apart from edges) except the Lease and the resync interval, so nothing the time scale compresses competes
 * with the requests. Figures are printed (see README); there are no timing asserts.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'vitest';
import { createLogger, nullLogger } from '@keelson/kube';
import { defineResourceType, startOperatorSimulator, type OperandVersion } from '@keelson/kube-sandbox';
import { createTask, planSync } from '@keelson/manifest-graph';
import { filterManifests, readPayloadDirectory, loadPayloadFromFiles } from '@keelson/release-payload';
import { generatePayload } from '@keelson/payload-gen';
import type { CvoEvent } from '../src/index.js';
import { ResourceApplier, type RestMapping } from '@keelson/cluster-version';
import type { KubeClient } from '@keelson/kube';
import type { Manifest } from '@keelson/release-payload';
import { apiBound, meanCosts, probe, RequestRecorder, runQueueWaitMs } from './api-bound.js';
import { startCluster, waitFor } from '../test/helpers.js';

const IMAGE = 'quay.io/keelson/release@sha256:' + 'e'.repeat(64);

/**
 * The operator as shipped: `dist/` (build it first), loaded by Node itself (vitest.config.ts externalizes it; through
 * vitest's module runner every access to another module's export is a counting getter: ~5 % of the sync's CPU). The
 * path is not a literal so that type-checking does not need a build.
 */
async function loadOperator(): Promise<typeof import('../src/index.js')> {
  const dist = ['..', 'dist', 'index.js'].join('/');
  return (await import(/* @vite-ignore */ dist)) as typeof import('../src/index.js');
}

function tasksOf(included: readonly Manifest[]): ReturnType<typeof createTask<Manifest>>[] {
  return included.map((m, i) =>
    createTask({
      filename: m.filename,
      group: m.gvk.group,
      version: m.gvk.version,
      kind: m.gvk.kind,
      namespace: m.namespace,
      name: m.name,
      index: i + 1,
      total: included.length,
      data: m,
    }),
  );
}

/** REST mappings of the manifests whose kinds the server serves now. */
async function mappingsOf(client: KubeClient, included: readonly Manifest[]): Promise<Map<Manifest, RestMapping>> {
  const mapper = new ResourceApplier(client, nullLogger, { liveObjectCache: false }).mapper;
  const out = new Map<Manifest, RestMapping>();
  for (const m of included) {
    try {
      out.set(m, await mapper.resolve(m.gvk.group, m.gvk.version, m.gvk.kind));
    } catch {
      // kind not served (yet)
    }
  }
  return out;
}

/**
 * The probe's sample: 8 CRDs and 40 other manifests spread over the payload, of kinds served before the sync
 * (Namespaces, ClusterOperators and manifests to delete left out: their deletes or gates are not the sync's mix).
 */
async function probeSample(
  client: KubeClient,
  included: readonly Manifest[],
): Promise<{ m: Manifest; mapping: RestMapping }[]> {
  const served = await mappingsOf(client, included);
  const usable = [...served].filter(
    ([m]) =>
      !['Namespace', 'ClusterOperator'].includes(m.gvk.kind) &&
      (m.object['metadata'] as { annotations?: Record<string, string> } | undefined)?.annotations?.[
        'release.openshift.io/delete'
      ] === undefined,
  );
  const spread = <T>(xs: readonly T[], n: number): T[] =>
    xs.filter((_, i) => i % Math.max(1, Math.floor(xs.length / n)) === 0).slice(0, n);
  return [
    ...spread(
      usable.filter(([m]) => m.gvk.kind === 'CustomResourceDefinition'),
      8,
    ),
    ...spread(
      usable.filter(([m]) => m.gvk.kind !== 'CustomResourceDefinition'),
      40,
    ),
  ].map(([m, mapping]) => ({ m, mapping }));
}

/** Creates every payload ClusterOperator and waits until the simulator reported each Available. */
async function reportOperatorsFirst(
  client: KubeClient,
  included: readonly Manifest[],
  simulator: { reports: readonly { name: string }[] },
): Promise<void> {
  const names = new Set<string>();
  for (const m of included) {
    if (m.gvk.kind !== 'ClusterOperator' || names.has(m.name)) continue;
    names.add(m.name);
    await client.request('POST', '/apis/config.openshift.io/v1/clusteroperators', {
      body: { apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: m.object['metadata'], spec: {} },
    });
  }
  await waitFor(
    () => Promise.resolve([...names].every((n) => simulator.reports.some((r) => r.name === n)) || undefined),
    60_000,
    'operators reported',
  );
}

async function run(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'cvo-bench-'));
  const payloadDir = join(work, 'payload');
  await generatePayload({ out: payloadDir, seed: 1 });
  const payload = loadPayloadFromFiles(await readPayloadDirectory(payloadDir), payloadDir, { releaseImage: IMAGE });
  const included = filterManifests(payload, { profile: 'self-managed-high-availability', featureSet: '' }).included;
  const versionsFor: Record<string, OperandVersion[]> = {};
  for (const m of included) {
    if (m.gvk.kind !== 'ClusterOperator') continue;
    const st = m.object['status'] as { versions?: OperandVersion[] } | undefined;
    versionsFor[m.name] = st?.versions ?? [];
  }
  const { sandbox, client, kubeconfig } = await startCluster();
  // kinds a real cluster serves from operators' CRDs / aggregated APIs
  for (const t of [
    {
      group: 'monitoring.coreos.com',
      version: 'v1',
      plural: 'servicemonitors',
      kind: 'ServiceMonitor',
      namespaced: true,
    },
    {
      group: 'monitoring.coreos.com',
      version: 'v1',
      plural: 'prometheusrules',
      kind: 'PrometheusRule',
      namespaced: true,
    },
    { group: 'image.openshift.io', version: 'v1', plural: 'imagestreams', kind: 'ImageStream', namespaced: true },
  ])
    sandbox.cluster.addType(defineResourceType(t));
  // payload-gen places RBAC in openshift-monitoring (0000_50_cluster-monitoring-operator_01_prometheusrbac.yaml) before
  // a Job barrier that precedes the namespace's own manifest, so no CVO (upstream's neither) can install it from
  // scratch, and uses namespaces (openshift-config-managed) that other operators create in a real cluster: create the
  // namespaces the payload uses first, as an installer's bootstrap would.
  const namespaces = new Set(
    included.map((m) => (m.gvk.kind === 'Namespace' ? m.name : m.namespace)).filter((n) => n !== ''),
  );
  for (const name of namespaces) {
    await client
      .request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })
      .catch(() => undefined);
  }
  // manifests declared more than once with different content (they overwrite each other on every pass)
  const byId = new Map<string, Set<string>>();
  for (const m of included) byId.set(m.id, (byId.get(m.id) ?? new Set()).add(Buffer.from(m.raw).toString('base64')));
  const conflictingDuplicates = [...byId.values()].filter((v) => v.size > 1).length;

  // the probe's sample: manifests of kinds served before the sync, CRDs and the rest, spread over the payload
  const sample = await probeSample(client, included);
  const before = await probe(client, sample, 1);

  // the cluster-operator simulator of @keelson/kube-sandbox (informer-based), reporting every operator at once
  const simulator = await startOperatorSimulator({
    kubeconfig: await readFile(kubeconfig, 'utf8'),
    delayMs: 0,
    waitForDeployments: false,
    exclude: [],
    versions: versionsFor,
  });
  await simulator.synced;
  // the operators report before the operator reaches their gates (as fast as any operator could relative to the sync):
  // a ClusterOperator not Available at its gate fails the node at once (upstream `Task.Run` fails fast on UpdateError)
  // and the whole Initializing attempt with it, so a simulator racing the gate measures its own latency, not the
  // sync's. CVO_BENCH_RACE_OPERATORS=1 leaves them to the race (precreated by the operator, reported on sight).
  if (!process.env['CVO_BENCH_RACE_OPERATORS']) await reportOperatorsFirst(client, included, simulator);
  const events: CvoEvent[] = [];
  const at: number[] = [];
  const rssBefore = process.memoryUsage().rss;
  // CVO_BENCH_PROF=<file>: CPU profile of this process (sandbox + operator) during the Initializing sync
  const profFile = process.env['CVO_BENCH_PROF'];
  const session = profFile !== undefined ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  // CVO_BENCH_TRACE=1: API requests served by the in-process sandbox, per user agent, verb and resource
  const requests = new Map<string, number>();
  if (process.env['CVO_BENCH_TRACE']) {
    subscribe('http.server.request.start', (m) => {
      const req = (m as { request: IncomingMessage }).request;
      const path = (req.url ?? '').split('?')[0] ?? '';
      const parts = path.split('/');
      const resource = path.startsWith('/api/v1')
        ? parts[4] === 'namespaces' || parts[3] !== 'namespaces'
          ? parts[3]
          : parts[5]
        : parts[3] === 'namespaces'
          ? undefined
          : parts[5] === 'namespaces'
            ? parts[7]
            : parts[5];
      const key = `${(req.headers['user-agent'] ?? '').split('/')[0] ?? ''} ${req.method ?? ''} ${resource ?? path}${path.endsWith('/status') ? '/status' : ''}${(req.url ?? '').includes('watch=') ? ' (watch)' : ''}`;
      requests.set(key, (requests.get(key) ?? 0) + 1);
    });
  }
  // CVO_BENCH_STATUS_INTERVAL_MS: the throttle of progress status writes (default: upstream's 15 s x the time scale)
  const statusEnv = process.env['CVO_BENCH_STATUS_INTERVAL_MS'];
  const statusInterval = statusEnv !== undefined ? { statusIntervalMs: Number(statusEnv) } : {};
  const { startClusterVersionOperator, currentGraphNode } = await loadOperator();
  const recorder = new RequestRecorder('ClusterVersionOperator/', currentGraphNode);
  recorder.active = true;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let cpuAtSync: NodeJS.CpuUsage | undefined;
  let waitAtSync: number | undefined;
  const cvo = await startClusterVersionOperator({
    kubeconfig,
    payloadDir,
    releaseImage: IMAGE,
    payloadCache: join(work, 'cache'),
    listen: '127.0.0.1:0',
    updateService: 'http://127.0.0.1:9/graph',
    timeScale: Number(process.env['CVO_BENCH_TIME_SCALE'] ?? 1),
    // CVO_BENCH_LIVE_CACHE=0: GET each manifest instead of reading the live-object watches (upstream's resourceapply)
    liveObjectCache: process.env['CVO_BENCH_LIVE_CACHE'] !== '0',
    intervals: {
      leaseDurationMs: 5000,
      renewDeadlineMs: 4000,
      retryPeriodMs: 1000,
      minimumReconcileIntervalMs: 500,
      ...statusInterval,
    },
    logger: process.env['CVO_BENCH_LOG'] ? createLogger({ level: 'info' }) : nullLogger,
    onEvent: (e) => {
      if (e.type === 'syncStarted' && cpuAtSync === undefined) {
        cpuAtSync = process.cpuUsage();
        waitAtSync = runQueueWaitMs();
      }
      events.push(e);
      at.push(performance.now());
    },
  });
  const init = await waitFor(
    () =>
      Promise.resolve(
        events.find((e) => e.type === 'syncFinished' && e.mode === 'initializing' && e.error === undefined),
      ),
    120_000,
    'initializing',
  );
  recorder.active = false;
  const waitAtEnd = runQueueWaitMs();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const syncCpu = process.cpuUsage(cpuAtSync ?? cpu0);
  if (session && profFile !== undefined) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(profFile, JSON.stringify(profile));
    session.disconnect();
  }
  // CVO_BENCH_TRACE=1: timeline of the Initializing sync (run levels, waits, manifests applied per 500 ms)
  if (process.env['CVO_BENCH_TRACE']) {
    const initIdx = events.indexOf(init);
    const perSlot = new Map<number, number>();
    for (let i = 0; i <= initIdx; i++) {
      const e = events[i];
      const ms = Math.round((at[i] ?? 0) - t0);
      if (e?.type === 'manifestApplied')
        perSlot.set(Math.floor(ms / 500), (perSlot.get(Math.floor(ms / 500)) ?? 0) + 1);
      else if (e !== undefined) console.log(ms, JSON.stringify(e));
    }
    console.log('manifests applied per 500 ms:', JSON.stringify([...perSlot.entries()]));
    console.log(
      'requests until the end of the Initializing sync:',
      JSON.stringify([...requests.entries()].sort((a, b) => b[1] - a[1])),
    );
  }
  const started = events.find((e) => e.type === 'syncStarted' && e.mode === 'initializing');
  // the sync alone: from the first Initializing pass's start (payload loaded, Lease held) to the successful end
  const syncMs = wall - ((at[started ? events.indexOf(started) : 0] ?? t0) - t0);
  const idleSyncMs =
    waitAtSync !== undefined && waitAtEnd !== undefined ? syncMs - (waitAtEnd - waitAtSync) : undefined;
  const failedAttempts = events.filter(
    (e) => e.type === 'syncFinished' && e.mode === 'initializing' && e.error !== undefined,
  ).length;
  const rec = await waitFor(
    () =>
      Promise.resolve(
        events.find((e, i) => e.type === 'syncFinished' && e.mode === 'reconciling' && i > events.indexOf(init)),
      ),
    300_000,
    'reconciling pass',
  );
  const recIdx = events.indexOf(rec);
  let recStartIdx = recIdx;
  while (recStartIdx > 0 && events[recStartIdx]?.type !== 'syncStarted') recStartIdx--;
  const reconcileMs = (at[recIdx] ?? 0) - (at[recStartIdx] ?? 0);
  const rss = process.memoryUsage().rss;
  // the second probe with the operator and the simulator stopped, as the first ran before they started: both measure
  // the requests alone (the operator's own watches of what it writes count against the sync, not the bound)
  await simulator.stop();
  await cvo.stop();
  const after = await probe(client, sample, 2);
  const costs = meanCosts(before, after);
  const plan = planSync(tasksOf(included), { mode: 'initializing' });
  const bound = apiBound(recorder.seen, plan.graph.nodes, await mappingsOf(client, included), costs);
  recorder.close();
  console.log(
    JSON.stringify({
      manifests: included.length,
      graphNodes: plan.graph.nodes.length,
      requestCostMs: Object.fromEntries(
        [...costs].map(([c, v]) => [
          c,
          { ms: +v.ms.toFixed(2), cpuMs: +v.cpuMs.toFixed(2), msBefore: +(before.get(c)?.ms ?? 0).toFixed(2) },
        ]),
      ),
      operatorRequests: bound.operatorRequests,
      nodeRequests: bound.nodeRequests,
      otherRequests: bound.otherRequests,
      nodeRequestsByClass: bound.byClass,
      otherRequestsByPath: bound.other,
      criticalPathRequests: bound.criticalPathRequests,
      criticalPathBoundMs: +bound.criticalPathMs.toFixed(1),
      criticalPathIdleBoundMs: +bound.criticalPathReadyMs.toFixed(1),
      serialRequestsMs: +bound.serialMs.toFixed(1),
      serialRequestsCpuMs: +bound.serialCpuMs.toFixed(1),
      apiBoundMs: +bound.boundMs.toFixed(1),
      initializingWallMs: Math.round(wall),
      initializingSyncMs: Math.round(syncMs),
      startupMs: Math.round(wall - syncMs),
      // CPU time of this process (sandbox + simulator + operator) from the start to the end of the Initializing sync
      initializingCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      initializingSyncCpuMs: Math.round((syncCpu.user + syncCpu.system) / 1000),
      ratioToApiBound: +(syncMs / bound.boundMs).toFixed(2),
      // the sync less the time its thread waited for a CPU other processes held: the sync on an idle machine
      syncRunQueueWaitMs: idleSyncMs === undefined ? undefined : Math.round(syncMs - idleSyncMs),
      idleSyncMs: idleSyncMs === undefined ? undefined : Math.round(idleSyncMs),
      idleRatioToApiBound:
        idleSyncMs === undefined
          ? undefined
          : +(idleSyncMs / Math.max(bound.criticalPathReadyMs, bound.serialCpuMs)).toFixed(2),
      // CPU of the sync against the CPU its requests cost at the least (robust to the machine's load)
      cpuRatioToRequests: +((syncCpu.user + syncCpu.system) / 1000 / bound.serialCpuMs).toFixed(2),
      operatorWaits: events.filter((e) => e.type === 'operatorWaiting').length,
      initializingFailedAttempts: failedAttempts,
      initializingStarted: started !== undefined,
      conflictingDuplicateManifests: conflictingDuplicates,
      reconcilingWrites: rec.type === 'syncFinished' ? rec.writes : -1,
      reconcilingPassMs: Math.round(reconcileMs),
      reconcilingError: rec.type === 'syncFinished' ? rec.error : undefined,
      rssMiB: Math.round(rss / 1048576),
      rssDeltaMiB: Math.round((rss - rssBefore) / 1048576),
    }),
  );
  await sandbox.stop();
  await rm(work, { recursive: true, force: true });
}

// One measured run (each needs a fresh cluster); the figures are printed as one JSON line.
test('Initializing sync of the synthetic payload + one Reconciling pass (sandbox)', run, 600_000);
