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
import { startMetricsServer } from '../server.js';
import { resolveIntervals, type Intervals } from '../sync/intervals.js';
import { UpdatesPoller } from '../updates/poll.js';
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
  /** Metrics/health address (default `0.0.0.0:9099`; port 0 picks a free port). */
  listen?: string;
  servingCertFile?: string;
  servingKeyFile?: string;
  /** Update service URL overriding `spec.upstream`. */
  updateService?: string;
  /** PromQL endpoint for conditional-update risks (e.g. the in-cluster Thanos querier). */
  promqlTarget?: string;
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
  const poller = new UpdatesPoller({
    ...(options.updateService ? { updateService: options.updateService } : {}),
    ...(options.promqlTarget ? { promqlTarget: options.promqlTarget } : {}),
    userAgent: 'ClusterVersionOperator/keelson',
  });
  const registry = new Registry();
  const holder: { controller?: ClusterVersionController } = {};
  const { payloadErrors } = registerMetrics(registry, {
    cv: () => holder.controller?.cv,
    operators: () => holder.controller?.operators.store.list() ?? [],
    current: () => ({
      version: localPayload.metadata.version,
      image: options.releaseImage,
      created: Date.parse(localPayload.imageReferences.creationTimestamp ?? '') || 0,
    }),
    payload: () => holder.controller?.payloadProgress(),
    capabilities: () => holder.controller?.capabilities() ?? { enabled: [], known: [] },
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
  const identity = options.identity ?? `${hostname()}_${randomUUID()}`;
  let leading = false;
  let stopping: Promise<void> | undefined;
  let runDone: Promise<void> = Promise.resolve();
  const elector = new LeaderElector({
    client,
    namespace: 'openshift-cluster-version',
    name: 'version',
    identity,
    leaseDurationMs: intervals.leaseDurationMs,
    renewDeadlineMs: intervals.renewDeadlineMs,
    retryPeriodMs: intervals.retryPeriodMs,
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
  let server;
  try {
    server = await startMetricsServer({
      listen: options.listen ?? '0.0.0.0:9099',
      registry,
      ready: () => true,
      ...(options.servingCertFile ? { certFile: options.servingCertFile } : {}),
      ...(options.servingKeyFile ? { keyFile: options.servingKeyFile } : {}),
    });
  } catch (e) {
    await client.close();
    throw e;
  }
  const electing = elector.run().catch((e: unknown) => {
    log.error('leader election failed', { error: (e as Error).message });
  });
  const srv = server;
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
