/** Pure decisions of the drain controller (upstream pkg/controller/drain). */
import type { Node, Pod } from '@keelson/api';
import { NodeAnnotations } from '../constants.js';
import type { ControllerDurations } from '../durations.js';

/** What to do for a node's drain request. */
export type DrainAction =
  | { kind: 'none' }
  | { kind: 'uncordon'; desired: string }
  | { kind: 'drain'; desired: string; cordon: boolean }
  | { kind: 'invalid'; message: string };

/**
 * From the node's desiredDrain/lastAppliedDrain annotations: nothing when they agree; `uncordon-…` uncordons;
 * `drain-…` cordons (unless a drain is already in flight and the node is still unschedulable) and drains.
 */
export function decideDrain(node: Node, ongoing: boolean): DrainAction {
  const ann = node.metadata.annotations ?? {};
  const desired = ann[NodeAnnotations.desiredDrain] ?? '';
  if (desired === (ann[NodeAnnotations.lastAppliedDrain] ?? '')) return { kind: 'none' };
  const verb = desired.split('-')[0] ?? '';
  if (verb === 'uncordon') return { kind: 'uncordon', desired };
  if (verb === 'drain') return { kind: 'drain', desired, cordon: !ongoing || node.spec?.unschedulable !== true };
  return { kind: 'invalid', message: `node ${node.metadata.name ?? ''}: non-recognized drain verb detected ${verb}` };
}

/** What a failed drain attempt leads to. */
export interface DrainFailureDecision {
  requeueAfterMs: number;
  /** Event DrainThresholdExceeded with this message. */
  thresholdExceeded?: string;
}

/** A duration in minutes of the controller's clock, printed like Go's `%v` of `Duration.Minutes()`. */
const minutes = (ms: number, minuteMs: number): string => String(Math.round((ms / minuteMs) * 1e3) / 1e3);

/** After a failed drain attempt that has been going on for `elapsedMs`. */
export function decideDrainFailure(elapsedMs: number, d: ControllerDurations, err: string): DrainFailureDecision {
  if (elapsedMs > d.drainThresholdMs) {
    return {
      requeueAfterMs: d.drainRequeueAfterThresholdMs,
      thresholdExceeded: `Drain failed. Drain has been failing for more than ${minutes(d.drainThresholdMs, d.minuteMs)} minutes. Waiting ${minutes(d.drainRequeueAfterThresholdMs, d.minuteMs)} minutes then retrying. Error message from drain: ${err}`,
    };
  }
  return { requeueAfterMs: d.drainRequeueMs };
}

/** Message of the DrainFailed event once a drain has been failing longer than the drain timeout. */
export function drainTimeoutMessage(nodeName: string, d: ControllerDurations): string | undefined {
  return `node ${nodeName}: drain exceeded timeout: ${goDuration(d.drainFailedMs)}. Will continue to retry.`;
}

/** A duration as Go's time.Duration prints it (1h0m0s, 1m30s, 5s, 250ms). */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/**
 * Pods a drain evicts (kubectl drain with --force --ignore-daemonsets --delete-emptydir-data): every pod on the
 * node except DaemonSet-managed pods, mirror (static) pods and pods already terminated.
 */
export function podsToEvict(pods: readonly Pod[]): Pod[] {
  return pods.filter((p) => {
    if (Object.hasOwn(p.metadata.annotations ?? {}, 'kubernetes.io/config.mirror')) return false;
    if ((p.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.kind === 'DaemonSet')) return false;
    const phase = p.status?.phase;
    return phase !== 'Succeeded' && phase !== 'Failed';
  });
}
