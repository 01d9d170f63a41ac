/**
 * Public API of the operator and controller halves (programmatic start for rehearsals, and the pure decision
 * functions). Re-exported from the package entry point.
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
export {
  DEFAULT_DURATIONS,
  scaleDurations,
  MIN_SCALED_POLL_MS,
  MIN_SCALED_DRAIN_ATTEMPT_MS,
  type ControllerDurations,
} from './controllers/context.js';
export type { CordonBackoff } from './controllers/drain/controller.js';
export { decidePoolSync, type PoolSyncInput, type PoolSyncDecision } from './controllers/node/decide.js';
export {
  getPoolsForNode,
  nodesForPool,
  NodePoolAssignmentError,
  type PoolsForNode,
} from './controllers/node/pools-for-node.js';
export {
  computeMaxUnavailable,
  computeCandidates,
  sortNodesByZoneAndAge,
  MaxUnavailableError,
  type Candidates,
} from './controllers/node/rollout.js';
export { computePoolStatus, computePoolCounts, type PoolStatus, type PoolCounts } from './controllers/node/status.js';
export {
  isNodeReady,
  isNodeDone,
  isNodeMCDFailing,
  isNodeUnavailable,
  isNodeUpdated,
  isNodeDegraded,
  type PoolTarget,
} from './controllers/node/node-state.js';
export { decideDrain, decideDrainFailure, podsToEvict, type DrainAction } from './controllers/drain/decide.js';
export {
  decideRender,
  controllerConfigGate,
  RenderPoolError,
  type RenderDecision,
} from './controllers/render/decide.js';
export {
  generateTemplateMachineConfigs,
  loadTemplateTree,
  platformDirs,
  TemplateError,
  type TemplateInputs,
  type TemplateTree,
} from './controllers/template/generate.js';
export { mcoTemplateFuncs } from './controllers/template/funcs.js';
export { securityProfileCiphers } from './controllers/template/tls.js';
export { defaultTemplatesDir } from './controllers/template/controller.js';
export {
  kubeletMachineConfig,
  containerRuntimeMachineConfig,
  GeneratedConfigError,
} from './controllers/generated/content.js';
export {
  buildControllerConfig,
  parseOSImageURLConfigMap,
  OperatorSyncError,
  type OSImageURLConfig,
} from './operator/controller-config.js';
export {
  computeClusterOperatorStatus,
  checkRequiredPools,
  machineConfigPoolStatus,
  upgradeableCondition,
  type OperandVersion,
  type SyncError,
} from './operator/status.js';
export * from './common/constants.js';
export { MCO_VERSION } from './common/version.js';
export { Nodes, Pods, PodDisruptionBudgets } from './common/resources.js';
export type * from './common/api-types.js';
