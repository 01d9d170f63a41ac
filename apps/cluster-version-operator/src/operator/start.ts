/** `startClusterVersionOperator`: the programmatic entry point the bin wraps (flags -> options -> wiring). */
import { EventEmitter } from 'node:events';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import {
  EventRecorder,
  KubeClient,
  KubeConfig,
  KubeError,
  Manager,
  Registry,
  aborted,
  createLogger,
  errorSafeLogger,
  type HealthServerOptions,
  type Logger,
  type Runnable,
} from '@keelson/kube';
import { CvoError } from '../errors.js';
import { registerMetrics } from '../metrics.js';
import { readClusterPullConfig } from '../payload/cluster-pull-config.js';
import { TARGET_UPDATE_PAYLOADS_DIR } from '../payload/pod-retrieval.js';
import {
  directRetriever,
  loadLocalPayload,
  PayloadCache,
  podRetriever,
  pullSecretFile,
  type PayloadRetriever,
} from '../payload/retrieve.js';
import { SignaturePersister } from '../payload/persist.js';
import { checkClient, parseListen, type MetricsAuth } from '../server.js';
import { resolveIntervals, type Intervals } from '@keelson/cluster-version';
import { UpdatesPoller } from '../updates/poll.js';
import { DEFAULT_PROMQL_TARGET, promqlOptions, validatePromQLTarget, type PromQLTarget } from '../cluster/promql.js';
import { ClientCAWatcher } from '../cluster/client-ca.js';
import { readEgress, transportFor, TRUSTED_CA_BUNDLE } from '../cluster/egress.js';
import { leaseTimingsFor } from '../cluster/leader-election.js';
import { ClusterVersionController } from './controller.js';
import type { CvoEvent } from './events.js';
import type { ReleasePayload } from '@keelson/release-payload';

/** Options of {@link startClusterVersionOperator} (each mirrors a flag of `cluster-version-operator start`). */
export interface CvoOptions {
  /** Kubeconfig path or a loaded KubeConfig; default: `KUBECONFIG`, `~/.kube/config`, then in-cluster. */
  kubeconfig?: string | KubeConfig;
  /** The operator's own release on disk (upstream `/`): `manifests/` and `release-manifests/`. */
  payloadDir: string;
  /** Pull spec of the operator's own release (`--release-image`). */
  releaseImage: string;
  /**
   * Where retrieved payloads are: with `pod` retrieval, where this process sees the node's `/etc/cvo/updatepayloads`
   * (default that path); with `direct`, a digest-keyed cache (default `<tmpdir>/cvo-payloads`).
   */
  payloadCache?: string;
  /**
   * How target payloads are retrieved: `pod` (upstream: a `version-<v>-<rand>` Pod on this node copies the payload out
   * of the release image, pulled by the node's container runtime) or `direct` (this process pulls from the registry,
   * with the cluster's IDMS/ITMS/ICSP mirrors, Proxy and trusted CAs). Default: `pod` inside a cluster
   * (`KUBERNETES_SERVICE_HOST` set), else `direct`.
   */
  payloadRetrieval?: 'pod' | 'direct';
  /** The node this operator runs on (upstream `--node-name`, default `NODE_NAME`): where the retrieval Pod runs. */
  nodeName?: string;
  /** Bound of one `pod` retrieval (default upstream's 4 minutes). */
  retrieveTimeoutMs?: number;
  /**
   * Read the objects a pass applies from watches (one informer per kind) instead of a GET per manifest (default
   * true); false GETs every manifest on every pass, as upstream's resourceapply does.
   */
  liveObjectCache?: boolean;
  /** Metrics/health address (default `0.0.0.0:9099`; port 0 picks a free port; '' serves nothing, as upstream). */
  listen?: string;
  servingCertFile?: string;
  servingKeyFile?: string;
  /**
   * Client-certificate checks of `/metrics` over HTTPS (upstream `MetricsOptions`; default both on): authentication
   * against `kube-system/extension-apiserver-authentication` `client-ca-file`, authorization of the Common Name
   * `system:serviceaccount:openshift-monitoring:prometheus-k8s`.
   */
  metricsAuth?: { authentication?: boolean; authorization?: boolean };
  /** Update service URL overriding `spec.upstream`. */
  updateService?: string;
  /**
   * Keelson shortcut: query this PromQL endpoint directly (as `--use-dns-for-services`, no token or CA unless
   * {@link promql} sets them). Unset: the in-cluster Thanos querier as upstream.
   */
  promqlTarget?: string;
  /** Upstream's PromQL target flags (`--metrics-url`, `--metrics-token-file`, `--metrics-ca-bundle-file`, …). */
  promql?: Partial<PromQLTarget>;
  /** Upstream `--enable-auto-update`: set `desiredUpdate` to the newest available update. */
  enableAutoUpdate?: boolean;
  /** Multiplies every upstream duration (0.01 = 100x faster), see {@link Intervals}. */
  timeScale?: number;
  /** Explicit durations (after `timeScale`). */
  intervals?: Partial<Intervals>;
  /** Cluster profile (default `CLUSTER_PROFILE` or `self-managed-high-availability`). */
  clusterProfile?: string;
  /** Upstream `EXCLUDE_MANIFESTS` (default: that environment variable): skip `exclude.release.openshift.io/<id>`. */
  excludeManifests?: string;
  /** Upstream `--always-enable-capabilities`: capabilities always implicitly enabled. */
  alwaysEnableCapabilities?: readonly string[];
  /** Leader-election identity (default `<hostname>_<uuid>`). */
  identity?: string;
  /** JSON logger (default: JSON lines on stderr). */
  logger?: Logger;
  /** Receives every progress event. */
  onEvent?: (e: CvoEvent) => void;
}

/** A running operator. */
export interface RunningCvo {
  /** Base URL of `/metrics`, `/healthz`, `/readyz`. */
  readonly metricsUrl: string;
  /** Emits `'event'` with every {@link CvoEvent}. */
  readonly events: EventEmitter<{ event: [CvoEvent] }>;
  /** API writes issued by the sync worker so far. */
  writes(): { creates: number; updates: number; deletes: number };
  /** True while this instance holds the Lease. */
  isLeader(): boolean;
  /** Graceful stop: stop syncing (no half-written status), release the Lease, close the server. */
  stop(): Promise<void>;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The PromQL target of these options: upstream's defaults, the `promqlTarget` shortcut, then explicit fields. */
export function resolvePromQLTarget(o: Pick<CvoOptions, 'promqlTarget' | 'promql'>): PromQLTarget {
  const base: PromQLTarget =
    o.promqlTarget !== undefined
      ? { ...DEFAULT_PROMQL_TARGET, url: o.promqlTarget, useDNS: true, tokenFile: '', caBundleFile: '' }
      : DEFAULT_PROMQL_TARGET;
  const p = o.promql ?? {};
  return {
    url: p.url ?? base.url,
    tokenFile: p.tokenFile ?? base.tokenFile,
    caBundleFile: p.caBundleFile ?? base.caBundleFile,
    useDNS: p.useDNS ?? base.useDNS,
    service: { ...base.service, ...p.service },
  };
}

/**
 * The metrics endpoint (upstream `RunMetrics`), served by the Manager: none when `listen` is empty (the bootstrap
 * pod's `--listen=`); over HTTPS, `/metrics` checks client certificates against the cluster's client CA.
 */
function metricsServerOptions(
  options: CvoOptions,
  clientCA: ClientCAWatcher | undefined,
  log: Logger,
): false | Omit<HealthServerOptions, 'registry'> {
  if (options.listen === '') return false;
  const { host, port } = parseListen(options.listen ?? '0.0.0.0:9099');
  if (!servesTls(options)) return { host, port };
  if (!options.servingCertFile || !options.servingKeyFile)
    throw new CvoError(
      'InvalidFlag',
      '--serving-cert-file',
      'both --serving-cert-file and --serving-key-file are required for HTTPS',
    );
  const auth: MetricsAuth = {
    authentication: options.metricsAuth?.authentication !== false,
    authorization: options.metricsAuth?.authorization !== false,
    clientCA: () => clientCA?.current(),
  };
  if (auth.authorization && !auth.authentication)
    throw new CvoError(
      'InvalidOptions',
      'metricsAuth',
      'invalid configuration: cannot enable authorization without authentication',
    );
  return {
    host,
    port,
    tls: {
      certFile: options.servingCertFile,
      keyFile: options.servingKeyFile,
      requestClientCert: auth.authentication || auth.authorization,
      clientCA: () => auth.clientCA(),
      onClientCAChange: (f) => {
        clientCA?.onChange(f);
      },
      onReloadError: (e) => {
        log.error('reloading the metrics serving certificate failed', { error: e.message });
      },
    },
    authorizeMetrics: (req) => (req.socket instanceof TLSSocket ? checkClient(req.socket, auth) : undefined),
  };
}

function servesTls(options: CvoOptions): boolean {
  return options.servingCertFile !== undefined || options.servingKeyFile !== undefined;
}

/** Upstream's client CA controller when `/metrics` authenticates over HTTPS (`/metrics` answers 500 until known). */
function clientCAWatcherFor(options: CvoOptions, client: KubeClient, log: Logger): ClientCAWatcher | undefined {
  if (options.listen === '' || !servesTls(options) || options.metricsAuth?.authentication === false) return undefined;
  return new ClientCAWatcher(client, log);
}

/** The client CA watch as a runnable of every replica (not only the leader), stopped before the server closes. */
function clientCARunnable(clientCA: ClientCAWatcher, log: Logger): Runnable {
  return {
    name: 'metrics-client-ca',
    needLeaderElection: false,
    start: async (signal) => {
      clientCA.start(signal).catch((e: unknown) => {
        if (!signal.aborted) log.error('watching the metrics client CA failed', { error: (e as Error).message });
      });
      await aborted(signal);
      await clientCA.stop();
    },
  };
}

/** What {@link createRuntime} wires. */
interface RuntimeParts {
  client: KubeClient;
  log: Logger;
  registry: Registry;
  emit: (e: CvoEvent) => void;
  identity: string;
}

/** Lease timings: upstream getLeaderElectionConfig (single-node timings on a SingleReplica control plane); explicit flags win. */
async function leaseTimings(
  options: CvoOptions,
  client: KubeClient,
  intervals: Intervals,
  log: Logger,
): Promise<{ leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number }> {
  const lease = await leaseTimingsFor(client, intervals, options.timeScale ?? 1, log);
  const explicit = options.intervals ?? {};
  const timings = {
    leaseDurationMs: explicit.leaseDurationMs ?? lease.leaseDurationMs,
    renewDeadlineMs: explicit.renewDeadlineMs ?? lease.renewDeadlineMs,
    retryPeriodMs: explicit.retryPeriodMs ?? lease.retryPeriodMs,
  };
  if (lease.topology === 'SingleReplica')
    log.info('single-node control plane: leader election timings as library-go LeaderElectionSNOConfig', timings);
  return timings;
}

/**
 * The one operator runtime (@keelson/kube Manager, not started yet): the metrics server, the Lease
 * `openshift-cluster-version/version` and the shared informers the controller takes (`mgr.informer`).
 */
function createRuntime(
  options: CvoOptions,
  p: RuntimeParts,
  lease: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number },
): { mgr: Manager; clientCA: ClientCAWatcher | undefined } {
  const { log, identity, emit } = p;
  const clientCA = clientCAWatcherFor(options, p.client, log);
  const mgr = new Manager({
    client: p.client,
    closeClient: false,
    logger: log,
    registry: p.registry,
    health: metricsServerOptions(options, clientCA, log),
    leaderElection: { namespace: 'openshift-cluster-version', name: 'version', identity, ...lease },
    onStartedLeading: () => {
      emit({ type: 'leading', identity });
      log.info('became leader; starting the sync loop', { identity });
    },
    // as upstream (klog.Fatalf "leaderelection lost"): the bin exits on this event and the pod restarts
    onLeaderLost: () => {
      emit({ type: 'leadershipLost', identity });
    },
  });
  return { mgr, clientCA };
}

/** Adds the sync loop (leader runnable) and the client CA watch (every replica), then starts the Manager. */
async function startRuntime(
  mgr: Manager,
  ctl: ClusterVersionController,
  clientCA: ClientCAWatcher | undefined,
  log: Logger,
): Promise<void> {
  mgr.add({
    name: 'sync',
    start: (signal) =>
      ctl.run(signal).catch((e: unknown) => {
        log.error('sync loop ended with an error', { error: (e as Error).message });
      }),
  });
  if (clientCA) mgr.add(clientCARunnable(clientCA, log));
  await mgr.start();
}

/** A failed listen as the flag error upstream's `--listen` gives; other errors unchanged. */
function listenError(e: unknown, options: CvoOptions): unknown {
  if (!(e instanceof KubeError)) return e;
  const cause = e.cause instanceof Error ? e.cause.message : e.message;
  return new CvoError(
    'InvalidFlag',
    '--listen',
    `cannot listen on ${options.listen ?? '0.0.0.0:9099'}: ${cause}; choose a free address`,
    { cause: e },
  );
}

function makeClient(k: string | KubeConfig | undefined): KubeClient {
  if (k instanceof KubeConfig) return new KubeClient(k, { userAgent: 'ClusterVersionOperator/keelson' });
  try {
    return KubeClient.fromKubeconfigFile(k, { userAgent: 'ClusterVersionOperator/keelson' });
  } catch (e) {
    throw new CvoError('InvalidOptions', k ?? 'kubeconfig', `${(e as Error).message}; or run in a pod`, { cause: e });
  }
}

/** The retriever of `options.payloadRetrieval` (see {@link CvoOptions}). */
function makeRetriever(options: CvoOptions, client: KubeClient, clusterProfile: string, log: Logger): PayloadRetriever {
  const mode = options.payloadRetrieval ?? (process.env['KUBERNETES_SERVICE_HOST'] ? 'pod' : 'direct');
  if (mode === 'direct') {
    const cacheDir = options.payloadCache ?? join(tmpdir(), 'cvo-payloads');
    return directRetriever({
      cache: new PayloadCache({ dir: cacheDir, clusterProfile }),
      authFileFor: () => pullSecretFile(client, cacheDir),
      pullConfigFor: (signal) => readClusterPullConfig(client, signal),
      clusterProfile,
    });
  }
  const nodeName = options.nodeName ?? process.env['NODE_NAME'] ?? '';
  if (nodeName === '')
    throw new CvoError(
      'InvalidOptions',
      '--node-name',
      '--payload-retrieval=pod needs the node this operator runs on: --node-name or NODE_NAME (the Downward API spec.nodeName)',
    );
  return podRetriever({
    client,
    log,
    namespace: 'openshift-cluster-version',
    operatorName: 'version',
    nodeName,
    workingDir: options.payloadCache ?? TARGET_UPDATE_PAYLOADS_DIR,
    clusterProfile,
    ...(options.retrieveTimeoutMs !== undefined ? { retrieveTimeoutMs: options.retrieveTimeoutMs } : {}),
  });
}

/** The updates poller; its egress reads the controller's informers once the controller exists. */
function makePoller(options: CvoOptions, client: KubeClient, holder: ControllerHolder): UpdatesPoller {
  const promqlTarget = resolvePromQLTarget(options);
  validatePromQLTarget(promqlTarget);
  return new UpdatesPoller({
    ...(options.updateService ? { updateService: options.updateService } : {}),
    promql: promqlOptions(promqlTarget, client),
    transport: async (upstream, signal) =>
      transportFor(
        await readEgress(
          client,
          signal,
          () => holder.controller?.configManagedMap(TRUSTED_CA_BUNDLE.name),
          holder.controller
            ? (s) => holder.controller?.applier.clusterConfig.proxyStatus(s) ?? Promise.resolve(undefined)
            : undefined,
        ),
        upstream,
      ),
    userAgent: 'ClusterVersionOperator/keelson',
  });
}

/** The controller, once made (the poller and the metrics are made before it and read it late). */
interface ControllerHolder {
  controller?: ClusterVersionController;
}

/** The metrics (upstream `RegisterMetrics`) over what the controller knows. */
function makeMetrics(
  registry: Registry,
  options: CvoOptions,
  localPayload: ReleasePayload,
  holder: ControllerHolder,
): ReturnType<typeof registerMetrics> {
  return registerMetrics(registry, {
    cv: () => holder.controller?.cv,
    operators: () => holder.controller?.operators.store.list() ?? [],
    current: () => ({
      version: localPayload.metadata.version,
      image: options.releaseImage,
      created: Date.parse(localPayload.imageReferences.creationTimestamp ?? '') || 0,
    }),
    payload: () => holder.controller?.payloadProgress(),
    updateService: () => options.updateService ?? '',
    configMap: (name) => holder.controller?.openshiftConfigMap(name),
    updateRetrievalTimestamp: () => holder.controller?.lastRetrieval,
  });
}

/** The parts of {@link ControllerDeps} that come from the options and the process. */
interface ControllerParts {
  options: CvoOptions;
  client: KubeClient;
  log: Logger;
  localPayload: ReleasePayload;
  clusterProfile: string;
  intervals: Intervals;
  retriever: PayloadRetriever;
  mgr: Manager;
  poller: UpdatesPoller;
  emit: (e: CvoEvent) => void;
  metrics: ReturnType<typeof registerMetrics>;
  /** Stops the whole operator (a changed feature set). */
  stop: () => void;
}

function makeController(p: ControllerParts): ClusterVersionController {
  const { options, client, log } = p;
  const excludeManifests = options.excludeManifests ?? process.env['EXCLUDE_MANIFESTS'] ?? '';
  return new ClusterVersionController({
    client,
    // the Manager's shared cache (controller-runtime's cache; upstream's listers of its shared informer factories)
    informers: (resource, o) => p.mgr.informer(resource, o),
    log,
    intervals: p.intervals,
    localPayload: p.localPayload,
    releaseImage: options.releaseImage,
    retriever: p.retriever,
    poller: p.poller,
    emit: p.emit,
    payloadErrors: p.metrics.payloadErrors,
    clusterProfile: p.clusterProfile,
    sleep: abortableSleep,
    enableAutoUpdate: options.enableAutoUpdate === true,
    ...(excludeManifests ? { excludeIdentifier: excludeManifests } : {}),
    alwaysEnableCapabilities: options.alwaysEnableCapabilities ?? [],
    liveObjectCache: options.liveObjectCache !== false,
    onOperatorUpdate: p.metrics.operatorChanged,
    signatures: new SignaturePersister(),
    // upstream ChangeStopper: a new feature set stops the operator (the bin then exits 0 and the pod restarts)
    onFeatureSetChange: p.stop,
    recorder: new EventRecorder(client, {
      component: 'openshift-cluster-version',
      clusterScopedNamespace: 'openshift-cluster-version',
      logger: log,
      // the CVO's timeScale multiplies its durations: its clock runs 1/timeScale as fast as the wall
      clockRate: 1 / (options.timeScale ?? 1),
    }),
  });
}

/** Starts the operator: loads its payload, serves metrics, campaigns for the Lease and syncs while leading. */
export async function startClusterVersionOperator(options: CvoOptions): Promise<RunningCvo> {
  const log =
    options.logger !== undefined
      ? errorSafeLogger(options.logger)
      : createLogger({ fields: { component: 'cluster-version-operator' } });
  const intervals = resolveIntervals(options.timeScale ?? 1, options.intervals);
  const clusterProfile = options.clusterProfile ?? process.env['CLUSTER_PROFILE'] ?? 'self-managed-high-availability';
  const localPayload = await loadLocalPayload(options.payloadDir, options.releaseImage, clusterProfile);
  for (const w of localPayload.warnings) log.warn(w);
  const client = makeClient(options.kubeconfig);
  const retriever = makeRetriever(options, client, clusterProfile, log);
  const events = new EventEmitter<{ event: [CvoEvent] }>();
  const emit = (e: CvoEvent): void => {
    options.onEvent?.(e);
    events.emit('event', e);
  };
  const holder: ControllerHolder = {};
  const poller = makePoller(options, client, holder);
  const registry = new Registry();
  const metrics = makeMetrics(registry, options, localPayload, holder);
  const lease = await leaseTimings(options, client, intervals, log);
  const identity = options.identity ?? `${hostname()}_${randomUUID()}`;
  let api: RunningCvo | undefined;
  try {
    const { mgr, clientCA } = createRuntime(options, { client, log, registry, emit, identity }, lease);
    const parts = {
      options,
      client,
      log,
      localPayload,
      clusterProfile,
      intervals,
      retriever,
      mgr,
      poller,
      emit,
      metrics,
    };
    const ctl = makeController({ ...parts, stop: () => void api?.stop() });
    holder.controller = ctl;
    await startRuntime(mgr, ctl, clientCA, log);
    api = runningCvo(mgr, ctl, events, log, async () => {
      await poller.close();
      await client.close();
    });
  } catch (e) {
    await client.close();
    throw listenError(e, options);
  }
  return api;
}

/** The handle of a started operator; `stop` is idempotent. */
function runningCvo(
  mgr: Manager,
  ctl: ClusterVersionController,
  events: EventEmitter<{ event: [CvoEvent] }>,
  log: Logger,
  close: () => Promise<void>,
): RunningCvo {
  let stopping: Promise<void> | undefined;
  return {
    metricsUrl: mgr.healthUrl ?? '',
    events,
    writes: () => ({ ...ctl.applier.writes }),
    isLeader: () => mgr.isLeader(),
    stop: () => {
      stopping ??= (async () => {
        log.info('stopping: finishing the current step, releasing the lease');
        await mgr.stop();
        await close();
      })();
      return stopping;
    },
  };
}
