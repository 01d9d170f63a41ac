/**
 * What every controller of the machine-config-controller shares: the API client, one informer per kind (shared
 * caches, like client-go's SharedInformerFactory), the event recorder, the logger, the metrics registry and the
 * configurable durations.
 */
import {
  ContainerRuntimeConfigs,
  ControllerConfigs,
  EventRecorder,
  Informer,
  KubeletConfigs,
  MachineConfigPools,
  MachineConfigs,
  isNotFound,
  labelIndex,
  type KubeClient,
  type Manager,
  type KubeObject,
  type Logger,
  type Registry,
  type ResourceDescriptor,
} from '@keelson/kube';
import type {
  ContainerRuntimeConfig,
  ControllerConfig,
  KubeletConfig,
  MachineConfig,
  MachineConfigPool,
  Node,
  Pod,
} from '../common/api-types.js';
import { MCO_NAMESPACE, OPERATOR_POD_LABEL } from '../common/constants.js';
import { Nodes, Pods } from '../common/resources.js';

/** Durations of the controllers (upstream values by default; tests shorten them). */
export interface ControllerDurations {
  /** Delay of every render enqueue, batching MC churn (upstream 5 s). */
  renderDelayMs: number;
  /** Delay of node-controller pool syncs after node/pool events (upstream 5 s). */
  nodeSyncDelayMs: number;
  /** Delay of drain-controller reactions (upstream 5 s). */
  drainDelayMs: number;
  /** Retry of a failed drain (upstream 1 min), and after the threshold (5 min). */
  drainRequeueMs: number;
  drainRequeueAfterThresholdMs: number;
  /** A drain failing longer than this gets DrainThresholdExceeded and the slower requeue (upstream 10 min). */
  drainThresholdMs: number;
  /** A drain failing longer than this gets DrainFailed (upstream 1 h). */
  drainFailedMs: number;
  /** Wait between eviction retries refused by a PodDisruptionBudget (upstream 5 s). */
  evictionRetryMs: number;
  /** Per-attempt drain timeout (upstream 90 s). */
  drainAttemptTimeoutMs: number;
  /** How long a deleted pod may take to disappear before the drain attempt fails (bounded by the attempt timeout). */
  podDeletePollMs: number;
  /** One minute on this clock: messages that name durations in minutes (as upstream) count in these. */
  minuteMs: number;
}

/** Upstream durations. */
export const DEFAULT_DURATIONS: ControllerDurations = {
  renderDelayMs: 5_000,
  nodeSyncDelayMs: 5_000,
  drainDelayMs: 5_000,
  drainRequeueMs: 60_000,
  drainRequeueAfterThresholdMs: 5 * 60_000,
  drainThresholdMs: 10 * 60_000,
  drainFailedMs: 60 * 60_000,
  evictionRetryMs: 5_000,
  drainAttemptTimeoutMs: 90_000,
  podDeletePollMs: 1_000,
  minuteMs: 60_000,
};

/** Least wait of a poll on a compressed clock: a scaled 1 s poll must not become a busy loop of GETs. */
export const MIN_SCALED_POLL_MS = 100;
/** Least per-attempt drain timeout on a compressed clock (evictions and pod deletions take real time here). */
export const MIN_SCALED_DRAIN_ATTEMPT_MS = 5_000;

/**
 * The upstream durations on a clock `timeScale` times faster (rehearsals: 60 turns the 5 s render delay into 83 ms).
 * Polls keep at least {@link MIN_SCALED_POLL_MS} and a drain attempt at least {@link MIN_SCALED_DRAIN_ATTEMPT_MS}.
 */
export function scaleDurations(d: ControllerDurations, timeScale: number): ControllerDurations {
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`timeScale must be a positive number, got ${String(timeScale)}`);
  const s = (ms: number, floor = 1): number => Math.max(floor, Math.round(ms / timeScale));
  return {
    renderDelayMs: s(d.renderDelayMs),
    nodeSyncDelayMs: s(d.nodeSyncDelayMs),
    drainDelayMs: s(d.drainDelayMs),
    drainRequeueMs: s(d.drainRequeueMs),
    drainRequeueAfterThresholdMs: s(d.drainRequeueAfterThresholdMs),
    drainThresholdMs: s(d.drainThresholdMs),
    drainFailedMs: s(d.drainFailedMs),
    evictionRetryMs: s(d.evictionRetryMs, MIN_SCALED_POLL_MS),
    drainAttemptTimeoutMs: s(d.drainAttemptTimeoutMs, MIN_SCALED_DRAIN_ATTEMPT_MS),
    podDeletePollMs: s(d.podDeletePollMs, MIN_SCALED_POLL_MS),
    minuteMs: d.minuteMs / timeScale,
  };
}

/** Shared informers of the controller process. */
export interface SharedInformers {
  nodes: Informer<Node>;
  pools: Informer<MachineConfigPool>;
  machineConfigs: Informer<MachineConfig>;
  controllerConfigs: Informer<ControllerConfig>;
  kubeletConfigs: Informer<KubeletConfig>;
  containerRuntimeConfigs: Informer<ContainerRuntimeConfig>;
  /** machine-config-operator pods (their node is updated last in the master pool). */
  operatorPods: Informer<Pod>;
}

/** The controllers' shared context. */
export interface ControllerContext {
  client: KubeClient;
  informers: SharedInformers;
  /**
   * The process's `@keelson/kube` Manager: the controllers' other informers and their reads of cluster config
   * singletons come from its shared cache (see {@link informerOf}, {@link clusterSingleton}). Absent: each controller
   * runs its own informers and GETs (tests of one controller).
   */
  manager?: Manager;
  recorder: EventRecorder;
  logger: Logger;
  registry: Registry;
  durations: ControllerDurations;
  /** Wall clock (conditions, drain thresholds). */
  now: () => Date;
}

/**
 * Creates the shared informers (not started): from a Manager, its shared cache (started and stopped by the manager;
 * do not {@link stopSharedInformers} them), else informers of their own on `client`.
 */
export function createSharedInformers(source: KubeClient | Manager, logger: Logger): SharedInformers {
  const mk = <T extends KubeObject>(
    d: ResourceDescriptor<T>,
    extra: Pick<ConstructorParameters<typeof Informer<T>>[2] & object, 'namespace' | 'labelSelector' | 'indexers'> = {},
  ): Informer<T> =>
    isManager(source)
      ? source.informer(d, extra)
      : new Informer<T>(source, d, { logger: logger.child({ informer: d.plural }), ...extra });
  return {
    nodes: mk(Nodes),
    pools: mk(MachineConfigPools),
    machineConfigs: mk(MachineConfigs, { indexers: { role: labelIndex('machineconfiguration.openshift.io/role') } }),
    controllerConfigs: mk(ControllerConfigs),
    kubeletConfigs: mk(KubeletConfigs),
    containerRuntimeConfigs: mk(ContainerRuntimeConfigs),
    operatorPods: mk(Pods, {
      namespace: MCO_NAMESPACE,
      labelSelector: `${OPERATOR_POD_LABEL.key}=${OPERATOR_POD_LABEL.value}`,
    }),
  };
}

/** Starts every shared informer and waits for their caches. */
export async function startSharedInformers(inf: SharedInformers, signal?: AbortSignal): Promise<void> {
  const all = Object.values(inf) as Array<Informer<KubeObject>>;
  for (const i of all) i.start();
  await Promise.all(all.map((i) => i.waitForSync(signal)));
}

/** Stops every shared informer. */
export async function stopSharedInformers(inf: SharedInformers): Promise<void> {
  await Promise.all((Object.values(inf) as Array<Informer<KubeObject>>).map((i) => i.stop()));
}

/** The recorder the controller uses for its events. */
export function createRecorder(
  client: KubeClient,
  logger: Logger,
  component = 'machineconfigcontroller',
): EventRecorder {
  return new EventRecorder(client, { component, logger });
}

function isManager(source: KubeClient | Manager): source is Manager {
  return 'informer' in source;
}

/** The informer a controller watches `d` with: the Manager's shared one (not to be stopped), else its own. */
export function informerOf<T extends KubeObject>(
  ctx: ControllerContext,
  d: ResourceDescriptor<T>,
): { informer: Informer<T>; owned: boolean } {
  if (ctx.manager) return { informer: ctx.manager.informer(d), owned: false };
  return {
    informer: new Informer<T>(ctx.client, d, { logger: ctx.logger.child({ informer: d.plural }) }),
    owned: true,
  };
}

/**
 * The cluster-scoped config singleton `cluster` of a kind (FeatureGate, APIServer, nodes.config): read from the
 * Manager's shared informer once it has synced (upstream's listers), else with a GET; absent → undefined.
 */
export async function clusterSingleton<T extends KubeObject>(
  ctx: ControllerContext,
  d: ResourceDescriptor<T>,
): Promise<T | undefined> {
  const inf = ctx.manager?.informer(d);
  if (inf?.hasSynced() === true) return inf.store.get('cluster');
  try {
    return await ctx.client.resource(d).get('cluster');
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
