/**
 * Minimal local API types the controller and operator use until `@keelson/api` lands on main (then this file is
 * replaced by imports from it). Machine-config kinds come from `@keelson/kube`; core kinds are declared here with
 * only the fields we read or write.
 */
import type { Condition, KubeObject, LabelSelector, MachineConfigPool as KubeMachineConfigPool } from '@keelson/kube';

export type {
  Condition,
  KubeObject,
  LabelSelector,
  MachineConfig,
  ControllerConfig,
  KubeletConfig,
  ContainerRuntimeConfig,
  ClusterOperator,
} from '@keelson/kube';

/** MachineConfigPool with the spec fields the controller reads beyond `@keelson/kube`'s type. */
export type MachineConfigPool = KubeMachineConfigPool & {
  spec: KubeMachineConfigPool['spec'] & { osImageStream?: { name?: string } };
};

/** `v1` NodeCondition. */
export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
}

/** `v1` Taint. */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: string;
}

/** `v1` Node (fields the MCO uses). */
export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: Taint[]; providerID?: string };
  status?: { conditions?: NodeCondition[]; nodeInfo?: Record<string, string> };
}

/** `v1` Pod (fields drain uses). */
export interface Pod extends KubeObject {
  spec?: { nodeName?: string; terminationGracePeriodSeconds?: number; volumes?: Array<{ name: string; emptyDir?: Record<string, unknown> }> };
  status?: { phase?: string; conditions?: Condition[] };
}

/** `policy/v1` PodDisruptionBudget (fields `keelson mcp why` and drain reporting read). */
export interface PodDisruptionBudget extends KubeObject {
  spec?: { selector?: LabelSelector; minAvailable?: number | string; maxUnavailable?: number | string };
  status?: { disruptionsAllowed?: number; currentHealthy?: number; desiredHealthy?: number; expectedPods?: number };
}

/** `v1` ConfigMap. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
