/** `operator.openshift.io/v1` MachineConfiguration, following openshift/api `operator/v1/types_machineconfiguration.go`. */
import type { KubeObject, MetaCondition } from '../core/meta.js';

/** Operator management state. */
export type ManagementState = 'Managed' | 'Unmanaged' | 'Removed' | 'Force' | (string & {});

/** Operator log level. */
export type LogLevel = '' | 'Normal' | 'Debug' | 'Trace' | 'TraceAll';

/** An action taken when a matching file, unit or the SSH key changes (`NodeDisruptionPolicySpecAction`). */
export interface NodeDisruptionPolicyAction {
  /** `Reboot`, `Drain`, `Reload`, `Restart`, `DaemonReload`, `None` (status may also report `Special`). */
  type: 'Reboot' | 'Drain' | 'Reload' | 'Restart' | 'DaemonReload' | 'None' | 'Special';
  reload?: { serviceName: string };
  restart?: { serviceName: string };
}

/** `NodeDisruptionPolicyConfig` (spec) and `NodeDisruptionPolicyClusterStatus` (status) share this shape. */
export interface NodeDisruptionPolicy {
  files?: Array<{ path: string; actions: NodeDisruptionPolicyAction[] }>;
  units?: Array<{ name: string; actions: NodeDisruptionPolicyAction[] }>;
  sshkey?: { actions: NodeDisruptionPolicyAction[] };
}

/** `MachineConfigurationSpec`. */
export interface MachineConfigurationSpec {
  managementState?: ManagementState;
  logLevel?: LogLevel;
  operatorLogLevel?: LogLevel;
  unsupportedConfigOverrides?: Record<string, unknown> | null;
  observedConfig?: Record<string, unknown> | null;
  forceRedeploymentReason?: string;
  failedRevisionLimit?: number;
  succeededRevisionLimit?: number;
  managedBootImages?: { machineManagers?: Array<Record<string, unknown>> };
  nodeDisruptionPolicy?: NodeDisruptionPolicy;
  bootImageSkewEnforcement?: { mode: 'Manual' | 'None'; manual?: Record<string, unknown> };
  /** Feature-gated: `Disks`, `FileSystems`, `Raid`. */
  irreconcilableValidationOverrides?: { storage?: Array<'Disks' | 'FileSystems' | 'Raid'> };
}

/** `MachineConfigurationStatus`. */
export interface MachineConfigurationStatus {
  observedGeneration?: number;
  conditions?: MetaCondition[];
  nodeDisruptionPolicyStatus?: { clusterPolicies?: NodeDisruptionPolicy };
  managedBootImagesStatus?: { machineManagers?: Array<Record<string, unknown>> };
  bootImageSkewEnforcementStatus?: {
    mode: 'Automatic' | 'Manual' | 'None';
    automatic?: Record<string, unknown>;
    manual?: Record<string, unknown>;
  };
}

/** `operator.openshift.io/v1` MachineConfiguration (cluster-scoped singleton named `cluster`). */
export interface MachineConfiguration extends KubeObject {
  spec: MachineConfigurationSpec;
  status?: MachineConfigurationStatus;
}
