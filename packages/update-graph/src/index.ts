/**
 * @keelson/update-graph: Cincinnati / OpenShift Update Service client, upgrade path planner and graph server.
 * @packageDocumentation
 */
export * from './errors.js';
export { parseSemver, isSemver, formatSemver, compareSemver, compareVersionStrings, type SemVer } from './semver.js';
export {
  Graph,
  parseGraphNode,
  type GraphNode,
  type ClusterCondition,
  type ConditionalUpdateRisk,
  type ConditionalEdge,
  type ConditionalEdgeGroup,
  type GraphDocument,
  type GraphDialect,
  type GraphParseOptions,
} from './graph.js';
export {
  availableUpdates,
  parseReleaseMetadata,
  nodeToRelease,
  type Release,
  type ConditionalUpdate,
  type AvailableUpdates,
  type AvailableUpdatesOptions,
} from './updates.js';
export {
  UpdateGraphClient,
  buildGraphUrl,
  type UpdateGraphClientOptions,
  type FetchUpdatesParams,
  type FetchUpdatesResult,
  type FcosGraphParams,
} from './client.js';
export { type HttpTransportOptions, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS } from './http.js';
export {
  ConditionRegistry,
  alwaysCondition,
  validatePromQLRule,
  defaultConditionRegistry,
  PromQLCondition,
  CachedCondition,
  recommendedCondition,
  evaluateConditionalUpdates,
  evaluateUntilSettled,
  createRiskRegistry,
  aggregateMessages,
  type ConditionType,
  type PromQLOptions,
  type CacheOptions,
  type Condition,
  type EvaluatedConditionalUpdate,
  type RiskEvaluationResult,
  type EvaluateOptions,
  type SettleOptions,
} from './risk.js';
export {
  planPath,
  PlanIndex,
  type PlannedHop,
  type UpdatePlan,
  type PlanOptions,
  type RiskDisposition,
} from './plan.js';
export {
  readGraphData,
  readReleasesDir,
  graphFromReleases,
  applySecondaryMetadata,
  applyEdgeAddRemove,
  builderGraphFromDocument,
  builderGraphToDocument,
  filterGraph,
  buildGraph,
  type BuilderGraph,
  type ReleaseInput,
  type GraphData,
} from './graphdata.js';
export { readGraphFile, MAX_GRAPH_FILE_BYTES } from './graphfile.js';
export { compileLinearRegex, MAX_PATTERN_LENGTH, type LinearRegex } from './regex.js';
export { createGraphServer, type GraphServer, type GraphServerOptions } from './server.js';
export {
  FCOS_KEYS,
  rolloutProgress,
  computeWariness,
  applyFcosPolicy,
  pickFcosUpdate,
  type FcosUpdateChoice,
} from './fcos.js';
export { graphToDot, graphToMermaid, planToDot, planToMermaid, type RenderGraphOptions } from './render.js';
export {
  channelVersionWarnings,
  channelMembershipWarnings,
  parseChannelName,
  KNOWN_CHANNEL_STREAMS,
  CHANNELS_METADATA_KEY,
  type ChannelStream,
} from './channels.js';
