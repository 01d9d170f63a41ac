import type { Condition } from './conditions.js';

/** `metav1.OwnerReference`. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** `metav1.ObjectMeta` (the fields operators use). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

/** Any Kubernetes object. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/** A list as returned by a `list` call. */
export interface KubeList<T extends KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** One event of a watch stream. */
export interface WatchEvent<T extends KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** `coordination.k8s.io/v1` Lease. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** `v1` Event (core events, as `kubectl describe` shows them). */
export interface CoreEvent extends KubeObject {
  involvedObject: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    fieldPath?: string;
  };
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}

// ---- config.openshift.io/v1 ----

/** An update target (`config.openshift.io/v1` `Update`). */
export interface ClusterVersionUpdate {
  version?: string;
  image?: string;
  force?: boolean;
  architecture?: string;
  acceptRisks?: Array<{ name: string }>;
}

/** A released version (`config.openshift.io/v1` `Release`). */
export interface ClusterVersionRelease {
  version?: string;
  image?: string;
  url?: string;
  channels?: string[];
}

/** One entry of `ClusterVersion.status.history`. */
export interface UpdateHistory {
  state: 'Completed' | 'Partial';
  startedTime: string;
  completionTime: string | null;
  version?: string;
  image: string;
  verified: boolean;
  acceptedRisks?: string;
}

/** `config.openshift.io/v1` ClusterVersion (cluster-scoped, conventionally named `version`). */
export interface ClusterVersion extends KubeObject {
  spec: {
    clusterID: string;
    desiredUpdate?: ClusterVersionUpdate;
    upstream?: string;
    channel?: string;
    capabilities?: { baselineCapabilitySet?: string; additionalEnabledCapabilities?: string[] };
    overrides?: Array<{ kind: string; group: string; name: string; namespace: string; unmanaged: boolean }>;
  };
  status?: {
    desired?: ClusterVersionRelease;
    history?: UpdateHistory[];
    observedGeneration?: number;
    versionHash?: string;
    capabilities?: { enabledCapabilities?: string[]; knownCapabilities?: string[] };
    conditions?: Condition[];
    availableUpdates?: ClusterVersionRelease[] | null;
    conditionalUpdates?: Array<{ release: ClusterVersionRelease; risks: Array<{ name: string; url: string; message: string }>; conditions: Condition[] }>;
  };
}

/** `config.openshift.io/v1` ClusterOperator (cluster-scoped). */
export interface ClusterOperator extends KubeObject {
  spec: Record<string, never>;
  status?: {
    conditions?: Condition[];
    versions?: Array<{ name: string; version: string }>;
    relatedObjects?: Array<{ group: string; resource: string; namespace?: string; name: string }>;
    extension?: unknown;
  };
}

// ---- machineconfiguration.openshift.io/v1 ----

/** `machineconfiguration.openshift.io/v1` MachineConfig (cluster-scoped). */
export interface MachineConfig extends KubeObject {
  spec: {
    osImageURL?: string;
    baseOSExtensionsContainerImage?: string;
    /** An Ignition config (any spec 3.x version), kept as raw JSON. */
    config?: Record<string, unknown>;
    kernelArguments?: string[];
    extensions?: string[];
    fips?: boolean;
    kernelType?: string;
  };
}

/** A label selector (`metav1.LabelSelector`). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}

/** The rendered configuration a pool points at. */
export interface MachineConfigPoolConfiguration {
  name?: string;
  source?: Array<{ apiVersion?: string; kind?: string; name?: string }>;
}

/** `machineconfiguration.openshift.io/v1` MachineConfigPool (cluster-scoped). */
export interface MachineConfigPool extends KubeObject {
  spec: {
    machineConfigSelector?: LabelSelector;
    nodeSelector?: LabelSelector;
    paused?: boolean;
    maxUnavailable?: number | string;
    configuration?: MachineConfigPoolConfiguration;
    pinnedImageSets?: Array<{ name: string }>;
  };
  status?: {
    observedGeneration?: number;
    configuration?: MachineConfigPoolConfiguration;
    machineCount?: number;
    updatedMachineCount?: number;
    readyMachineCount?: number;
    unavailableMachineCount?: number;
    degradedMachineCount?: number;
    conditions?: Condition[];
    certExpirys?: Array<{ bundle: string; subject: string; expiry?: string }>;
  };
}

/** `machineconfiguration.openshift.io/v1` KubeletConfig (cluster-scoped). */
export interface KubeletConfig extends KubeObject {
  spec: {
    machineConfigPoolSelector?: LabelSelector;
    kubeletConfig?: Record<string, unknown>;
    autoSizingReserved?: boolean;
    logLevel?: number;
    tlsSecurityProfile?: Record<string, unknown>;
  };
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

/** `machineconfiguration.openshift.io/v1` ContainerRuntimeConfig (cluster-scoped). */
export interface ContainerRuntimeConfig extends KubeObject {
  spec: {
    machineConfigPoolSelector?: LabelSelector;
    containerRuntimeConfig: Record<string, unknown>;
  };
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

/** `machineconfiguration.openshift.io/v1` ControllerConfig (cluster-scoped; spec kept loose). */
export interface ControllerConfig extends KubeObject {
  spec: Record<string, unknown>;
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

/** `machineconfiguration.openshift.io/v1` MachineConfigNode (cluster-scoped). */
export interface MachineConfigNode extends KubeObject {
  spec: {
    node: { name: string };
    pool: { name: string };
    configVersion: { desired: string };
  };
  status?: {
    observedGeneration?: number;
    configVersion?: { current?: string; desired?: string };
    conditions?: Condition[];
  };
}

/** `operator.openshift.io/v1` MachineConfiguration (cluster-scoped, named `cluster`). */
export interface MachineConfiguration extends KubeObject {
  spec: {
    managementState?: 'Managed' | 'Unmanaged' | 'Removed' | 'Force';
    logLevel?: string;
    operatorLogLevel?: string;
    nodeDisruptionPolicy?: Record<string, unknown>;
    managedBootImages?: Record<string, unknown>;
  };
  status?: { observedGeneration?: number; conditions?: Condition[]; nodeDisruptionPolicyStatus?: Record<string, unknown> };
}
