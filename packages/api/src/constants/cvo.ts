/**
 * Constants of the Cluster Version Operator: manifest annotations, cluster profiles, feature sets, capability sets,
 * ClusterVersion / ClusterOperator condition types and the reasons the CVO writes (openshift/cluster-version-operator
 * `lib/manifest`, `pkg/cvo`, `pkg/payload`).
 */
import type { ClusterVersionCapability, ClusterVersionCapabilitySet } from '../config/v1.js';

/** Manifest annotations read by the CVO when it loads and applies a release payload. */
export const CVO_ANNOTATIONS = {
  /** `"true"`: create when missing, never update afterwards. */
  createOnly: 'release.openshift.io/create-only',
  /** `"true"`: delete the object instead of applying it. */
  delete: 'release.openshift.io/delete',
  /** Comma list of feature sets (`Default`, `TechPreviewNoUpgrade`, ...) the manifest belongs to. */
  featureSet: 'release.openshift.io/feature-set',
  /** Comma list of feature gates (`X` or `-X`) the manifest requires. */
  featureGate: 'release.openshift.io/feature-gate',
  /** Comma list of major versions (`4`, `-5`); CRDs and FeatureGates only. */
  majorVersion: 'release.openshift.io/major-version',
  /** On a ConfigMap: the signature-verification root of trust. */
  verificationConfigMap: 'release.openshift.io/verification-config-map',
  /** `+`-separated capability names the manifest belongs to. */
  capabilityName: 'capability.openshift.io/name',
  /** On Deployments/DaemonSets: containers that receive HTTP(S)_PROXY/NO_PROXY from Proxy/cluster. */
  injectProxy: 'config.openshift.io/inject-proxy',
} as const;

/** `include.release.openshift.io/<profile>`: the manifest is part of that cluster profile when `"true"`. */
export const INCLUDE_ANNOTATION_PREFIX = 'include.release.openshift.io/';
/** `exclude.release.openshift.io/<identifier>`: excluded when `"true"` and the CVO runs with that identifier. */
export const EXCLUDE_ANNOTATION_PREFIX = 'exclude.release.openshift.io/';

/** The profile annotation key for a cluster profile. */
export function includeAnnotation(profile: ClusterProfile): string {
  return `${INCLUDE_ANNOTATION_PREFIX}${profile}`;
}

/** The exclusion annotation key for an exclude identifier. */
export function excludeAnnotation(identifier: string): string {
  return `${EXCLUDE_ANNOTATION_PREFIX}${identifier}`;
}

/** Known cluster profiles; any string is accepted for forward compatibility. */
export type ClusterProfile =
  'self-managed-high-availability' | 'single-node-developer' | 'ibm-cloud-managed' | 'hypershift' | (string & {});
/** The known cluster profiles (the first is the default). */
export const CLUSTER_PROFILES = [
  'self-managed-high-availability',
  'single-node-developer',
  'ibm-cloud-managed',
  'hypershift',
] as const;
/** The default cluster profile. */
export const DEFAULT_CLUSTER_PROFILE = 'self-managed-high-availability';

/** Feature sets as spelled in the feature-set annotation (the API's `""` is `Default`). */
export type FeatureSet =
  'Default' | 'TechPreviewNoUpgrade' | 'DevPreviewNoUpgrade' | 'CustomNoUpgrade' | 'OKD' | (string & {});
/** The known feature sets. */
export const FEATURE_SETS = [
  'Default',
  'TechPreviewNoUpgrade',
  'DevPreviewNoUpgrade',
  'CustomNoUpgrade',
  'OKD',
] as const;

/** Every capability the CVO knows (order as upstream's `KnownClusterVersionCapabilities`). */
export const KNOWN_CAPABILITIES = [
  'baremetal',
  'Console',
  'Insights',
  'marketplace',
  'Storage',
  'openshift-samples',
  'CSISnapshot',
  'NodeTuning',
  'MachineAPI',
  'Build',
  'DeploymentConfig',
  'ImageRegistry',
  'OperatorLifecycleManager',
  'OperatorLifecycleManagerV1',
  'CloudCredential',
  'Ingress',
  'CloudControllerManager',
  'CompatibilityRequirements',
  'ClusterAPI',
] as const satisfies readonly ClusterVersionCapability[];

const V4_11 = ['baremetal', 'marketplace', 'openshift-samples', 'MachineAPI'] as const;
const V4_12 = [...V4_11, 'Console', 'Insights', 'Storage', 'CSISnapshot'] as const;
const V4_13 = [...V4_12, 'NodeTuning'] as const;
const V4_14 = [...V4_13, 'Build', 'DeploymentConfig', 'ImageRegistry'] as const;
const V4_15 = [...V4_14, 'OperatorLifecycleManager', 'CloudCredential'] as const;
const V4_16 = [...V4_15, 'Ingress', 'CloudControllerManager'] as const;
const V4_18 = [...V4_16, 'OperatorLifecycleManagerV1'] as const;

/** The capabilities of each baseline capability set (`vCurrent` = every known capability). */
export const CAPABILITY_SETS: Readonly<
  Record<Exclude<ClusterVersionCapabilitySet, ''>, readonly ClusterVersionCapability[] | undefined>
> = {
  None: [],
  'v4.11': V4_11,
  'v4.12': V4_12,
  'v4.13': V4_13,
  'v4.14': V4_14,
  'v4.15': V4_15,
  'v4.16': V4_16,
  'v4.17': V4_16,
  'v4.18': V4_18,
  vCurrent: KNOWN_CAPABILITIES,
};

/** The default baseline capability set. */
export const DEFAULT_CAPABILITY_SET = 'vCurrent';

/** Update service URL used when `spec.upstream` is empty. */
export const DEFAULT_UPSTREAM = 'https://api.openshift.com/api/upgrades_info/v1/graph';

/** Condition types of ClusterVersion. */
export const CLUSTER_VERSION_CONDITIONS = {
  Available: 'Available',
  Progressing: 'Progressing',
  Failing: 'Failing',
  RetrievedUpdates: 'RetrievedUpdates',
  ReleaseAccepted: 'ReleaseAccepted',
  Upgradeable: 'Upgradeable',
  ImplicitlyEnabledCapabilities: 'ImplicitlyEnabledCapabilities',
  Invalid: 'Invalid',
  /** Type of the condition of each conditional update. */
  Recommended: 'Recommended',
  /** Type of the condition of each conditional update risk (TechPreview). */
  Applies: 'Applies',
} as const;

/** Condition types of ClusterOperator. */
export const CLUSTER_OPERATOR_CONDITIONS = {
  Available: 'Available',
  Progressing: 'Progressing',
  Degraded: 'Degraded',
  Upgradeable: 'Upgradeable',
  EvaluationConditionsDetected: 'EvaluationConditionsDetected',
} as const;

/** Reasons the CVO writes on ClusterVersion conditions (and carries in its update errors). */
export const CVO_REASONS = {
  // task errors (by API error class)
  UpdatePayloadResourceNotFound: 'UpdatePayloadResourceNotFound',
  UpdatePayloadResourceConflict: 'UpdatePayloadResourceConflict',
  UpdatePayloadClusterDown: 'UpdatePayloadClusterDown',
  UpdatePayloadClusterError: 'UpdatePayloadClusterError',
  UpdatePayloadResourceInvalid: 'UpdatePayloadResourceInvalid',
  UpdatePayloadClusterUnauthorized: 'UpdatePayloadClusterUnauthorized',
  UpdatePayloadResourceForbidden: 'UpdatePayloadResourceForbidden',
  UpdatePayloadClusterOverloaded: 'UpdatePayloadClusterOverloaded',
  UpdatePayloadResourceTypeMissing: 'UpdatePayloadResourceTypeMissing',
  UpdatePayloadFailed: 'UpdatePayloadFailed',
  UpdatePayloadIntegrity: 'UpdatePayloadIntegrity',
  UpdatePayloadRetrievalFailed: 'UpdatePayloadRetrievalFailed',
  ImageVerificationFailed: 'ImageVerificationFailed',
  UpgradePreconditionCheckFailed: 'UpgradePreconditionCheckFailed',
  // ClusterOperator checks
  ClusterOperatorNoVersions: 'ClusterOperatorNoVersions',
  ClusterOperatorNotAvailable: 'ClusterOperatorNotAvailable',
  ClusterOperatorsNotAvailable: 'ClusterOperatorsNotAvailable',
  ClusterOperatorDegraded: 'ClusterOperatorDegraded',
  ClusterOperatorsDegraded: 'ClusterOperatorsDegraded',
  ClusterOperatorUpdating: 'ClusterOperatorUpdating',
  ClusterOperatorsUpdating: 'ClusterOperatorsUpdating',
  SlowClusterOperator: 'SlowClusterOperator',
  // workload checks
  WorkloadNotAvailable: 'WorkloadNotAvailable',
  WorkloadNotProgressing: 'WorkloadNotProgressing',
  // ReleaseAccepted steps
  RetrievePayload: 'RetrievePayload',
  LoadPayload: 'LoadPayload',
  VerifyPayloadVersion: 'VerifyPayloadVersion',
  PreconditionChecks: 'PreconditionChecks',
  PayloadLoaded: 'PayloadLoaded',
  // RetrievedUpdates
  NoUpstream: 'NoUpstream',
  InvalidURI: 'InvalidURI',
  InvalidID: 'InvalidID',
  NoArchitecture: 'NoArchitecture',
  NoCurrentVersion: 'NoCurrentVersion',
  NoChannel: 'NoChannel',
  InvalidCurrentVersion: 'InvalidCurrentVersion',
  InvalidRequest: 'InvalidRequest',
  RemoteFailed: 'RemoteFailed',
  ResponseFailed: 'ResponseFailed',
  ResponseInvalid: 'ResponseInvalid',
  VersionNotFound: 'VersionNotFound',
  Unknown: 'Unknown',
  // Upgradeable
  MultipleReasons: 'MultipleReasons',
  EvaluationFailed: 'EvaluationFailed',
  RiskNameNotCompatibleWithReasonProperty: 'RiskNameNotCompatibleWithReasonProperty',
  ClusterVersionOverridesSet: 'ClusterVersionOverridesSet',
  ResourceDeletesInProgress: 'ResourceDeletesInProgress',
  UpdateInProgress: 'UpdateInProgress',
  // capabilities, validity, desired image
  CapabilitiesImplicitlyEnabled: 'CapabilitiesImplicitlyEnabled',
  AsExpected: 'AsExpected',
  InvalidClusterVersion: 'InvalidClusterVersion',
  NoDesiredImage: 'NoDesiredImage',
} as const;

/** Sync worker states. */
export const SYNC_STATES = ['Initializing', 'Updating', 'Reconciling'] as const;

/** Namespace, Lease and labels of the CVO itself. */
export const CVO_NAMES = {
  namespace: 'openshift-cluster-version',
  /** Lease name used for leader election (in {@link CVO_NAMES.namespace}). */
  leaseName: 'version',
  /** Label of the payload retrieval pod. */
  retrievePodLabel: { 'k8s-app': 'retrieve-openshift-release' },
  /** ConfigMap with admin gates (`ack-<4.y>-<description>` keys). */
  adminGatesConfigMap: { namespace: 'openshift-config-managed', name: 'admin-gates' },
  /** ConfigMap with admin acknowledgements. */
  adminAcksConfigMap: { namespace: 'openshift-config', name: 'admin-acks' },
} as const;
