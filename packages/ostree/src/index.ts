/**
 * @keelson/ostree — the rpm-ostree / ostree OS driver used by the machine-config-daemon.
 * @packageDocumentation
 */
export {
  OstreeError,
  RpmOstreeError,
  StatusParseError,
  formatCommandLine,
  shellQuote,
  type OstreeErrorCode,
} from './errors.js';
export {
  ChildProcessRunner,
  type ChildProcessRunnerOptions,
  type CommandResult,
  type CommandRunner,
  type RunOptions,
} from './runner.js';
export {
  OSTREE_IMAGE_SCHEMES,
  containersStorageReference,
  formatOstreeImageReference,
  parseImageReference,
  parseOstreeImageReference,
  unverifiedRegistryReference,
  type ImageReference,
  type OstreeImageReference,
  type SignatureSource,
} from './imageref.js';
export {
  TUNABLE_EL_KARGS,
  generateKargs,
  parseKernelArguments,
  parseKernelCommandLine,
  splitKernelArguments,
  tuningKargsCalls,
} from './kargs.js';
export {
  KERNEL_PACKAGES,
  kernelPackagesFor,
  isEL10,
  type KernelPackages,
  SUPPORTED_EXTENSIONS,
  canonicalizeKernelType,
  generateExtensionsArgs,
  packagesForExtensions,
  validateExtensions,
  type KernelType,
} from './packages.js';
export {
  MAX_STATUS_BYTES,
  baseChecksumOf,
  bootedDeployment,
  coreosStreamOf,
  osImageUrlOf,
  parseRpmOstreeStatus,
  pendingDeployment,
  rollbackDeployment,
  stagedDeployment,
  statusToJson,
  type Deployment,
  type JsonObject,
  type JsonValue,
  type RpmOstreeStatus,
  type UpdateDriver,
} from './status.js';
export { parseRpmOstreeVersion, versionAtLeast, type RpmOstreeVersion } from './version.js';
export {
  revertKernelSwapArgs,
  rpmOstreeArgs,
  zincatiStageArgs,
  mcoRebootCommand,
  type ZincatiPayload,
  type CleanupOptions,
  type DeployOptions,
  type KargsEdit,
  type RebaseOptions,
} from './commands.js';
export {
  BUSY_PATTERN,
  DEFAULT_RETRY,
  MCO_REBASE_RETRY,
  RpmOstree,
  isBusyResult,
  type ExecOptions,
  type RetryPolicy,
  type RpmOstreeOptions,
} from './rpm-ostree.js';
export {
  PlanExecutionError,
  applyOsChanges,
  applyOsChangesOnHost,
  executePlan,
  formatPlan,
  osConfigSpecFrom,
  type BootedState,
  type MachineConfigLike,
  type OsConfigSpec,
  type OsDiff,
  type OsPlanOptions,
  type OsUpdatePlan,
  type PlanExecution,
  type PlanStep,
  type PlanStepKind,
} from './plan.js';
export { SimulatedRpmOstree, type SimulatedHostOptions, type SimulatedState } from './simulated.js';
export {
  OstreeSysroot,
  type EtcDiff,
  type OstreeSysrootOptions,
  type SysrootDeployOptions,
  type SysrootDeployment,
} from './sysroot.js';
export { SysrootRpmOstree, type SysrootHostOptions } from './sysroot-host.js';
export { applyKargsEdits, applyPackageCommand, type PackageState } from './host-ops.js';
