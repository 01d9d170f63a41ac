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
import type { ControllerDurations } from '@keelson/machineconfig';

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
  timeScale = 1,
): EventRecorder {
  // the spam filter and the similar-event window run on the controller's (possibly compressed) clock
  return new EventRecorder(client, { component, logger, clockRate: timeScale });
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
