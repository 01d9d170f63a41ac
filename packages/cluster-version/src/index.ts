/**
 * @keelson/cluster-version: the Cluster Version Operator's library, as upstream's `lib/` and the pure parts of
 * `pkg/cvo` and `pkg/payload`: the resource builders and merges per kind with their health checks (the ClusterOperator
 * builder among them), the applier, ClusterVersion status computation, history and desired-update resolution, error
 * summaries and sync intervals, update preconditions, admin-acks and `Upgradeable`.
 * @packageDocumentation
 */
export {
  UpdateError,
  NoKindMatchError,
  classifyApiError,
  summaryForReason,
  type UpdateEffect,
  type UpdateErrorInit,
} from './errors.js';

export {
  ResourceApplier,
  withOwner,
  deleteRequested,
  CREATE_ONLY_ANNOTATION,
  DELETE_ANNOTATION,
  type ResourceApplierOptions,
  type OwnerRef,
  type WriteCounts,
} from './resources/apply.js';
export {
  builderFor,
  typedKinds,
  gvkKey,
  type Builder,
  type BuilderContext,
  type ClusterOperatorSource,
  type ApplyAction,
  type ApplyMode,
  type ApplyResult,
} from './resources/registry.js';
export * as merge from './resources/merge.js';
export { deepEqual, isObject, clone, type JsonObject } from './resources/merge-core.js';
export { semanticEqual, parseQuantity, quantityEqual } from './resources/semantic.js';
export { checkCrd, checkDaemonSet, checkDeployment, checkJob, type HealthCheckFn } from './resources/checks.js';
export {
  decideOperatorHealth,
  expectedVersions,
  operatorHealthView,
  clusterOperatorBuilder,
  CLUSTER_OPERATOR_GVK,
  type GateMode,
  type OperatorHealthView,
  type OperatorHealthCondition,
} from './resources/clusteroperator.js';
export {
  modifyManifest,
  injectProxy,
  injectInternalLoadBalancer,
  splitInternalURI,
  clusterConfigReader,
  INJECT_PROXY_ANNOTATION,
  type ClusterConfigReader,
} from './resources/modify.js';
export { RestMapper, type RestMapping } from './resources/restmapper.js';
export { LiveObjectCache, MAX_CACHED_KINDS } from './resources/live-cache.js';
export { WatchedClusterConfig } from './resources/cluster-config-cache.js';

export { computeStatus, type StatusInput, type WorkerState } from './status/compute.js';
export { mergeHistory, pruneHistory, MAX_HISTORY, type HistoryUpdate } from './status/history.js';
export { resolveDesired, type DesiredResolution } from './status/desired.js';
export {
  computeUpgradeable,
  computeUpgradeableConditions,
  type UpgradeableOperator,
  type UpgradeableCondition,
  type UpgradeableInput,
  type UpgradeableStatusCondition,
} from './status/upgradeable.js';
export {
  ADMIN_ACKS,
  ADMIN_GATES,
  UPGRADEABLE_ADMIN_ACK_REQUIRED,
  adminAckPatchCommand,
  checkAdminAcks,
  currentHistoryVersion,
  effectiveMinor,
  pendingAdminAcks,
  type AdminAckInput,
  type AdminAckResult,
  type PendingAdminAck,
} from './status/admin-acks.js';

export {
  PRECONDITION_NAMES,
  OVERRIDES_SET,
  runPreconditions,
  summarizePreconditions,
  checkRollback,
  checkGiantHop,
  checkUpgradeable,
  checkRecommendedUpdate,
  updateType,
  currentCompletedVersion,
  type PreconditionName,
  type PreconditionError,
  type PreconditionSummary,
  type PreconditionCondition,
  type PreconditionClusterVersion,
} from './preconditions/preconditions.js';
export { preconditionsUpdateError, type PreconditionUpdateError } from './preconditions/update-error.js';

export {
  resolveIntervals,
  UPSTREAM_INTERVALS,
  backoffDelays,
  failureBackoffMs,
  type Intervals,
  type TaskBackoff,
} from './sync/intervals.js';
export {
  summarizeTaskGraphErrors,
  interpretError,
  UPSTREAM_FAILURE_INTERVALS,
  type ErrorInterpretation,
  type FailureIntervals,
} from './sync/summarize.js';
