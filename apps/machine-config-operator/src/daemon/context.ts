/** Everything one daemon works with: host root, host, OS driver, its Node and the cluster. */
import type { Logger } from '@keelson/kube';
import type { NodeDisruptionPolicy } from '@keelson/machineconfig';
import type { MachineConfigCache, NodeSource, NodeWriter } from './cluster.js';
import type { DrainTimeouts } from './drain.js';
import type { DaemonEventHandler, DaemonPhase } from './events.js';
import type { Host } from './host.js';
import type { DaemonMetrics } from './metrics.js';
import type { OsDriver } from './os.js';
import type { HostRoot } from './root.js';
import type { MachineConfigNodeReporter } from '../upgrade-monitor/reporter.js';

/** Cluster side of a daemon (absent in firstboot mode, which runs before the kubelet). */
export interface ClusterAccess {
  readonly writer: NodeWriter;
  readonly source: NodeSource;
  readonly configs: MachineConfigCache;
  /** Node disruption policies of the cluster (MachineConfiguration `cluster`), if any. */
  readonly nodeDisruptionPolicy?: () => Promise<NodeDisruptionPolicy | undefined>;
  /** The node's MachineConfigNode (upstream's upgrade monitor), when reported. */
  readonly mcn?: MachineConfigNodeReporter | undefined;
}

/** Dependencies of the update flow. */
export interface DaemonContext {
  readonly nodeName: string;
  readonly root: HostRoot;
  readonly host: Host;
  readonly os: OsDriver;
  readonly logger: Logger;
  readonly drainTimeouts: DrainTimeouts;
  readonly signal: AbortSignal;
  readonly onEvent?: DaemonEventHandler | undefined;
  readonly cluster?: ClusterAccess | undefined;
  /** Prometheus metrics (`mcd_*`), when served. */
  readonly metrics?: DaemonMetrics | undefined;
  /** Watch the current config's files and units while Done (default true). */
  readonly driftMonitor?: boolean | undefined;
  /** `--skip-reboot`: record the reboot but do not ask the host for it. */
  readonly skipReboot?: boolean | undefined;
}

/** Emits a progress event (and logs it). */
export function emit(ctx: DaemonContext, phase: DaemonPhase, config?: string, message?: string): void {
  ctx.logger.info(`node ${phase}`, {
    node: ctx.nodeName,
    phase,
    ...(config ? { config } : {}),
    ...(message ? { detail: message } : {}),
  });
  ctx.onEvent?.({
    node: ctx.nodeName,
    phase,
    time: Date.now(),
    ...(config ? { config } : {}),
    ...(message ? { message } : {}),
  });
}
