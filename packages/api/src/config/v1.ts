/**
 * `config.openshift.io/v1` ClusterVersion and ClusterOperator, following openshift/api `config/v1`
 * (`types_cluster_version.go`, `types_cluster_operator.go`) and the shipped CRDs.
 */
import type { Condition, KubeObject, MetaCondition, Time } from '../core/meta.js';

/** A capability name (`ClusterVersionCapability`); known names are listed, any string is accepted for forward compatibility. */
export type ClusterVersionCapability =
  | 'openshift-samples'
  | 'baremetal'
  | 'marketplace'
  | 'Console'
  | 'Insights'
  | 'Storage'
  | 'CSISnapshot'
  | 'NodeTuning'
  | 'MachineAPI'
  | 'Build'
  | 'DeploymentConfig'
  | 'ImageRegistry'
  | 'OperatorLifecycleManager'
  | 'CloudCredential'
  | 'Ingress'
  | 'CloudControllerManager'
  | 'OperatorLifecycleManagerV1'
  | 'CompatibilityRequirements'
  | 'ClusterAPI'
  | (string & {});

/** A baseline capability set (`ClusterVersionCapabilitySet`). */
export type ClusterVersionCapabilitySet =
  'None' | 'v4.11' | 'v4.12' | 'v4.13' | 'v4.14' | 'v4.15' | 'v4.16' | 'v4.17' | 'v4.18' | 'vCurrent' | (string & {});

/** `ClusterVersionCapabilitiesSpec`. */
export interface ClusterVersionCapabilitiesSpec {
  /** Default `vCurrent`. */
  baselineCapabilitySet?: ClusterVersionCapabilitySet;
  additionalEnabledCapabilities?: ClusterVersionCapability[];
}

/** `ClusterVersionCapabilitiesStatus`. */
export interface ClusterVersionCapabilitiesStatus {
  enabledCapabilities?: ClusterVersionCapability[];
  knownCapabilities?: ClusterVersionCapability[];
}

/** `ClusterVersionArchitecture`: `Multi` or empty (the cluster's current architecture). */
export type ClusterVersionArchitecture = 'Multi' | '';

/** A risk accepted by name (`desiredUpdate.acceptRisks[]`, feature gate ClusterUpdateAcceptRisks). */
export interface AcceptRisk {
  name: string;
}

/** `Update`: the requested target of `spec.desiredUpdate`. */
export interface Update {
  architecture?: ClusterVersionArchitecture;
  version?: string;
  image?: string;
  force?: boolean;
  /** TechPreview (feature gate ClusterUpdateAcceptRisks). */
  acceptRisks?: AcceptRisk[];
  /** TechPreview (feature gate ClusterUpdatePreflight): `Preflight` only evaluates. */
  mode?: 'Preflight' | '';
}

/** `ComponentOverride`: marks one manifest unmanaged. */
export interface ComponentOverride {
  kind: string;
  group: string;
  namespace: string;
  name: string;
  unmanaged: boolean;
}

/** `SignatureStore` (TechPreview, feature gate SignatureStores). */
export interface SignatureStore {
  url: string;
  ca?: { name: string };
}

/** `ClusterVersionSpec`. */
export interface ClusterVersionSpec {
  /** RFC 4122 version-4 UUID identifying the cluster to the update service. */
  clusterID: string;
  desiredUpdate?: Update;
  /** Update service URL (default `https://api.openshift.com/api/upgrades_info/v1/graph`). */
  upstream?: string;
  channel?: string;
  capabilities?: ClusterVersionCapabilitiesSpec;
  overrides?: ComponentOverride[];
  /** TechPreview (feature gate SignatureStores); absent from the Default CRD. */
  signatureStores?: SignatureStore[];
}

/** `Release`: a release image and its metadata. */
export interface Release {
  architecture?: ClusterVersionArchitecture;
  version: string;
  image: string;
  url?: string;
  channels?: string[];
}

/** State of a history entry. */
export type UpdateState = 'Completed' | 'Partial';

/** `UpdateHistory`: one entry of `status.history` (newest first). */
export interface UpdateHistory {
  state: UpdateState;
  startedTime: Time;
  /** Null while this is the update in progress. */
  completionTime: Time | null;
  version?: string;
  image: string;
  verified: boolean;
  acceptedRisks?: string;
}

/** Kind of a matching rule of a conditional update risk. */
export type ClusterConditionType = 'Always' | 'PromQL';

/** `ClusterCondition`: when a risk applies. */
export interface ClusterCondition {
  type: ClusterConditionType;
  promql?: { promql: string };
}

/** `ConditionalUpdateRisk`. */
export interface ConditionalUpdateRisk {
  url: string;
  name: string;
  message: string;
  matchingRules: ClusterCondition[];
  /** TechPreview (ClusterUpdateAcceptRisks): an `Applies` condition. */
  conditions?: MetaCondition[];
}

/** `ConditionalUpdate`: an update recommended only when none of its risks applies (condition `Recommended`). */
export interface ConditionalUpdate {
  release: Release;
  risks: ConditionalUpdateRisk[];
  conditions?: MetaCondition[];
  /** TechPreview (ClusterUpdateAcceptRisks). */
  riskNames?: string[];
}

/** `ClusterOperatorStatusCondition` (also used by ClusterVersion): `lastTransitionTime` is required. */
export interface ClusterOperatorStatusCondition extends Condition {
  lastTransitionTime: Time;
}

/** `ClusterVersionStatus`. */
export interface ClusterVersionStatus {
  desired: Release;
  history?: UpdateHistory[];
  observedGeneration: number;
  versionHash: string;
  capabilities?: ClusterVersionCapabilitiesStatus;
  conditions?: ClusterOperatorStatusCondition[];
  /** Null when the update service was not (successfully) queried. */
  availableUpdates: Release[] | null;
  conditionalUpdates?: ConditionalUpdate[];
  /** TechPreview (ClusterUpdateAcceptRisks). */
  conditionalUpdateRisks?: ConditionalUpdateRisk[];
}

/** `config.openshift.io/v1` ClusterVersion (cluster-scoped, conventionally named `version`). */
export interface ClusterVersion extends KubeObject {
  spec: ClusterVersionSpec;
  status?: ClusterVersionStatus;
}

/** `OperandVersion`: one entry of a ClusterOperator's `status.versions` (`operator` is the operator's own). */
export interface OperandVersion {
  name: string;
  version: string;
}

/** `ObjectReference` of ClusterOperator `status.relatedObjects` (what `oc adm inspect` collects). */
export interface RelatedObject {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
}

/** `ClusterOperatorStatus`. */
export interface ClusterOperatorStatus {
  conditions?: ClusterOperatorStatusCondition[];
  versions?: OperandVersion[];
  relatedObjects?: RelatedObject[];
  /** Operator-specific data (`runtime.RawExtension`), may be null. */
  extension?: Record<string, unknown> | null;
}

/** `config.openshift.io/v1` ClusterOperator (cluster-scoped; its spec is empty). */
export interface ClusterOperator extends KubeObject {
  spec: Record<string, never>;
  status?: ClusterOperatorStatus;
}
