import type {
  ClusterOperator,
  ClusterVersion,
  ConfigMap,
  ContainerRuntimeConfig,
  ControllerConfig,
  CoreEvent,
  KubeObject,
  KubeletConfig,
  Lease,
  MachineConfig,
  MachineConfigNode,
  MachineConfigPool,
  MachineConfiguration,
  Namespace,
} from '@keelson/api';

/**
 * Where a kind lives in the REST API. The phantom type `T` carries the object type so that
 * `client.resource(ClusterVersions)` is typed as `ResourceClient<ClusterVersion>`.
 */
export interface ResourceDescriptor<T extends KubeObject = KubeObject> {
  /** API group (`''` for the core group). */
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural used in URLs. */
  plural: string;
  namespaced: boolean;
  /** Phantom field: never set, only carries `T`. */
  readonly __type?: T;
}

/** Declare a resource descriptor for kind `T`. */
export function defineResource<T extends KubeObject>(d: Omit<ResourceDescriptor<T>, '__type'>): ResourceDescriptor<T> {
  return d;
}

/** `apiVersion` string of a descriptor (`v1` or `group/version`). */
export function apiVersionOf(d: ResourceDescriptor): string {
  return d.group === '' ? d.version : `${d.group}/${d.version}`;
}

/** `config.openshift.io/v1` ClusterVersion. */
export const ClusterVersions = defineResource<ClusterVersion>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'ClusterVersion',
  plural: 'clusterversions',
  namespaced: false,
});
/** `config.openshift.io/v1` ClusterOperator. */
export const ClusterOperators = defineResource<ClusterOperator>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'ClusterOperator',
  plural: 'clusteroperators',
  namespaced: false,
});
/** `machineconfiguration.openshift.io/v1` MachineConfig. */
export const MachineConfigs = defineResource<MachineConfig>({
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  kind: 'MachineConfig',
  plural: 'machineconfigs',
  namespaced: false,
});
/** `machineconfiguration.openshift.io/v1` MachineConfigPool. */
export const MachineConfigPools = defineResource<MachineConfigPool>({
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  kind: 'MachineConfigPool',
  plural: 'machineconfigpools',
  namespaced: false,
});
/** `machineconfiguration.openshift.io/v1` KubeletConfig. */
export const KubeletConfigs = defineResource<KubeletConfig>({
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  kind: 'KubeletConfig',
  plural: 'kubeletconfigs',
  namespaced: false,
});
/** `machineconfiguration.openshift.io/v1` ContainerRuntimeConfig. */
export const ContainerRuntimeConfigs = defineResource<ContainerRuntimeConfig>({
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  kind: 'ContainerRuntimeConfig',
  plural: 'containerruntimeconfigs',
  namespaced: false,
});
/** `machineconfiguration.openshift.io/v1` ControllerConfig. */
export const ControllerConfigs = defineResource<ControllerConfig>({
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  kind: 'ControllerConfig',
  plural: 'controllerconfigs',
  namespaced: false,
});
/** `machineconfiguration.openshift.io/v1` MachineConfigNode. */
export const MachineConfigNodes = defineResource<MachineConfigNode>({
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  kind: 'MachineConfigNode',
  plural: 'machineconfignodes',
  namespaced: false,
});
/** `operator.openshift.io/v1` MachineConfiguration. */
export const MachineConfigurations = defineResource<MachineConfiguration>({
  group: 'operator.openshift.io',
  version: 'v1',
  kind: 'MachineConfiguration',
  plural: 'machineconfigurations',
  namespaced: false,
});
/** `coordination.k8s.io/v1` Lease. */
export const Leases = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
});
/** Core `v1` Event. */
export const Events = defineResource<CoreEvent>({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
});
/** Core `v1` ConfigMap. */
export const ConfigMaps = defineResource<ConfigMap>({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
});
/** Core `v1` Namespace. */
export const Namespaces = defineResource<Namespace>({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
});
