/** The Machine Config Operator: operator, controller, server and daemon entry points */
export const APP_NAME = 'machine-config-operator';
export * from './controller-api.js';

// ---- daemon, server and virtual nodes (stable programmatic API, see README) ----
export { startMachineConfigDaemon, type StartDaemonOptions, type RunningDaemon } from './daemon/start.js';
export { MachineConfigDaemon, DEFAULT_SYNC_BACKOFF, type SyncBackoff } from './daemon/daemon.js';
export type { DaemonEvent, DaemonEventHandler, DaemonPhase } from './daemon/events.js';
export { CommandHost, HostCommandError, type Host, type HostCommandResult } from './daemon/host.js';
export { RpmOstreeOs, type OsDriver } from './daemon/os.js';
export { HostRoot, RootPathError } from './daemon/root.js';
export { runFirstboot, FirstbootError, type FirstbootResult } from './daemon/firstboot.js';
export { OnDiskValidationError, validateOnDiskState } from './daemon/on-disk-validation.js';
export { UnreconcilableError } from './daemon/update.js';
export { DrainTimeoutError, DEFAULT_DRAIN_TIMEOUTS, type DrainTimeouts } from './daemon/drain.js';
export { KILL_POINTS, type KillPoint } from './daemon/crash.js';
export { ChrootHostExec, hostArgv, HOST_PATH, type HostExec } from './daemon/host-exec.js';
export { DaemonMetrics, DEFAULT_METRICS_ADDRESS } from './daemon/metrics.js';
export { runOnceFrom, readOnceFrom, OnceFromError } from './daemon/once-from.js';
export { ConfigDriftMonitor, watchedPaths, type DriftHandlers } from './daemon/drift-monitor.js';
export { PoolWaiter, PoolWaitAbortedError, poolWaitReason } from './virtual/pool-wait.js';
export {
  startMachineConfigServer,
  SECURE_PORT,
  INSECURE_PORT,
  type MachineConfigServer,
  type MachineConfigServerOptions,
} from './server/server.js';
export { buildServedConfig, ServeConfigError, type ServeInputs } from './server/serve-config.js';
export {
  startVirtualNodes,
  type VirtualNodesOptions,
  type VirtualNodes,
  type VirtualNodeSpec,
  type VirtualNodeFaults,
} from './virtual/harness.js';
export { VirtualMachine, DEFAULT_BOOT_IMAGE } from './virtual/machine.js';
export { VirtualHost } from './virtual/host.js';
