/**
 * The OpenShift objects `keelson upgrade` reads and writes, from @keelson/api (config.openshift.io/v1
 * ClusterVersion and ClusterOperator, machineconfiguration.openshift.io/v1 MachineConfigPool), plus a lookup helper.
 */
import type { Condition } from '@keelson/api';

export type {
  ClusterOperator,
  ClusterVersion,
  Condition,
  ConditionalUpdate,
  MachineConfigPool,
  Release,
  Update,
  UpdateHistory,
} from '@keelson/api';

/** Finds a condition by type. */
export function findCondition<C extends Condition>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}
