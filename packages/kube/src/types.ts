/**
 * Object types used by the client: the Kubernetes and OpenShift shapes come from @keelson/api (re-exported here
 * for compatibility); only the watch-event envelope is specific to this package.
 */
import type { KubeObject } from '@keelson/api';

export type {
  OwnerReference,
  ObjectMeta,
  KubeObject,
  KubeList,
  LabelSelector,
  Lease,
  CoreEvent,
  ConfigMap,
  Secret,
  Namespace,
  Node,
  Pod,
  PodDisruptionBudget,
  UpdateHistory,
  ClusterVersion,
  ClusterOperator,
  MachineConfig,
  MachineConfigPool,
  KubeletConfig,
  ContainerRuntimeConfig,
  ControllerConfig,
  MachineConfigNode,
  MachineConfiguration,
} from '@keelson/api';

/** An update target (`config.openshift.io/v1` `Update`); alias of `Update` from @keelson/api. */
export type ClusterVersionUpdate = import('@keelson/api').Update;
/** A released version (`config.openshift.io/v1` `Release`); alias of `Release` from @keelson/api. */
export type ClusterVersionRelease = import('@keelson/api').Release;
/** The rendered configuration a pool points at; alias of `MachineConfigPoolStatusConfiguration` from @keelson/api. */
export type MachineConfigPoolConfiguration = import('@keelson/api').MachineConfigPoolStatusConfiguration;

/** One event of a watch stream. */
export interface WatchEvent<T extends KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}
