/**
 * Drain and uncordon requests (drain.go): the daemon never cordons or evicts itself; it sets
 * `desiredDrain` = `drain-<config>` / `uncordon-<config>` and waits until the drain controller copies it to
 * `lastAppliedDrain` (1 hour for a drain, 10 minutes for an uncordon, then the upstream error).
 */
import { NODE_ANNOTATIONS, type Node } from '@keelson/api';
import type { NodeSource, NodeWriter } from './cluster.js';

/** Drain or uncordon did not complete in time. */
export class DrainTimeoutError extends Error {
  readonly code = 'MCD_DRAIN_TIMEOUT';
  constructor(message: string) {
    super(message);
    this.name = 'DrainTimeoutError';
  }
}

/** The daemon was stopped while waiting. */
export class DaemonStoppedError extends Error {
  readonly code = 'MCD_STOPPED';
  constructor() {
    super('machine-config-daemon is stopping');
    this.name = 'DaemonStoppedError';
  }
}

/** Waits until `pred(node)` holds (checked on every change of the Node). */
export function waitForNode(
  source: NodeSource,
  pred: (n: Node) => boolean,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const check = (n: Node | undefined): boolean => n !== undefined && pred(n);
    if (check(source.current())) {
      resolve(true);
      return;
    }
    const finish = (fn: () => void): void => {
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = (): void => {
      finish(() => {
        reject(new DaemonStoppedError());
      });
    };
    const timer = setTimeout(() => {
      finish(() => {
        resolve(false);
      });
    }, timeoutMs);
    const unsubscribe = source.subscribe((n) => {
      if (check(n))
        finish(() => {
          resolve(true);
        });
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Timeouts of drain requests. */
export interface DrainTimeouts {
  /** Drain (default 1 hour). */
  readonly drainMs: number;
  /** Uncordon (default 10 minutes). */
  readonly uncordonMs: number;
}

/** Upstream's timeouts. */
export const DEFAULT_DRAIN_TIMEOUTS: DrainTimeouts = { drainMs: 60 * 60 * 1000, uncordonMs: 10 * 60 * 1000 };

const ann = (n: Node | undefined, k: string): string | undefined => n?.metadata.annotations?.[k];

/** Requests `drain-<config>` or `uncordon-<config>` and waits for the drain controller. */
export async function performDrainRequest(
  writer: NodeWriter,
  source: NodeSource,
  kind: 'drain' | 'uncordon',
  config: string,
  timeouts: DrainTimeouts,
  signal: AbortSignal,
): Promise<void> {
  const want = `${kind}-${config}`;
  const node = source.current();
  // upstream completeUpdate: "Uncordon" once the drain controller has applied the request (also when it already had)
  const uncordoned = (): void => {
    if (kind === 'uncordon')
      writer.event('Normal', 'Uncordon', `Update completed for config ${config} and node has been uncordoned`);
  };
  if (ann(node, NODE_ANNOTATIONS.lastAppliedDrain) === want) {
    uncordoned();
    return;
  }
  if (kind === 'drain') {
    writer.event('Normal', 'Cordon', `Cordoned node to apply update`);
    writer.event('Normal', 'Drain', `Draining node to update config.`);
  }
  if (ann(node, NODE_ANNOTATIONS.desiredDrain) !== want)
    await writer.setAnnotations({ [NODE_ANNOTATIONS.desiredDrain]: want });
  const timeoutMs = kind === 'drain' ? timeouts.drainMs : timeouts.uncordonMs;
  const done = await waitForNode(source, (n) => ann(n, NODE_ANNOTATIONS.lastAppliedDrain) === want, timeoutMs, signal);
  if (done) {
    uncordoned();
    return;
  }
  if (kind === 'drain') {
    writer.event('Warning', 'FailedToDrain', `failed to drain node: ${writer.name} after 1 hour`);
    throw new DrainTimeoutError(
      `failed to drain node: ${writer.name} after 1 hour. Please see machine-config-controller logs for more information`,
    );
  }
  const failMsg = `failed to uncordon node: ${writer.name} after 10 minutes. Please see machine-config-controller logs for more information`;
  writer.event('Warning', 'FailedToUncordon', failMsg);
  throw new DrainTimeoutError(failMsg);
}

/** Single-node clusters are never drained. */
export function isSingleNodeTopology(node: Node | undefined): boolean {
  return ann(node, NODE_ANNOTATIONS.controlPlaneTopology) === 'SingleReplica';
}
