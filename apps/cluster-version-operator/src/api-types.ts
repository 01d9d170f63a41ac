/**
 * Minimal local aliases for the OpenShift objects the CVO reads and writes, until `@keelson/api` lands (then this file
 * is replaced by imports from it). Shapes follow `config.openshift.io/v1`.
 */
import type { Condition, KubeObject } from '@keelson/kube';

/** `config.openshift.io/v1` Release. */
export interface Release {
  version?: string;
  image?: string;
  url?: string;
  channels?: string[];
  architecture?: string;
}

/** `spec.desiredUpdate`. */
export interface DesiredUpdate {
  version?: string;
  image?: string;
  force?: boolean;
  architecture?: string;
  acceptRisks?: { name: string }[];
}

/** `spec.overrides[]`. */
export interface ComponentOverrideSpec {
  kind: string;
  group: string;
  namespace: string;
  name: string;
  unmanaged: boolean;
}

/** `status.history[]`. */
export interface UpdateHistory {
  state: 'Completed' | 'Partial';
  startedTime: string;
  completionTime: string | null;
  version: string;
  image: string;
  verified: boolean;
  acceptedRisks?: string;
}

/** A conditional update risk. */
export interface ConditionalUpdateRiskSpec {
  url: string;
  name: string;
  message: string;
  matchingRules: { type: string; promql?: { promql: string } }[];
}

/** `status.conditionalUpdates[]`. */
export interface ConditionalUpdateStatus {
  release: Release;
  risks: ConditionalUpdateRiskSpec[];
  conditions: Condition[];
}

/** `ClusterVersion.spec`. */
export interface ClusterVersionSpec {
  clusterID: string;
  desiredUpdate?: DesiredUpdate;
  upstream?: string;
  channel?: string;
  capabilities?: { baselineCapabilitySet?: string; additionalEnabledCapabilities?: string[] };
  overrides?: ComponentOverrideSpec[];
  signatureStores?: { url: string; ca?: { name: string } }[];
}

/** `ClusterVersion.status`. */
export interface ClusterVersionStatus {
  desired: Release;
  history: UpdateHistory[];
  observedGeneration: number;
  versionHash: string;
  capabilities: { enabledCapabilities?: string[]; knownCapabilities?: string[] };
  conditions?: Condition[];
  availableUpdates: Release[] | null;
  conditionalUpdates?: ConditionalUpdateStatus[];
}

/** `config.openshift.io/v1` ClusterVersion. */
export interface ClusterVersion extends KubeObject {
  spec: ClusterVersionSpec;
  status?: ClusterVersionStatus;
}

/** `status.versions[]` of a ClusterOperator. */
export interface OperandVersion {
  name: string;
  version: string;
}

/** `config.openshift.io/v1` ClusterOperator. */
export interface ClusterOperator extends KubeObject {
  spec?: Record<string, unknown>;
  status?: {
    conditions?: Condition[];
    versions?: OperandVersion[];
    relatedObjects?: { group: string; resource: string; namespace?: string; name: string }[];
    extension?: unknown;
  };
}
