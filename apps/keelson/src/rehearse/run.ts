/**
 * `rehearse`: a whole OpenShift update on one machine. Releases A and B (generated, published as signed OCI images, or
 * the user's), a local update service, the embedded API server behind a counting proxy, the real Keelson components
 * (through {@link loadComponents}), install A, `upgrade --to B`, and a timeline of everything the observer saw.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildReleaseImage, publishRehearsalReleases, startOciRegistry, type OciRegistry, type PublishedReleases } from '@keelson/payload-gen';
import { isAlreadyExists, KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { filterManifests, openPayload, writePayloadFiles, type ReleasePayload } from '@keelson/release-payload';
import { computeRunLevels } from '../plan/compute-plan.js';
import { startApiProxy, type ApiProxy } from './api-proxy.js';
import { loadComponents, type ComponentContext, type RehearsalComponents, type Running, type RunningNodes, type RunningOperators } from './components.js';
import { describeFaults, type FaultPlan } from './faults.js';
import { startObserver, type Observer } from './observer.js';
import { computeReport, withinMaxUnavailable, type ApiCounts, type Outcome, type RehearsalReport } from './report.js';
import type { TimelineEvent } from './timeline.js';
import { startUpdateService, type UpdateService } from './update-service.js';

/** Options of {@link rehearse}. */
export interface RehearseOptions {
  /** Current release (DIR or IMAGE); default: generated release A. */
  from?: string;
  /** Target release; default: generated release B. */
  to?: string;
  masters: number;
  workers: number;
  /** Extra pools: name → node count (nodes labelled worker and <name>, as custom pools are). */
  pools: Record<string, number>;
  timeScale: number;
  faults: FaultPlan;
  /** Give up (Stalled) after this many wall-clock seconds per phase. */
  timeoutSeconds: number;
  workDir: string;
  /** Receives every timeline event as it happens. */
  onEvent?: (e: TimelineEvent) => void;
  /** Component logs (default: dropped). */
  onLog?: (component: string, line: string) => void;
}

/** Result of {@link rehearse}. */
export interface RehearsalResult {
  report: RehearsalReport;
  events: TimelineEvent[];
}

type Obj = Record<string, unknown>;
const EMPTY_API: ApiCounts = { total: 0, byVerb: {}, evictions: 0, pdbRefusals: 0, injectedErrors: 0 };

/** A release the rehearsal can hand to the CVO. */
interface Release {
  version: string;
  pullSpec: string;
  payload: ReleasePayload;
  dir: string;
}

/** Everything started, to be stopped in reverse order. */
class Stack {
  private readonly items: { name: string; stop: () => Promise<void> }[] = [];
  push(name: string, stop: () => Promise<void>): void {
    this.items.push({ name, stop });
  }
  async stopAll(): Promise<void> {
    for (const it of this.items.reverse()) {
      try {
        await it.stop();
      } catch {
        /* keep stopping the rest */
      }
    }
  }
}

/** The node names and roles of the rehearsal cluster. */
export function nodeInventory(masters: number, workers: number, pools: Readonly<Record<string, number>>): { name: string; roles: string[] }[] {
  const out: { name: string; roles: string[] }[] = [];
  for (let i = 0; i < masters; i++) out.push({ name: `master-${i}`, roles: ['master'] });
  for (let i = 0; i < workers; i++) out.push({ name: `worker-${i}`, roles: ['worker'] });
  for (const [pool, n] of Object.entries(pools)) for (let i = 0; i < n; i++) out.push({ name: `${pool}-${i}`, roles: ['worker', pool] });
  return out;
}

async function resolveRelease(source: string, registry: () => Promise<OciRegistry>, workDir: string, label: string): Promise<Release> {
  const payload = await openPayload(source, { cacheDir: join(workDir, 'blobs') });
  if (payload.image !== undefined) {
    const dir = join(workDir, label);
    await writePayloadFiles(payload.files, dir);
    return { version: payload.metadata.version, pullSpec: payload.image.reference.replace(/^docker:\/\//, ''), payload, dir };
  }
  // a directory: publish it to the rehearsal registry so the CVO fetches it the real way
  const image = await buildReleaseImage(source, { 'io.openshift.release': payload.metadata.version });
  const pullSpec = (await registry()).put('openshift-release-dev/ocp-release', `${payload.metadata.version}-x86_64`, image);
  return { version: payload.metadata.version, pullSpec, payload, dir: source };
}

/** The sandbox's kubeconfig pointed at another server URL (the proxy). */
export function kubeconfigFor(sandbox: Sandbox, server: string): string {
  return sandbox.kubeconfigYaml().replace(/server: \S+/, `server: ${server}`);
}

/** Creates what the installer creates before the CVO runs: the payload's CRDs and ClusterVersion `version`. */
export async function bootstrapCluster(client: KubeClient, a: Pick<Release, 'payload'>, svc: Pick<UpdateService, 'channel' | 'upstream'>): Promise<void> {
  const crds = filterManifests(a.payload).included.filter((m) => m.gvk.kind === 'CustomResourceDefinition');
  for (const m of crds) {
    try {
      await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: m.object });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  await client.request('POST', '/apis/config.openshift.io/v1/clusterversions', {
    body: { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: randomUUID(), channel: svc.channel, upstream: svc.upstream } },
  });
}

interface Cond {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
}

function cond(o: unknown, type: string): Cond | undefined {
  const list = ((o as { status?: { conditions?: unknown[] } } | undefined)?.status?.conditions ?? []) as Cond[];
  return list.find((c) => c.type === type);
}

function configName(p: unknown): string {
  const name = (p as { status?: { configuration?: { name?: unknown } } }).status?.configuration?.name;
  return typeof name === 'string' ? name : '';
}

function history0(o: unknown): Obj {
  return (((o as { status?: { history?: unknown[] } } | undefined)?.status?.history ?? [])[0] ?? {}) as Obj;
}

function poolsUpdated(obs: Observer, skipPaused: boolean, notOn?: ReadonlyMap<string, string>): boolean {
  const pools = obs.pools();
  if (pools.length === 0) return false;
  return pools.every((p) => {
    const spec = (p as { spec?: { paused?: boolean } }).spec ?? {};
    if (skipPaused && spec.paused === true) return true;
    const st = ((p as { status?: Obj }).status ?? {}) as { machineCount?: number; updatedMachineCount?: number; configuration?: { name?: string } };
    const before = notOn?.get(p.metadata.name ?? '');
    return cond(p, 'Updated')?.status === 'True' && (st.machineCount ?? 0) > 0 && st.updatedMachineCount === st.machineCount && (before === undefined || st.configuration?.name !== before);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Runs the rehearsal; never throws for a failed update (that is the report's outcome), only for broken setup. */
export async function rehearse(opts: RehearseOptions): Promise<RehearsalResult> {
  const t0 = Date.now();
  const events: TimelineEvent[] = [];
  const emit = (e: TimelineEvent): void => {
    events.push(e);
    opts.onEvent?.(e);
  };
  const t = (): number => Date.now() - t0;
  const faults = describeFaults(opts.faults);
  const loaded = await loadComponents();
  if (loaded.components === undefined) {
    const missing = loaded.status.filter((s) => !s.available).map((s) => `${s.name} (${s.provider}): ${s.reason ?? 'missing'}`);
    emit({ t: t(), type: 'phase', phase: 'finished', detail: 'cannot rehearse: components missing' });
    const report = computeReport(events, { from: opts.from ?? 'A', to: opts.to ?? 'B', outcome: 'NotRunnable', message: `cannot rehearse yet: ${missing.length} component(s) missing; nothing was faked`, timeScale: opts.timeScale, api: EMPTY_API, runLevels: [], faults, missing });
    return { report, events };
  }
  return runWith(loaded.components, opts, t0, emit, events);
}

async function runWith(c: RehearsalComponents, opts: RehearseOptions, t0: number, emit: (e: TimelineEvent) => void, events: TimelineEvent[]): Promise<RehearsalResult> {
  const t = (): number => Date.now() - t0;
  const stack = new Stack();
  let proxy: ApiProxy | undefined;
  let apiCounts: ApiCounts;
  let outcome: Outcome = 'Completed';
  let message: string | undefined;
  let a: Release | undefined;
  let b: Release | undefined;
  try {
    emit({ t: t(), type: 'phase', phase: 'setup', detail: 'releases, registry, signature store, update service, API server' });
    await mkdir(opts.workDir, { recursive: true });
    let registry: OciRegistry | undefined;
    const getRegistry = async (): Promise<OciRegistry> => {
      if (registry === undefined) {
        const r = await startOciRegistry();
        registry = r;
        stack.push('registry', () => r.close());
      }
      return registry;
    };
    if (opts.from === undefined || opts.to === undefined) {
      const pub: PublishedReleases = await publishRehearsalReleases({ out: join(opts.workDir, 'releases') });
      stack.push('releases', () => pub.close());
      a = { version: pub.from.version, pullSpec: pub.from.pullSpec, payload: await openPayload(pub.from.dir), dir: pub.from.dir };
      b = { version: pub.to.version, pullSpec: pub.to.pullSpec, payload: await openPayload(pub.to.dir), dir: pub.to.dir };
    } else {
      a = await resolveRelease(opts.from, getRegistry, opts.workDir, 'from');
      b = await resolveRelease(opts.to, getRegistry, opts.workDir, 'to');
    }
    const svc = await startUpdateService({ from: { version: a.version, payload: a.pullSpec }, to: { version: b.version, payload: b.pullSpec } });
    stack.push('update service', () => svc.close());
    const sandbox = await startSandbox({ simulatePods: true });
    stack.push('api server', () => sandbox.stop());
    const px = await startApiProxy({ target: sandbox.url });
    proxy = px;
    stack.push('api proxy', () => px.close());
    const kubeconfigPath = join(opts.workDir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfigFor(sandbox, px.url), { mode: 0o600 });
    const direct = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml(), { userAgent: 'keelson-rehearse' });
    await bootstrapCluster(direct, a, svc);
    const obs = startObserver(direct, t0, emit);
    stack.push('observer', () => obs.stop());
    await obs.synced();

    const ctx: ComponentContext = { kubeconfigPath, timeScale: opts.timeScale, workDir: opts.workDir, log: opts.onLog ?? (() => undefined) };
    const started = (component: string, r: Running): Running => {
      emit({ t: t(), type: 'component', component, state: 'started' });
      stack.push(component, () => r.stop());
      return r;
    };
    const versionsOf = (p: ReleasePayload): Record<string, { name: string; version: string }[]> => {
      const out: Record<string, { name: string; version: string }[]> = {};
      for (const m of p.manifests.filter((x) => x.gvk.kind === 'ClusterOperator')) out[m.name] = (((m.object['status'] as Obj | undefined)?.['versions'] ?? []) as { name: string; version: string }[]);
      return out;
    };
    emit({ t: t(), type: 'phase', phase: 'install', detail: `installing ${a.version} (${a.pullSpec})` });
    started('machine-config-server', await c.startMachineConfigServer(ctx));
    started('machine-config-operator', await c.startMachineConfigOperator(ctx));
    started('machine-config-controller', await c.startMachineConfigController(ctx));
    const nodes = started('virtual nodes', await c.startVirtualNodes(ctx, { nodes: nodeInventory(opts.masters, opts.workers, opts.pools), failBoot: opts.faults.nodeFailsBoot, drift: opts.faults.onDiskDrift })) as RunningNodes;
    const operators = started('cluster-operator simulator', await c.startOperatorSimulator(ctx, { versions: versionsOf(a.payload), degraded: [], never: [] })) as RunningOperators;
    const progress = { runLevel: (level: string, state: 'started' | 'finished', version: string) => { emit({ t: t(), type: 'runlevel', level, state, version }); } };
    const cvoOpts = { payloadDir: a.dir, releaseImage: a.pullSpec, updateService: svc.upstream, promql: svc.prometheus, progress };
    let cvo = started('cluster-version-operator', await c.startCvo(ctx, cvoOpts));

    const deadline = (): number => Date.now() + opts.timeoutSeconds * 1000;
    let until = deadline();
    while (!(cond(obs.clusterVersion(), 'Available')?.status === 'True' && history0(obs.clusterVersion())['state'] === 'Completed' && poolsUpdated(obs, false))) {
      if (Date.now() > until) throw new InstallStalled(`install of ${a.version} did not finish in ${opts.timeoutSeconds}s: ${cond(obs.clusterVersion(), 'Progressing')?.message ?? 'no ClusterVersion progress'}`);
      await sleep(50);
    }
    const installedConfigs = new Map(obs.pools().map((p) => [p.metadata.name ?? '', configName(p)]));

    // faults armed for the update
    for (const pool of opts.faults.pausePools) {
      await direct.request('PATCH', `/apis/machineconfiguration.openshift.io/v1/machineconfigpools/${pool}`, { body: { spec: { paused: true } }, contentType: 'application/merge-patch+json' });
      emit({ t: t(), type: 'fault', fault: `pause-pool ${pool}`, detail: 'spec.paused=true' });
    }
    if (opts.faults.pdbBlocksDrain) await armPdb(direct, emit, t);
    if (opts.faults.apiErrorRate > 0) {
      px.setErrorRate(opts.faults.apiErrorRate);
      emit({ t: t(), type: 'fault', fault: 'api-errors', detail: `${opts.faults.apiErrorRate * 100}% of API requests answered 500` });
    }
    await operators.stop();
    const opsB = await c.startOperatorSimulator(ctx, { versions: versionsOf(b.payload), degraded: opts.faults.degradedOperators, never: opts.faults.neverUpdates });
    stack.push('cluster-operator simulator (target)', () => opsB.stop());

    emit({ t: t(), type: 'phase', phase: 'upgrade', detail: `keelson upgrade --to-image ${b.pullSpec}` });
    await c.requestUpgrade(ctx, { toImage: b.pullSpec, version: b.version });
    until = deadline();
    let killedCvo = false;
    const killedDaemons = new Set<string>();
    let failingSince: number | undefined;
    for (;;) {
      const cv = obs.clusterVersion();
      const h = history0(cv);
      const done = h['version'] === b.version && h['state'] === 'Completed';
      if (done && poolsUpdated(obs, true, installedConfigs)) {
        if (opts.faults.pausePools.length > 0) {
          outcome = 'PoolPaused';
          message = `ClusterVersion is at ${b.version}; paused pool(s) ${opts.faults.pausePools.join(', ')} hold the node update until unpaused`;
        } else message = `ClusterVersion history[0] ${b.version} Completed; every pool Updated`;
        break;
      }
      const prog = [...events].reverse().find((e) => e.type === 'progress');
      if (opts.faults.killCvoAt !== undefined && !killedCvo && prog?.type === 'progress' && prog.version === b.version && prog.done / prog.total >= opts.faults.killCvoAt) {
        killedCvo = true;
        if (cvo.kill === undefined) throw new Error('the wired CVO cannot be killed abruptly (run it as a child process)');
        await cvo.kill();
        emit({ t: t(), type: 'component', component: 'cluster-version-operator', state: 'killed', detail: `at ${prog.done}/${prog.total}` });
        cvo = started('cluster-version-operator', await c.startCvo(ctx, cvoOpts));
      }
      for (const n of opts.faults.killDaemons) {
        if (killedDaemons.has(n) || obs.nodes().find((x) => x.name === n)?.phase !== 'updating') continue;
        killedDaemons.add(n);
        await nodes.restartDaemon(n);
        emit({ t: t(), type: 'component', component: `machine-config-daemon/${n}`, state: 'restarted', detail: 'killed mid-update' });
      }
      const failing = cond(cv, 'Failing')?.status === 'True';
      failingSince = failing ? (failingSince ?? Date.now()) : undefined;
      const degradedPool = obs.pools().find((p) => cond(p, 'Degraded')?.status === 'True' || cond(p, 'NodeDegraded')?.status === 'True');
      if (degradedPool !== undefined && Date.now() > until - (opts.timeoutSeconds * 1000) / 2) {
        outcome = 'NodeRolloutFailed';
        message = `machineconfigpool/${degradedPool.metadata.name ?? ''}: ${(cond(degradedPool, 'NodeDegraded') ?? cond(degradedPool, 'Degraded'))?.message ?? 'Degraded'}`;
        break;
      }
      if (failingSince !== undefined && Date.now() - failingSince > Math.max(2000, (opts.timeoutSeconds * 1000) / 4)) {
        outcome = 'Failed';
        message = `ClusterVersion Failing=True: ${cond(cv, 'Failing')?.message ?? ''}`;
        break;
      }
      if (Date.now() > until) {
        outcome = 'Stalled';
        message = `the update to ${b.version} did not complete in ${opts.timeoutSeconds}s: ${cond(cv, 'Progressing')?.message ?? ''}`;
        break;
      }
      await sleep(50);
    }
  } catch (e) {
    if (!(e instanceof InstallStalled)) throw e;
    outcome = 'Stalled';
    message = e.message;
  } finally {
    emit({ t: t(), type: 'phase', phase: 'finished', detail: outcome });
    apiCounts = proxy?.counts() ?? EMPTY_API;
    await stack.stopAll();
  }
  const report = computeReport(events, {
    from: a?.version ?? opts.from ?? 'A',
    to: b?.version ?? opts.to ?? 'B',
    outcome,
    message: message ?? '',
    timeScale: opts.timeScale,
    api: apiCounts,
    runLevels: a !== undefined && b !== undefined ? computeRunLevels(a.payload, b.payload).map((l) => ({ level: l.level, operators: l.operators.map((o) => o.name) })) : [],
    faults: describeFaults(opts.faults),
  });
  if (report.outcome === 'Completed' && !withinMaxUnavailable(report)) {
    return { report: { ...report, outcome: 'InvariantViolated', exitCode: 8, message: `more nodes than maxUnavailable were unavailable at once: ${report.pools.map((p) => `${p.name} ${p.maxUnavailableSeen}/${p.maxUnavailable}`).join(', ')}` }, events };
  }
  return { report, events };
}

/** The install did not finish: reported as Stalled. */
class InstallStalled extends Error {}

/** A workload on the workers whose PodDisruptionBudget allows no eviction. */
async function armPdb(client: KubeClient, emit: (e: TimelineEvent) => void, t: () => number): Promise<void> {
  const ns = 'rehearsal-workload';
  await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  await client.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'critical-app', namespace: ns },
      spec: { replicas: 2, selector: { matchLabels: { app: 'critical-app' } }, template: { metadata: { labels: { app: 'critical-app' } }, spec: { nodeSelector: { 'node-role.kubernetes.io/worker': '' }, containers: [{ name: 'app', image: 'registry.example/critical-app:1' }] } } },
    },
  });
  await client.request('POST', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
    body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'critical-app', namespace: ns }, spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'critical-app' } } } },
  });
  emit({ t: t(), type: 'fault', fault: 'pdb-blocks-drain', detail: `${ns}/critical-app: PodDisruptionBudget maxUnavailable 0 over 2 pods on workers` });
}
