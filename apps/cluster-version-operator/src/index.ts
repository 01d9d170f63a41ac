/**
 * The Cluster Version Operator: applies a release payload in task-graph order and reports ClusterVersion.
 * The bin `cluster-version-operator` is a thin wrapper over {@link startClusterVersionOperator}. The operator's library
 * (builders, merges, status, preconditions, intervals) is `@keelson/cluster-version`.
 * @packageDocumentation
 */
export { startClusterVersionOperator, type CvoOptions, type RunningCvo } from './operator/start.js';
export type { CvoEvent } from './operator/events.js';
export { renderBootstrap } from './render.js';
export { parseCommandLine, parseDuration, USAGE, type Command } from './cli.js';
export { CvoError, type CvoErrorCode } from './errors.js';
export {
  runPayload,
  type RunPayloadOptions,
  type RunPayloadResult,
  type ApplyObserver,
  type SyncMode,
} from './sync/run-payload.js';
export { currentGraphNode } from './sync/graph-node-scope.js';
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
