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
  labelIndex,
  type KubeClient,
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
  recorder: EventRecorder;
  logger: Logger;
  registry: Registry;
  durations: ControllerDurations;
  /** Wall clock (conditions, drain thresholds). */
  now: () => Date;
}

/** Creates the shared informers (not started). */
export function createSharedInformers(client: KubeClient, logger: Logger): SharedInformers {
  const mk = <T extends KubeObject>(
    d: ResourceDescriptor<T>,
    extra: ConstructorParameters<typeof Informer<T>>[2] = {},
  ): Informer<T> => new Informer<T>(client, d, { logger: logger.child({ informer: d.plural }), ...extra });
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
