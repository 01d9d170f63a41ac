export { buildProgram, main } from './cli.js';
export { CliError } from './errors.js';
/** `keelson upgrade` as functions (shared with `keelson rehearse`): request an update, set the channel, diagnose. */
export {
  requestUpgrade,
  setChannel,
  readUpgradeStatus,
  readOcStatus,
  getClusterVersion,
  clientFromKubeconfig,
  type UpgradeRequestResult,
  type ChannelResult,
} from './upgrade/cluster.js';
export {
  planUpgrade,
  validateUpgradeOptions,
  desiredUpdatePatch,
  checkForUpgrade,
  UpgradeRequestError,
  type UpgradeRequestOptions,
  type UpgradePlan,
} from './upgrade/request.js';
export { formatUpgradeOverview, upgradeOverview, type UpgradeOverview } from './upgrade/overview.js';
export {
  computeUpgradeStatus,
  type UpgradeStatusSummary,
  type OperatorProgress,
  type PoolProgress,
  type WaitItem,
} from './upgrade/status-summary.js';
export { formatUpgradeStatus } from './upgrade/status-format.js';
export {
  computeOcStatus,
  formatOcStatus,
  DETAILS,
  type Details,
  type OcStatus,
  type OcStatusInput,
} from './upgrade/status-oc.js';
export {
  recommend,
  validateRecommendOptions,
  type RecommendOptions,
  type RecommendResult,
} from './upgrade/recommend.js';
// what `keelson rehearse` passes to `rehearse()` of @keelson/rehearsal: its own upgrade request and pool diagnosis
export { diagnoseClusterPools, diagnosePools, requestUpgradeLikeTheCli } from './rehearse/cli-hooks.js';
