/**
 * The Cluster Version Operator: applies a release payload in task-graph order and reports ClusterVersion.
 * The bin `cluster-version-operator` is a thin wrapper over {@link startClusterVersionOperator}.
 * @packageDocumentation
 */
export { startClusterVersionOperator, type CvoOptions, type RunningCvo } from './operator/start.js';
export type { CvoEvent } from './operator/events.js';
export {
  resolveIntervals,
  UPSTREAM_INTERVALS,
  backoffDelays,
  failureBackoffMs,
  type Intervals,
  type TaskBackoff,
} from './sync/intervals.js';
export { renderBootstrap } from './render.js';
export { parseCommandLine, parseDuration, USAGE, type Command } from './cli.js';
export {
  UpdateError,
  CvoError,
  NoKindMatchError,
  classifyApiError,
  summaryForReason,
  type UpdateEffect,
} from './errors.js';
export { builderFor, typedKinds, gvkKey, type Builder } from './resources/registry.js';
export * as merge from './resources/merge.js';
export { decideOperatorHealth, expectedVersions } from './resources/clusteroperator.js';
export {
  summarizeTaskGraphErrors,
  interpretError,
  type ErrorInterpretation,
  type FailureIntervals,
} from './sync/summarize.js';
export { runPreconditions, summarizePreconditions, type PreconditionError } from './payload/preconditions.js';
export { computeStatus, type StatusInput, type WorkerState } from './status/compute.js';
export { mergeHistory, pruneHistory } from './status/history.js';
export { computeUpgradeable } from './status/upgradeable.js';
export { resolveDesired } from './status/desired.js';
export { specChanged, clusterOperatorActivity } from './operator/wake.js';
export type * from './api-types.js';
export {
  payloadHash,
  podCompletion,
  versionPod,
  TARGET_UPDATE_PAYLOADS_DIR,
  type PodRetrievalOptions,
} from './payload/pod-retrieval.js';
export { readClusterPullConfig, type ClusterPullConfig } from './payload/cluster-pull-config.js';
export {
  startPayloadKubelet,
  nodePullOptions,
  type PayloadKubelet,
  type PayloadKubeletOptions,
} from './virtual/payload-kubelet.js';
