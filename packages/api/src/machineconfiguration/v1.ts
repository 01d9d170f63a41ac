/**
 * `machineconfiguration.openshift.io/v1` kinds, following openshift/api `machineconfiguration/v1/types.go`
 * and the shipped CRDs: MachineConfig, MachineConfigPool, ControllerConfig, KubeletConfig, ContainerRuntimeConfig,
 * MachineConfigNode.
 */
import type {
  Condition,
  IntOrString,
  KubeObject,
  LabelSelector,
  MetaCondition,
  ObjectReference,
  Time,
} from '../core/meta.js';

/** Kernel type of a MachineConfig (`""` and `default` mean the default kernel). */
export type KernelType = '' | 'default' | 'realtime' | '64k-pages' | (string & {});

/** `MachineConfigSpec`. */
export interface MachineConfigSpec {
  /** OS container image; empty means no opinion. */
  osImageURL?: string;
  baseOSExtensionsContainerImage?: string;
  /** An Ignition config (spec 2.2 or 3.x), kept as raw JSON. */
  config?: Record<string, unknown> | null;
  /** Kernel arguments (one element may hold several space-separated args); nullable. */
  kernelArguments?: string[] | null;
  /** RHCOS extensions from the allow-list (`usbguard`, `kerberos`, `kernel-devel`, ...). */
  extensions?: string[];
  fips?: boolean;
  kernelType?: KernelType;
}

/** `machineconfiguration.openshift.io/v1` MachineConfig (cluster-scoped). */
export interface MachineConfig extends KubeObject {
  spec?: MachineConfigSpec;
}

/** `MachineConfigPoolStatusConfiguration`: the rendered MachineConfig and the MachineConfigs it was built from. */
export interface MachineConfigPoolStatusConfiguration extends ObjectReference {
  source?: ObjectReference[];
}

/** `MachineConfigPoolSpec`. */
export interface MachineConfigPoolSpec {
  /** Which MachineConfigs compose the pool (by their labels). */
  machineConfigSelector?: LabelSelector;
  /** Which nodes belong to the pool. */
  nodeSelector?: LabelSelector;
  /** When true no node gets a new desiredConfig (rendering still happens). */
  paused?: boolean;
  /** An integer or a percentage string such as `"50%"` (default 1). */
  maxUnavailable?: IntOrString;
  /** The target rendered MachineConfig (written by the render controller). */
  configuration?: MachineConfigPoolStatusConfiguration;
  pinnedImageSets?: Array<{ name: string }>;
  osImageStream?: { name: string };
}

/** A MachineConfigPool condition type; known types are listed, other strings accepted. */
export type MachineConfigPoolConditionType =
  | 'Updated'
  | 'Updating'
  | 'NodeDegraded'
  | 'RenderDegraded'
  | 'Degraded'
  | 'ImageBuildDegraded'
  | 'PinnedImageSetsDegraded'
  | 'PoolSynchronizerDegraded'
  | 'BuildPending'
  | 'Building'
  | 'BuildSuccess'
  | 'BuildFailed'
  | 'BuildInterrupted'
  | (string & {});

/** `MachineConfigPoolCondition` (every field optional in the CRD; `lastTransitionTime` nullable). */
export interface MachineConfigPoolCondition extends Condition {
  type: MachineConfigPoolConditionType;
}

/** `CertExpiry`: a certificate of a bundle and its expiry. */
export interface CertExpiry {
  bundle: string;
  subject: string;
  expiry?: Time;
}

/** `PoolSynchronizerStatus` (PinnedImageSets). */
export interface PoolSynchronizerStatus {
  poolSynchronizerType: 'PinnedImageSets';
  machineCount: number;
  updatedMachineCount: number;
  readyMachineCount: number;
  availableMachineCount: number;
  unavailableMachineCount: number;
  observedGeneration?: number;
}

/** `MachineConfigPoolStatus`. */
export interface MachineConfigPoolStatus {
  observedGeneration?: number;
  /** The rendered MachineConfig all nodes have completed. */
  configuration?: MachineConfigPoolStatusConfiguration;
  machineCount?: number;
  updatedMachineCount?: number;
  readyMachineCount?: number;
  unavailableMachineCount?: number;
  degradedMachineCount?: number;
  conditions?: MachineConfigPoolCondition[];
  certExpirys?: CertExpiry[];
  poolSynchronizersStatus?: PoolSynchronizerStatus[];
  osImageStream?: { name: string };
}

/** `machineconfiguration.openshift.io/v1` MachineConfigPool (cluster-scoped). */
export interface MachineConfigPool extends KubeObject {
  spec: MachineConfigPoolSpec;
  status?: MachineConfigPoolStatus;
}

/** A file of a certificate bundle in ControllerConfig (`ImageRegistryBundle`). */
export interface ImageRegistryBundle {
  file: string;
  /** base64 */
  data: string;
}

/** The parts of `config.openshift.io/v1` Infrastructure that ControllerConfig embeds and the MCO reads. */
export interface EmbeddedInfrastructure {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
  spec: {
    platformSpec?: { type?: string } & Record<string, unknown>;
    cloudConfig?: { name?: string; key?: string };
  } & Record<string, unknown>;
  status?: {
    infrastructureName?: string;
    platform?: string;
    platformStatus?: { type?: string } & Record<string, unknown>;
    etcdDiscoveryDomain?: string;
    apiServerURL?: string;
    apiServerInternalURI?: string;
    /** `HighlyAvailable`, `SingleReplica`, `External`, `HighlyAvailableArbiter`, `DualReplica`. */
    controlPlaneTopology?: string;
    infrastructureTopology?: string;
    cpuPartitioning?: string;
  } & Record<string, unknown>;
}

/** `ControllerConfigSpec`: cluster facts the MCO templates and renders from. */
export interface ControllerConfigSpec {
  clusterDNSIP: string;
  cloudProviderConfig: string;
  /** Deprecated; `infra.status.platformStatus.type` is used. */
  platform?: string;
  etcdDiscoveryDomain?: string;
  /** base64 */
  kubeAPIServerServingCAData: string;
  /** base64 */
  rootCAData: string;
  /** base64, nullable */
  cloudProviderCAData: string | null;
  /** base64, nullable */
  additionalTrustBundle: string | null;
  imageRegistryBundleUserData?: ImageRegistryBundle[];
  imageRegistryBundleData?: ImageRegistryBundle[];
  pullSecret?: ObjectReference;
  /** base64 docker config, nullable */
  internalRegistryPullSecret?: string | null;
  /** Images by role (`machineConfigOperator`, `infraImage`, `keepalivedImage`, ...). */
  images: Record<string, string>;
  /** The default OS image used by the render controller. */
  baseOSContainerImage: string;
  baseOSExtensionsContainerImage?: string;
  /** Legacy: no longer used by render. */
  osImageURL?: string;
  releaseImage: string;
  proxy: { httpProxy?: string; httpsProxy?: string; noProxy?: string } | null;
  infra: EmbeddedInfrastructure | null;
  /** `config.openshift.io/v1` DNS, embedded. */
  dns: Record<string, unknown> | null;
  /** `IPv4`, `IPv6`, `DualStack`, `DualStackIPv6Primary`. */
  ipFamilies: string;
  networkType?: string;
  network: { mtuMigration: Record<string, unknown> | null } | null;
}

/** `ControllerCertificate`: a certificate found in ControllerConfig bundles. */
export interface ControllerCertificate {
  subject: string;
  signer: string;
  notBefore?: Time;
  notAfter?: Time;
  bundleFile: string;
}

/** ControllerConfig condition types: `TemplateControllerRunning`, `TemplateControllerCompleted`, `TemplateControllerFailing`. */
export interface ControllerConfigStatusCondition extends Condition {
  lastTransitionTime: Time | null;
}

/** `ControllerConfigStatus`. */
export interface ControllerConfigStatus {
  observedGeneration?: number;
  conditions?: ControllerConfigStatusCondition[];
  controllerCertificates?: ControllerCertificate[];
}

/** `machineconfiguration.openshift.io/v1` ControllerConfig (singleton `machine-config-controller`). */
export interface ControllerConfig extends KubeObject {
  spec: ControllerConfigSpec;
  status?: ControllerConfigStatus;
}

/** A condition of KubeletConfig / ContainerRuntimeConfig (`Success`, `Failure`, `Accepted`; every field optional in the CRD). */
export type ConfigStatusCondition = Condition;

/** TLS security profile (`config.openshift.io/v1` TLSSecurityProfile). */
export interface TLSSecurityProfile {
  type?: 'Old' | 'Intermediate' | 'Modern' | 'Custom';
  old?: Record<string, never> | null;
  intermediate?: Record<string, never> | null;
  modern?: Record<string, never> | null;
  custom?: {
    ciphers?: string[];
    minTLSVersion?: 'VersionTLS10' | 'VersionTLS11' | 'VersionTLS12' | 'VersionTLS13';
  } | null;
}

/** `KubeletConfigSpec`. */
export interface KubeletConfigSpec {
  autoSizingReserved?: boolean;
  /** 0-10. */
  logLevel?: number;
  /** Selects pools by their labels (e.g. `pools.operator.machineconfiguration.openshift.io/worker: ""`). */
  machineConfigPoolSelector?: LabelSelector;
  /** A KubeletConfiguration fragment (raw JSON). */
  kubeletConfig?: Record<string, unknown>;
  tlsSecurityProfile?: TLSSecurityProfile;
}

/** Status of KubeletConfig and ContainerRuntimeConfig. */
export interface GeneratedConfigStatus {
  observedGeneration?: number;
  conditions?: ConfigStatusCondition[];
}

/** `machineconfiguration.openshift.io/v1` KubeletConfig (cluster-scoped). */
export interface KubeletConfig extends KubeObject {
  spec: KubeletConfigSpec;
  status?: GeneratedConfigStatus;
}

/** `ContainerRuntimeConfiguration`. */
export interface ContainerRuntimeConfiguration {
  pidsLimit?: number;
  logLevel?: string;
  logSizeMax?: IntOrString;
  overlaySize?: IntOrString;
  defaultRuntime?: 'crun' | 'runc' | '';
  additionalLayerStores?: Array<{ path: string }>;
  additionalImageStores?: Array<{ path: string }>;
  additionalArtifactStores?: Array<{ path: string }>;
}

/** `ContainerRuntimeConfigSpec`. */
export interface ContainerRuntimeConfigSpec {
  machineConfigPoolSelector?: LabelSelector;
  containerRuntimeConfig: ContainerRuntimeConfiguration;
}

/** `machineconfiguration.openshift.io/v1` ContainerRuntimeConfig (cluster-scoped). */
export interface ContainerRuntimeConfig extends KubeObject {
  spec: ContainerRuntimeConfigSpec;
  status?: GeneratedConfigStatus;
}

/** `MachineConfigNodeSpec`. */
export interface MachineConfigNodeSpec {
  node: { name: string };
  pool: { name: string };
  configVersion: { desired: string };
}

/** `MachineConfigNodeStatus`. */
export interface MachineConfigNodeStatus {
  observedGeneration?: number;
  conditions?: MetaCondition[];
  configVersion?: { current?: string; desired: string };
  pinnedImageSets?: Array<{
    name: string;
    currentGeneration?: number;
    desiredGeneration?: number;
    lastFailedGeneration?: number;
    lastFailedGenerationError?: string;
  }>;
  irreconcilableChanges?: Array<{ fieldPath: string; diff: string }>;
}

/** `machineconfiguration.openshift.io/v1` MachineConfigNode (cluster-scoped, one per node, named after it). */
export interface MachineConfigNode extends KubeObject {
  spec: MachineConfigNodeSpec;
  status?: MachineConfigNodeStatus;
}
