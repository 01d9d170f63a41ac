/**
 * SIMULATOR of OpenShift cluster operators, for tests, benchmarks and rehearsals: an ordinary API client
 * (@kubernetes/client-node) that watches ClusterOperators, Deployments and the ClusterVersion, and for every
 * ClusterOperator writes, through the `/status` subresource, the versions and conditions a healthy (or, with a
 * fault, an unhealthy) operator would report. It runs against the embedded sandbox and any other API server.
 * It is not an operator of anything: it only reports.
 */
import {
  AppsV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type Informer,
  type KubernetesListObject,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import { decideOperatorReport, relatedNamespaces, resolveExpectedVersions } from './decide-operator.js';
import type {
  OperandVersion,
  OperatorCondition,
  OperatorFault,
  SimClusterOperator,
  SimClusterVersion,
  SimDeployment,
} from './operator-types.js';

const GROUP = 'config.openshift.io';
const VERSION = 'v1';
/** Field manager of the simulator's status writes. */
const FIELD_MANAGER = 'keelson-operator-simulator';
/** Status writes in flight at most. */
const WORKERS = 8;

/** Where the simulator logs (JSON-line loggers fit; the default discards). */
export interface SimulatorLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** One status write of the simulator (for timelines and tests). */
export interface OperatorReport {
  name: string;
  at: string;
  versions: OperandVersion[];
  conditions: OperatorCondition[];
}

/** Options of {@link startOperatorSimulator}. */
export interface OperatorSimulatorOptions {
  /** Kubeconfig YAML text or a loaded client-node KubeConfig (exactly one of `kubeconfig` and `client`). */
  kubeconfig?: string | KubeConfig;
  /** Alias of `kubeconfig` taking a loaded client-node KubeConfig. */
  client?: KubeConfig;
  /** Delay between seeing an operator that needs a report and writing it (default 1000 ms). */
  delayMs?: number;
  /** Faults per ClusterOperator name. */
  faults?: Record<string, OperatorFault>;
  /** ClusterOperators never touched (default `['machine-config']`: the Keelson MCO reports it). */
  exclude?: string[];
  /**
   * Versions to report per ClusterOperator, as declared by the payload's ClusterOperator manifests
   * (`status.versions`); see {@link expectedVersionsFromManifests}. Without an entry the simulator reports
   * `operator: <RELEASE_VERSION of the operator's Deployments>` or `operator: <ClusterVersion desired version>`.
   */
  versions?: Record<string, OperandVersion[]>;
  /** Report only once the Deployments in the operator's related namespaces rolled out (default true). */
  waitForDeployments?: boolean;
  /** Called after every status write. */
  onReport?: (report: OperatorReport) => void;
  logger?: SimulatorLogger;
  /** Clock (ms since epoch); default `Date.now`. */
  now?: () => number;
}

/** A running simulator. */
export interface OperatorSimulator {
  /** Stops watching and cancels pending reports. */
  stop(): Promise<void>;
  /** Replaces the per-operator versions (e.g. the target payload's manifests when an update starts). */
  setVersions(versions: Record<string, OperandVersion[]>): void;
  /** Every status write so far, oldest first. */
  readonly reports: readonly OperatorReport[];
  /** Resolves when the initial lists of ClusterOperators and Deployments were read. */
  readonly synced: Promise<void>;
}

const nullLogger: SimulatorLogger = { info: () => undefined, error: () => undefined };

/**
 * Reads `status.versions` of every `config.openshift.io/v1` ClusterOperator among payload manifests (plain
 * objects), keyed by ClusterOperator name: the versions the CVO waits for.
 */
export function expectedVersionsFromManifests(manifests: Iterable<unknown>): Record<string, OperandVersion[]> {
  const out: Record<string, OperandVersion[]> = {};
  for (const m of manifests) {
    if (typeof m !== 'object' || m === null) continue;
    const o = m as {
      apiVersion?: unknown;
      kind?: unknown;
      metadata?: { name?: unknown };
      status?: { versions?: unknown };
    };
    if (o.apiVersion !== `${GROUP}/${VERSION}` || o.kind !== 'ClusterOperator' || typeof o.metadata?.name !== 'string')
      continue;
    const vs = Array.isArray(o.status?.versions) ? (o.status.versions as unknown[]) : [];
    out[o.metadata.name] = vs
      .filter(
        (v): v is OperandVersion =>
          typeof v === 'object' &&
          v !== null &&
          typeof (v as OperandVersion).name === 'string' &&
          typeof (v as OperandVersion).version === 'string',
      )
      .map((v) => ({ name: v.name, version: v.version }));
  }
  return out;
}

function loadKubeConfig(opts: OperatorSimulatorOptions): KubeConfig {
  const src = opts.client ?? opts.kubeconfig;
  if (src === undefined)
    throw new TypeError('startOperatorSimulator needs `kubeconfig` (YAML text or KubeConfig) or `client`');
  let kc: KubeConfig;
  if (typeof src === 'string') {
    kc = new KubeConfig();
    kc.loadFromString(src);
  } else kc = src;
  return allowPlainHttp(kc);
}

/**
 * client-node refuses `http:` servers unless `skipTLSVerify` is set; on plain HTTP there is no TLS to verify,
 * so a copy that says so is used (loopback sandboxes serve plain HTTP). HTTPS clusters are left as they are.
 */
function allowPlainHttp(kc: KubeConfig): KubeConfig {
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server.startsWith('http:')) return kc;
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === cluster.name ? { ...c, skipTLSVerify: true } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return copy;
}

type Obj = KubernetesObject;

/** Starts the cluster-operator simulator; resolves once its watches are running. */
export async function startOperatorSimulator(opts: OperatorSimulatorOptions): Promise<OperatorSimulator> {
  const sim = new Simulator(loadKubeConfig(opts), opts);
  await sim.start();
  return sim;
}

/** The controller: informers -> queue of ClusterOperator names -> reconcile(name). */
class Simulator implements OperatorSimulator {
  readonly reports: OperatorReport[] = [];
  readonly synced: Promise<void>;
  private readonly custom: CustomObjectsApi;
  private readonly log: SimulatorLogger;
  private readonly now: () => number;
  private readonly exclude: Set<string>;
  private versions: Record<string, OperandVersion[]>;
  private readonly informers: (Informer<Obj> & ObjectCache<Obj>)[] = [];
  private readonly cos: Informer<Obj> & ObjectCache<Obj>;
  private readonly deployments: Informer<Obj> & ObjectCache<Obj>;
  private readonly cvs: Informer<Obj> & ObjectCache<Obj>;
  /** Per operator: the report it owes and since when. */
  private readonly pending = new Map<string, { key: string; since: number }>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly dirty = new Set<string>();
  private workers = 0;
  private readonly inFlight = new Set<string>();
  private stopped = false;
  private markSynced: () => void = () => undefined;

  constructor(
    kc: KubeConfig,
    private readonly opts: OperatorSimulatorOptions,
  ) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    const apps = kc.makeApiClient(AppsV1Api);
    this.log = opts.logger ?? nullLogger;
    this.now = opts.now ?? Date.now;
    this.exclude = new Set(opts.exclude ?? ['machine-config']);
    this.versions = { ...(opts.versions ?? {}) };
    const listCustom = (plural: string) => async (): Promise<KubernetesListObject<Obj>> =>
      (await this.custom.listClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural,
      })) as KubernetesListObject<Obj>;
    this.cos = makeInformer<Obj>(kc, `/apis/${GROUP}/${VERSION}/clusteroperators`, listCustom('clusteroperators'));
    this.cvs = makeInformer<Obj>(kc, `/apis/${GROUP}/${VERSION}/clusterversions`, listCustom('clusterversions'));
    this.deployments = makeInformer<Obj>(
      kc,
      '/apis/apps/v1/deployments',
      async () => await apps.listDeploymentForAllNamespaces(),
    );
    this.informers.push(this.cos, this.cvs, this.deployments);
    this.synced = new Promise((resolve) => {
      this.markSynced = resolve;
    });
  }

  async start(): Promise<void> {
    const onCo = (o: Obj): void => {
      if (o.metadata?.name !== undefined) this.enqueue(o.metadata.name, 0);
    };
    this.cos.on('add', onCo);
    this.cos.on('update', onCo);
    this.cos.on('delete', (o) => {
      const n = o.metadata?.name;
      if (n !== undefined) this.forget(n);
    });
    const onOther = (): void => {
      this.enqueueAll();
    };
    for (const inf of [this.cvs, this.deployments]) {
      inf.on('add', onOther);
      inf.on('update', onOther);
      inf.on('delete', onOther);
    }
    for (const inf of this.informers) this.keepRunning(inf);
    const results = await Promise.allSettled(this.informers.map((i) => i.start()));
    results.forEach((r, i) => {
      if (r.status === 'rejected')
        this.log.error('simulator watch failed to start; retrying', {
          watch: ['clusteroperators', 'clusterversions', 'deployments'][i],
          error: errText(r.reason),
        });
    });
    this.markSynced();
    this.log.info('cluster-operator simulator started', {
      delayMs: this.delayMs,
      exclude: [...this.exclude].sort(),
      faults: this.opts.faults ?? {},
    });
    this.enqueueAll();
  }

  /** client-node informers stop on errors (missing CRD, dropped connection): start them again after a pause. */
  private keepRunning(inf: Informer<Obj>): void {
    inf.on('error', (err?: unknown) => {
      if (this.stopped) return;
      this.log.error('simulator watch error; restarting in 1s', { error: errText(err) });
      setTimeout(() => {
        if (!this.stopped) inf.start().catch(() => undefined);
      }, 1000).unref();
    });
  }

  private get delayMs(): number {
    return this.opts.delayMs ?? 1000;
  }

  setVersions(versions: Record<string, OperandVersion[]>): void {
    this.versions = { ...versions };
    this.enqueueAll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled(this.informers.map((i) => i.stop()));
  }

  private enqueueAll(): void {
    for (const o of this.cos.list()) if (o.metadata?.name !== undefined) this.enqueue(o.metadata.name, 0);
  }

  private forget(name: string): void {
    this.pending.delete(name);
    const t = this.timers.get(name);
    if (t) clearTimeout(t);
    this.timers.delete(name);
  }

  private enqueue(name: string, afterMs: number): void {
    if (this.stopped || this.exclude.has(name)) return;
    if (afterMs > 0) {
      const old = this.timers.get(name);
      if (old) clearTimeout(old);
      const t = setTimeout(() => {
        this.timers.delete(name);
        this.enqueue(name, 0);
      }, afterMs);
      this.timers.set(name, t);
      return;
    }
    this.dirty.add(name);
    this.pump();
  }

  /**
   * Workers take queued names, at most {@link WORKERS} at a time; a name is never reconciled by two workers at
   * once (queued again while in flight, it is picked up after the running reconcile).
   */
  private pump(): void {
    while (!this.stopped && this.workers < WORKERS) {
      const name = [...this.dirty].find((n) => !this.inFlight.has(n));
      if (name === undefined) return;
      this.dirty.delete(name);
      this.inFlight.add(name);
      this.workers++;
      void this.work(name).finally(() => {
        this.inFlight.delete(name);
        this.workers--;
        this.pump();
      });
    }
  }

  private async work(name: string): Promise<void> {
    try {
      await this.reconcile(name);
    } catch (err) {
      // 409: our cached copy was stale; the watch brings the new one and we try again
      if (httpCode(err) !== 409)
        this.log.error('simulated operator report failed; retrying', { clusterOperator: name, error: errText(err) });
      this.enqueue(name, httpCode(err) === 409 ? 100 : 500);
    }
  }

  private deploymentsOf(co: SimClusterOperator): SimDeployment[] {
    const nss = new Set(relatedNamespaces(co.status?.relatedObjects));
    if (nss.size === 0) return [];
    return (this.deployments.list() as unknown as SimDeployment[]).filter((d) => nss.has(d.metadata.namespace ?? ''));
  }

  private async reconcile(name: string): Promise<void> {
    const co = this.cos.get(name) as unknown as SimClusterOperator | undefined;
    if (!co) {
      this.forget(name);
      return;
    }
    const fault = this.opts.faults?.[name];
    const deployments = this.deploymentsOf(co);
    const cv = this.cvs.get('version') as unknown as SimClusterVersion | undefined;
    const expected = resolveExpectedVersions({
      explicit: this.versions[name],
      deployments,
      desiredVersion: cv?.status?.desired?.version,
    });
    const key = JSON.stringify([expected, fault]);
    const now = this.now();
    let p = this.pending.get(name);
    if (!p || p.key !== key) {
      p = { key, since: now };
      this.pending.set(name, p);
    }
    const d = decideOperatorReport({
      operator: co,
      expected,
      fault,
      deployments,
      waitForDeployments: this.opts.waitForDeployments ?? true,
      pendingSince: p.since,
      now,
      delayMs: this.delayMs,
    });
    if (d.action === 'wait') {
      if (d.afterMs !== undefined) this.enqueue(name, d.afterMs);
      return;
    }
    if (d.action === 'none') return;
    const body = { metadata: { resourceVersion: co.metadata.resourceVersion }, status: d.status };
    await this.custom.patchClusterCustomObjectStatus(
      { group: GROUP, version: VERSION, plural: 'clusteroperators', name, body, fieldManager: FIELD_MANAGER },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const report: OperatorReport = {
      name,
      at: new Date(now).toISOString(),
      versions: d.status.versions,
      conditions: d.status.conditions,
    };
    this.reports.push(report);
    this.log.info('simulated cluster operator reported', {
      clusterOperator: name,
      versions: d.status.versions,
      fault: fault?.kind ?? null,
    });
    this.opts.onReport?.(report);
  }
}

function httpCode(err: unknown): number | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'number')
    return (err as { code: number }).code;
  return undefined;
}

/** A short text for client-node's errors (its ApiException message carries the whole response). */
function errText(err: unknown): string {
  const code = httpCode(err);
  if (code !== undefined) {
    const body = (err as { body?: unknown }).body;
    let msg = '';
    try {
      const parsed = typeof body === 'string' ? (JSON.parse(body) as { message?: unknown }) : undefined;
      if (typeof parsed?.message === 'string') msg = `: ${parsed.message}`;
    } catch {
      // not a Status body
    }
    return `HTTP ${code}${msg}`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
