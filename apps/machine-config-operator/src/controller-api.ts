/**
 * Public API of the operator and controller halves (programmatic start for rehearsals). Re-exported from the package
 * entry point. The controllers' pure decisions (rollout, drain, render, pool status, pools of a node) and their
 * durations, the template controller's MachineConfig generation, the generated kubelet / container-runtime /
 * registries MachineConfigs and the operator's ClusterOperator status and ControllerConfig builders are in
 * `@keelson/machineconfig`.
 */
export {
  startMachineConfigController,
  type MachineConfigControllerOptions,
  type ControllerName,
} from './controllers/manager.js';
export {
  startMachineConfigOperator,
  scaledResyncMs,
  MIN_SCALED_RESYNC_MS,
  type MachineConfigOperatorOptions,
} from './operator/operator.js';
export type { ProcessOptions, LeaderElectionSettings, Running } from './common/runtime.js';
export { scaledLeaderElection } from './common/runtime.js';
export type { CordonBackoff } from './controllers/drain/controller.js';
export { defaultTemplatesDir } from './controllers/template/controller.js';
export * from './common/constants.js';
export { MCO_VERSION } from './common/version.js';
export { Nodes, Pods, PodDisruptionBudgets } from './common/resources.js';
export type * from './common/api-types.js';
