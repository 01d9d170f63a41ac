/**
 * The objects the cluster-operator simulator reads and writes: OpenShift kinds from @keelson/api, and the few
 * fields of `apps/v1` Deployments it looks at (@keelson/api has no apps/v1 types).
 */
import type { ClusterOperator, ClusterOperatorStatusCondition, ClusterVersion } from '@keelson/api';

export type { OperandVersion, RelatedObject } from '@keelson/api';

/** A ClusterOperator condition (`ClusterOperatorStatusCondition`, lastTransitionTime required). */
export type OperatorCondition = ClusterOperatorStatusCondition;

/** The parts of a `config.openshift.io/v1` ClusterOperator the simulator uses. */
export type SimClusterOperator = Pick<ClusterOperator, 'metadata' | 'status'>;

/** The fields of an `apps/v1` Deployment the simulator uses to decide whether a rollout finished. */
export interface SimDeployment {
  metadata: { name?: string; namespace?: string; generation?: number };
  spec?: {
    replicas?: number;
    template?: { spec?: { containers?: { name: string; env?: { name: string; value?: string }[] }[] } };
  };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number };
}

/** The parts of a `config.openshift.io/v1` ClusterVersion the simulator uses. */
export type SimClusterVersion = Pick<ClusterVersion, 'metadata' | 'status'>;

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
