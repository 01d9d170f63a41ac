/**
 * `@keelson/rehearsal`: an OpenShift update rehearsed on one machine with the real Keelson CVO and MCO, against
 * simulated machines, ClusterOperators, update service and PromQL. {@link rehearse} is the entry point; the report,
 * timeline, verdict and fault plan it works with are exported for callers that render or check them. Helpers to test
 * an operator of your own under the real CVO and MCO live in `@keelson/rehearsal/testing`; the release generator in
 * `@keelson/rehearsal/release`.
 */
export { rehearse } from './run.js';
export { type RehearseOptions, type RehearsalResult } from './options.js';
export { nodeInventory, kubeconfigFor } from './cluster-bootstrap.js';
export { COMPONENT_STOP_TIMEOUT_MS } from './stack.js';
export {
  loadComponents,
  leaderElectionIntervals,
  machineConfigManifestsDir,
  requestUpgradeByPatch,
  CVO_NODE,
  SIMULATED_REBOOT_MS,
  type ComponentContext,
  type ComponentStatus,
  type CvoProgress,
  type RehearsalComponents,
  type Running,
  type RunningNodes,
  type RunningOperators,
  type UpgradeRequester,
} from './components.js';
export { cvoArgs, cvoBinPath, startCvoProcess, type CvoProcess, type CvoProcessOptions } from './cvo-process.js';
export {
  computeReport,
  formatReport,
  simMinutes,
  withinMaxUnavailable,
  EXIT_CODES,
  type ApiCounts,
  type Outcome,
  type PoolReport,
  type RehearsalReport,
  type ReportContext,
} from './report.js';
export {
  clusterOperatorEvents,
  clusterVersionEvents,
  diffConditions,
  nodeEvents,
  nodeView,
  poolEvents,
  poolOfNode,
  poolView,
  type NodePhase,
  type NodeView,
  type ObservedCondition,
  type PoolView,
  type TimelineEvent,
} from './timeline.js';
export {
  decideUpdateVerdict,
  explainStall,
  nextRefusedSince,
  type DrainFailure,
  type RehearsalVerdict,
  type VerdictInput,
} from './verdict.js';
export { FAULT_KINDS, FaultSpecError, describeFaults, parseFaults, type FaultPlan } from './faults.js';
export {
  didYouMean,
  editDistance,
  lastWaitPoint,
  rehearsalTargets,
  validateFaultTargets,
  type FaultTargets,
} from './fault-targets.js';
export {
  diagnose,
  diagnoseAdminAcks,
  diagnoseOperators,
  formatDiagnosis,
  type AdminAckFacts,
  type Diagnosis,
  type OperatorLike,
  type PoolDiagnoser,
} from './diagnosis.js';
export { ADMIN_ACK_RELEASES, REHEARSAL_ADMIN_GATE, blockedOnAdminAck, checkAdminAckReleases } from './admin-ack.js';
export {
  cvoReportsMachineConfig,
  McoSyncFault,
  type McoSyncFaultEvent,
  type McoSyncFaultPhase,
} from './mco-sync-fault.js';
export { nodePullSources, RELEASE_MIRROR_SET } from './release-mirror.js';
export { formatMcnReports, mcnEvents, mcnHtml, mcnReports, type McnEvent, type McnNodeReport } from './mcn.js';
export {
  evaluateUpdates,
  startUpdateService,
  REHEARSAL_RISK,
  type EvaluatedUpdates,
  type ServiceRelease,
  type UpdateService,
  type UpdateServiceOptions,
} from './update-service.js';
export {
  evaluatePromQL,
  startPromQLServer,
  PromQLParseError,
  type PromQLServer,
  type Sample,
  type Series,
} from './promql.js';
export { MaxUnavailableSpecError, parseMaxUnavailable, type IntOrPercent } from './max-unavailable.js';
export { RehearsalTargetError, type RehearsalTargetErrorCode } from './target.js';
export {
  assertTargetVerifiable,
  byDigest,
  findOrderingProblems,
  findPayloadProblems,
  RehearsalPayloadError,
  type PayloadProblem,
  type RehearsalPayloadErrorCode,
} from './user-release.js';
export { computeRunLevels, type RunLevelPlan } from './run-levels.js';
