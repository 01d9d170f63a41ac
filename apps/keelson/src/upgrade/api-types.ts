/**
 * Minimal local shapes of the OpenShift objects `keelson upgrade` reads and writes (config.openshift.io/v1
 * ClusterVersion and ClusterOperator, machineconfiguration.openshift.io/v1 MachineConfigPool). The ONE file to
 * replace with @keelson/api's types when that package lands.
 */

/** `ClusterOperatorStatusCondition` / `metav1.Condition` (the fields read here). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | (string & {});
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** `Release`. */
export interface Release {
  version?: string;
  image?: string;
  url?: string;
  channels?: string[];
  architecture?: string;
}

/** `Update` (spec.desiredUpdate). */
export interface Update {
  architecture?: string;
  version?: string;
  image?: string;
  force?: boolean;
  acceptRisks?: { name: string }[];
}

/** `ConditionalUpdate`. */
export interface ConditionalUpdate {
  release: Release;
  risks?: { name: string; url?: string; message?: string; matchingRules?: { type: string }[] }[];
  conditions?: Condition[];
}

/** `UpdateHistory`. */
export interface UpdateHistory {
  state: 'Completed' | 'Partial' | (string & {});
  startedTime: string;
  completionTime: string | null;
  version?: string;
  image?: string;
  verified?: boolean;
  acceptedRisks?: string;
}

/** `config.openshift.io/v1` ClusterVersion. */
export interface ClusterVersion {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; resourceVersion?: string; generation?: number };
  spec: { clusterID?: string; desiredUpdate?: Update | null; upstream?: string; channel?: string };
  status?: {
    desired?: Release;
    history?: UpdateHistory[];
    observedGeneration?: number;
    conditions?: Condition[];
    availableUpdates?: Release[] | null;
    conditionalUpdates?: ConditionalUpdate[];
  };
}

/** `config.openshift.io/v1` ClusterOperator. */
export interface ClusterOperator {
  metadata: { name?: string };
  status?: { conditions?: Condition[]; versions?: { name: string; version: string }[] };
}

/** `machineconfiguration.openshift.io/v1` MachineConfigPool. */
export interface MachineConfigPool {
  metadata: { name?: string };
  spec?: { paused?: boolean; configuration?: { name?: string } };
  status?: {
    configuration?: { name?: string };
    machineCount?: number;
    updatedMachineCount?: number;
    readyMachineCount?: number;
    unavailableMachineCount?: number;
    degradedMachineCount?: number;
    conditions?: Condition[];
  };
}

/** Finds a condition by type. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
