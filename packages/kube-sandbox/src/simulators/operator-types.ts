/**
 * Minimal shapes of the OpenShift and apps/v1 objects the cluster-operator simulator reads and writes.
 * Local on purpose: the sandbox does not depend on @keelson/api (which itself uses the sandbox in its tests).
 * Field names are those of `config.openshift.io/v1` and `apps/v1`.
 */

/** `ClusterOperatorStatus.versions[]` entry (`OperandVersion`). */
export interface OperandVersion {
  name: string;
  version: string;
}

/** `ClusterOperatorStatusCondition`. */
export interface OperatorCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

/** `ObjectReference` of `ClusterOperatorStatus.relatedObjects`. */
export interface RelatedObject {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
}

/** The fields of a `config.openshift.io/v1` ClusterOperator the simulator uses. */
export interface SimClusterOperator {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; resourceVersion?: string };
  status?: { conditions?: OperatorCondition[]; versions?: OperandVersion[]; relatedObjects?: RelatedObject[] };
}

/** The fields of an `apps/v1` Deployment the simulator uses to decide whether a rollout finished. */
export interface SimDeployment {
  metadata: { name?: string; namespace?: string; generation?: number };
  spec?: { replicas?: number; template?: { spec?: { containers?: { name: string; env?: { name: string; value?: string }[] }[] } } };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number };
}

/** The fields of a `config.openshift.io/v1` ClusterVersion the simulator uses. */
export interface SimClusterVersion {
  metadata: { name?: string };
  status?: { desired?: { version?: string } };
}

/**
 * A fault injected into one simulated operator.
 * - `never`: never writes any status (the CVO waits on it forever, then reports it slow).
 * - `degraded`: reports the versions but `Degraded=True` with the reason and message.
 * - `unavailable`: reports the versions but `Available=False`.
 * - `not-upgradeable`: healthy, but `Upgradeable=False` (blocks minor updates).
 * - `slow`: healthy, after `extraDelayMs` more than the configured delay.
 */
export type OperatorFault =
  | { kind: 'never' }
  | { kind: 'degraded'; reason?: string; message?: string }
  | { kind: 'unavailable'; reason?: string; message?: string }
  | { kind: 'not-upgradeable'; reason?: string; message?: string }
  | { kind: 'slow'; extraDelayMs: number };

/** Names of the fault kinds, as accepted on the command line. */
export const OPERATOR_FAULT_KINDS = ['never', 'degraded', 'unavailable', 'not-upgradeable', 'slow'] as const;
