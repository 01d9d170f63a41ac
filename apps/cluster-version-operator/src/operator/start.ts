/** `startClusterVersionOperator`: the programmatic entry point the bin wraps (flags -> options -> wiring). */
import { EventEmitter } from 'node:events';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  EventRecorder,
  KubeClient,
  KubeConfig,
  LeaderElector,
  Registry,
  createLogger,
  errorSafeLogger,
  type Logger,
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
import { startMetricsServer } from '../server.js';
import { resolveIntervals, type Intervals } from '../sync/intervals.js';
import { UpdatesPoller } from '../updates/poll.js';
import { DEFAULT_PROMQL_TARGET, promqlOptions, validatePromQLTarget, type PromQLTarget } from '../cluster/promql.js';
import { ClientCAWatcher } from '../cluster/client-ca.js';
import { readEgress, transportFor, TRUSTED_CA_BUNDLE } from '../cluster/egress.js';
import { leaseTimingsFor } from '../cluster/leader-election.js';
import { ClusterVersionController } from './controller.js';
import type { CvoEvent } from './events.js';

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
 * The metrics endpoint (upstream `RunMetrics`): none when `listen` is empty (the bootstrap pod's `--listen=`); over
 * HTTPS, `/metrics` checks client certificates against the cluster's client CA.
 */
async function serveMetrics(
  options: CvoOptions,
  client: KubeClient,
  registry: Registry,
  log: Logger,
): Promise<{ url: string; close(): Promise<void> }> {
  if (options.listen === '') return { url: '', close: () => Promise.resolve() };
  const tls = options.servingCertFile !== undefined || options.servingKeyFile !== undefined;
  const authentication = options.metricsAuth?.authentication !== false;
  const authorization = options.metricsAuth?.authorization !== false;
  const clientCA = tls && authentication ? new ClientCAWatcher(client, log) : undefined;
  const server = await startMetricsServer({
    listen: options.listen ?? '0.0.0.0:9099',
    registry,
    ready: () => true,
    ...(options.servingCertFile ? { certFile: options.servingCertFile } : {}),
    ...(options.servingKeyFile ? { keyFile: options.servingKeyFile } : {}),
    auth: {
      authentication,
      authorization,
      clientCA: () => clientCA?.current(),
      onClientCAChange: (f) => clientCA?.onChange(f),
    },
    onReloadError: (e) => {
      log.error('reloading the metrics serving certificate failed', { error: e.message });
    },
  });
  // upstream's client CA controller; /metrics answers 500 until the CA is known
  clientCA?.start().catch((e: unknown) => {
    log.error('watching the metrics client CA failed', { error: (e as Error).message });
  });
  return {
    url: server.url,
    close: async () => {
      await clientCA?.stop();
      await server.close();
    },
  };
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

/** Starts the operator: loads its payload, serves metrics, campaigns for the Lease and syncs while leading. */
export async function startClusterVersionOperator(options: CvoOptions): Promise<RunningCvo> {
  const log =
    options.logger !== undefined
      ? errorSafeLogger(options.logger)
      : createLogger({ fields: { component: 'cluster-version-operator' } });
  const intervals = resolveIntervals(options.timeScale ?? 1, options.intervals);
  const clusterProfile = options.clusterProfile ?? process.env['CLUSTER_PROFILE'] ?? 'self-managed-high-availability';
  const excludeManifests = options.excludeManifests ?? process.env['EXCLUDE_MANIFESTS'] ?? '';
  const localPayload = await loadLocalPayload(options.payloadDir, options.releaseImage, clusterProfile);
  for (const w of localPayload.warnings) log.warn(w);
  const client = makeClient(options.kubeconfig);
  const retriever = makeRetriever(options, client, clusterProfile, log);
  const events = new EventEmitter<{ event: [CvoEvent] }>();
  const emit = (e: CvoEvent): void => {
    options.onEvent?.(e);
    events.emit('event', e);
  };
  const promqlTarget = resolvePromQLTarget(options);
  validatePromQLTarget(promqlTarget);
  const holder: { controller?: ClusterVersionController } = {};
  const poller = new UpdatesPoller({
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
  const registry = new Registry();
  const { payloadErrors, operatorChanged } = registerMetrics(registry, {
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
  const ctl = new ClusterVersionController({
    client,
    log,
    intervals,
    localPayload,
    releaseImage: options.releaseImage,
    retriever,
    poller,
    emit,
    payloadErrors,
    clusterProfile,
    sleep: abortableSleep,
    enableAutoUpdate: options.enableAutoUpdate === true,
    ...(excludeManifests ? { excludeIdentifier: excludeManifests } : {}),
    alwaysEnableCapabilities: options.alwaysEnableCapabilities ?? [],
    liveObjectCache: options.liveObjectCache !== false,
    // upstream ChangeStopper: a new feature set stops the operator (the bin then exits 0 and the pod restarts)
    onOperatorUpdate: operatorChanged,
    signatures: new SignaturePersister(),
    onFeatureSetChange: () => {
      void api.stop();
    },
    recorder: new EventRecorder(client, {
      component: 'openshift-cluster-version',
      clusterScopedNamespace: 'openshift-cluster-version',
      logger: log,
    }),
  });
  holder.controller = ctl;
  // upstream getLeaderElectionConfig: single-node timings on a SingleReplica control plane; explicit flags win
  const lease = await leaseTimingsFor(client, intervals, options.timeScale ?? 1, log);
  const explicit = options.intervals ?? {};
  const leaseDurationMs = explicit.leaseDurationMs ?? lease.leaseDurationMs;
  const renewDeadlineMs = explicit.renewDeadlineMs ?? lease.renewDeadlineMs;
  const retryPeriodMs = explicit.retryPeriodMs ?? lease.retryPeriodMs;
  if (lease.topology === 'SingleReplica')
    log.info('single-node control plane: leader election timings as library-go LeaderElectionSNOConfig', {
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
    });
  const identity = options.identity ?? `${hostname()}_${randomUUID()}`;
  let leading = false;
  let stopping: Promise<void> | undefined;
  let runDone: Promise<void> = Promise.resolve();
  const elector = new LeaderElector({
    client,
    namespace: 'openshift-cluster-version',
    name: 'version',
    identity,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    logger: log,
    registry,
    onStartedLeading: (signal) => {
      leading = true;
      emit({ type: 'leading', identity });
      log.info('became leader; starting the sync loop', { identity });
      runDone = ctl.run(signal).catch((e: unknown) => {
        log.error('sync loop ended with an error', { error: (e as Error).message });
      });
      return runDone;
    },
    onStoppedLeading: () => {
      leading = false;
      if (stopping === undefined) {
        log.error('leaderelection lost', { identity });
        emit({ type: 'leadershipLost', identity });
      }
    },
  });
  let srv: { url: string; close(): Promise<void> };
  try {
    srv = await serveMetrics(options, client, registry, log);
  } catch (e) {
    await client.close();
    throw e;
  }
  const electing = elector.run().catch((e: unknown) => {
    log.error('leader election failed', { error: (e as Error).message });
  });
  const api: RunningCvo = {
    metricsUrl: srv.url,
    events,
    writes: () => ({ ...ctl.applier.writes }),
    isLeader: () => leading,
    stop: () => {
      stopping ??= (async () => {
        log.info('stopping: finishing the current step, releasing the lease');
        await elector.stop({ release: true });
        await runDone;
        await electing;
        await poller.close();
        await srv.close();
        await client.close();
      })();
      return stopping;
    },
  };
  return api;
}
