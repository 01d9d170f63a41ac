/**
 * The MachineConfigNode reports of the daemon, with upstream's types, reasons and messages
 * (openshift/machine-config-operator pkg/daemon/daemon.go syncNode / checkStateOnFirstRun / updateConfigAndState,
 * pkg/daemon/update.go update / updateOnClusterBuild / reboot, pkg/daemon/drain.go performDrain).
 */
import { MACHINE_CONFIG_NODE_CONDITIONS as C, type Node } from '@keelson/api';
import type { McnCondition, McnConditionStatus } from '../upgrade-monitor/conditions.js';
import type { DaemonContext } from './context.js';

const c = (type: string, status: McnConditionStatus, reason: string, message: string): McnCondition => ({
  type,
  status,
  reason,
  message,
});

/** Queues a report on the daemon's MCN (no-op without cluster access or MCN reporting). */
export function reportMcn(ctx: DaemonContext, parent: McnCondition, child?: McnCondition): void {
  ctx.cluster?.mcn?.report(parent, child);
}

/** Writes the queued MCN reports (never throws); `node` as the last Node write returned it. */
export async function flushMcn(ctx: DaemonContext, node?: Node): Promise<void> {
  await ctx.cluster?.mcn?.flush(node);
}

/** Go's `%v` of a []string. */
const goList = (xs: readonly string[]): string => `[${xs.join(' ')}]`;

/** syncNode: an update is needed. */
export const needsUpdate = (node: string): McnCondition =>
  c(C.Updated, 'False', C.Updated, `Node ${node} needs an update`);

/** update(): the update is compatible. */
export const updateCompatible = (legacyActions: readonly string[], drain: boolean): McnCondition =>
  c(
    C.UpdatePrepared,
    'True',
    C.UpdatePrepared,
    `Update Compatible. Post Cfg Actions: ${goList(legacyActions)} Drain Required: ${String(drain)}`,
  );

/** update(): the configs are not reconcilable. */
export const updateNotCompatible = (from: string, to: string, err: string): McnCondition =>
  c(
    C.UpdatePrepared,
    'Unknown',
    C.UpdatePrepared,
    `Update Failed compatibility validation. MachineConfigs ${from} and ${to} are not compatible. Err: ${err}`,
  );

/** performDrain: no drain for this update (parent and child). */
export function drainNotRequired(): [McnCondition, McnCondition] {
  const m = 'Node Drain Not required for this update.';
  return [c(C.UpdateExecuted, 'Unknown', C.Drained, m), c(C.Drained, 'False', `${C.UpdateExecuted}${C.Drained}`, m)];
}

const will = (b: boolean): string => (b ? '' : 'not');

/** update(): writing files and OS (parent and child). */
export function applyingFilesAndOS(os: boolean, ssh: boolean): [McnCondition, McnCondition] {
  return [
    c(
      C.UpdateExecuted,
      'Unknown',
      C.AppliedFilesAndOS,
      'Updating the Files and OS on disk as a part of the in progress phase',
    ),
    c(
      C.AppliedFilesAndOS,
      'Unknown',
      `${C.UpdateExecuted}${C.AppliedFilesAndOS}`,
      `Applying files and new OS config to node. OS will ${will(os)} need an update. SSH Keys will ${will(ssh)} need an update`,
    ),
  ];
}

/** update(): files and OS written (parent and child). */
export function appliedFilesAndOS(os: boolean, ssh: boolean): [McnCondition, McnCondition] {
  return [
    c(
      C.UpdateExecuted,
      'True',
      C.AppliedFilesAndOS,
      'Updated the Files and OS on disk as a part of the in progress phase',
    ),
    c(
      C.AppliedFilesAndOS,
      'True',
      `${C.UpdateExecuted}${C.AppliedFilesAndOS}`,
      `Applied files and new OS config to node. OS did ${will(os)} need an update. SSH Keys did ${will(ssh)} need an update`,
    ),
  ];
}

/** reboot requested. */
export const rebootRequired = (): McnCondition =>
  c(C.RebootedNode, 'Unknown', C.RebootedNode, 'Upgrade requires a reboot.');

/** No reboot: what ran instead (upstream: reason None without a service, else the reloaded service). */
export function postActionComplete(services: readonly string[]): McnCondition {
  if (services.length === 0) return c(C.UpdatePostActionComplete, 'True', 'None', 'Changes do not require a reboot');
  return c(
    C.UpdatePostActionComplete,
    'True',
    C.UpdatePostActionComplete,
    `Node has reloaded service ${services.join(', ')}`,
  );
}

/** syncNode after the reboot (post-config-action was `Rebooting`). */
export const rebooted = (): McnCondition => c(C.RebootedNode, 'True', C.RebootedNode, 'Node has rebooted');

/** updateConfigAndState: in the desired config again. */
export const resumed = (config: string): McnCondition =>
  c(
    C.Resumed,
    'True',
    C.Resumed,
    `In desired config ${config}. Resumed normal operations. Applying proper annotations.`,
  );

/** syncNode: nothing to update. */
export const updated = (node: string): McnCondition => c(C.Updated, 'True', C.Updated, `Node ${node} Updated`);
