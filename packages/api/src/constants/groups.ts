/** API groups, versions and the kinds served from the shipped CRDs. */

/** `config.openshift.io`. */
export const API_GROUP_CONFIG = 'config.openshift.io';
/** `machineconfiguration.openshift.io`. */
export const API_GROUP_MACHINECONFIGURATION = 'machineconfiguration.openshift.io';
/** `operator.openshift.io`. */
export const API_GROUP_OPERATOR = 'operator.openshift.io';

/** Group, version, kind, plural and scope of a served kind. */
export interface KindInfo {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

function clusterKind(group: string, kind: string, plural: string): KindInfo {
  return { group, version: 'v1', kind, plural, namespaced: false };
}

/**
 * The OpenShift kinds this package types, keyed by kind. All are cluster-scoped kinds with a CRD in {@link crdFiles}
 * (`v1`, except ImageContentSourcePolicy: `operator.openshift.io/v1alpha1`).
 */
export const OPENSHIFT_KINDS = {
  ClusterVersion: clusterKind(API_GROUP_CONFIG, 'ClusterVersion', 'clusterversions'),
  ClusterOperator: clusterKind(API_GROUP_CONFIG, 'ClusterOperator', 'clusteroperators'),
  MachineConfig: clusterKind(API_GROUP_MACHINECONFIGURATION, 'MachineConfig', 'machineconfigs'),
  MachineConfigPool: clusterKind(API_GROUP_MACHINECONFIGURATION, 'MachineConfigPool', 'machineconfigpools'),
  ControllerConfig: clusterKind(API_GROUP_MACHINECONFIGURATION, 'ControllerConfig', 'controllerconfigs'),
  KubeletConfig: clusterKind(API_GROUP_MACHINECONFIGURATION, 'KubeletConfig', 'kubeletconfigs'),
  ContainerRuntimeConfig: clusterKind(
    API_GROUP_MACHINECONFIGURATION,
    'ContainerRuntimeConfig',
    'containerruntimeconfigs',
  ),
  MachineConfigNode: clusterKind(API_GROUP_MACHINECONFIGURATION, 'MachineConfigNode', 'machineconfignodes'),
  MachineConfiguration: clusterKind(API_GROUP_OPERATOR, 'MachineConfiguration', 'machineconfigurations'),
  Image: clusterKind(API_GROUP_CONFIG, 'Image', 'images'),
  ImageDigestMirrorSet: clusterKind(API_GROUP_CONFIG, 'ImageDigestMirrorSet', 'imagedigestmirrorsets'),
  ImageTagMirrorSet: clusterKind(API_GROUP_CONFIG, 'ImageTagMirrorSet', 'imagetagmirrorsets'),
  ImageContentSourcePolicy: {
    group: API_GROUP_OPERATOR,
    version: 'v1alpha1',
    kind: 'ImageContentSourcePolicy',
    plural: 'imagecontentsourcepolicies',
    namespaced: false,
  },
} as const satisfies Record<string, KindInfo>;

/** Name of one of the typed OpenShift kinds. */
export type OpenShiftKind = keyof typeof OPENSHIFT_KINDS;

/** `apiVersion` of a kind (`group/version`, or `version` for the core group). */
export function apiVersionOf(k: Pick<KindInfo, 'group' | 'version'>): string {
  return k.group === '' ? k.version : `${k.group}/${k.version}`;
}

/** Conventional singleton names. */
export const SINGLETON_NAMES = {
  /** The ClusterVersion object. */
  clusterVersion: 'version',
  /** The ControllerConfig object written by the MCO. */
  controllerConfig: 'machine-config-controller',
  /** The MachineConfiguration object. */
  machineConfiguration: 'cluster',
  /** The MCO's ClusterOperator. */
  machineConfigClusterOperator: 'machine-config',
} as const;
