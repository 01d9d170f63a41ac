/**
 * The rehearsal's verdicts (pure): whether the update is over and how, from one look at the cluster, and what holds a
 * stalled update. Everything is read from what upstream components report (ClusterVersion and MachineConfigPool
 * conditions, the machine-config-controller's drain events, Node readiness), never from the fault plan.
 */
import type { NodeView } from './timeline.js';
import type { Outcome } from './report.js';

/** What the update loop decides from one look at the cluster. */
export interface RehearsalVerdict {
  outcome: Outcome;
  message: string;
}

/** An object as read from the API (only its name is needed to be typed). */
export type KubeObjectLike = { metadata: { name?: string } };

/** The latest `DrainThresholdExceeded` Event of the machine-config-controller. */
export interface DrainFailure {
  node: string;
  message: string;
}

/** Inputs of {@link decideUpdateVerdict}: plain objects as read from the API. */
export interface VerdictInput {
  clusterVersion: unknown;
  pools: readonly KubeObjectLike[];
  target: string;
  /** Pool → rendered config it ran before the update (each pool must move off it). */
  installedConfigs: ReadonlyMap<string, string>;
  pausedPools: readonly string[];
  now: number;
  /** When ClusterVersion Failing=True was first seen in a row (undefined when it is not True). */
  failingSince: number | undefined;
  /** When a pool was first seen NodeDegraded=True or Degraded=True in a row (undefined when none is). */
  degradedSince?: number | undefined;
  /**
   * When the CVO was first seen refusing the target on its preconditions in a row (ReleaseAccepted=False
   * PreconditionChecks; undefined when it is not).
   */
  refusedSince?: number | undefined;
  /** Nodes not Ready, and since when in a row. */
  downNodes?: readonly { name: string; since: number }[];
  /** How long one simulated reboot keeps a node NotReady (wall clock); see {@link nodeDownLimitMs}. */
  rebootMs?: number;
  /** The machine-config-controller reported a drain failing past its threshold. */
  drainFailure?: DrainFailure | undefined;
  /** When the update started and when it is given up. */
  startedAt: number;
  deadline: number;
}

type Obj = Record<string, unknown>;

interface Cond {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** A condition of an object's status.conditions. */
export function cond(o: unknown, type: string): Cond | undefined {
  const list = ((o as { status?: { conditions?: unknown[] } } | undefined)?.status?.conditions ?? []) as Cond[];
  return list.find((c) => c.type === type);
}

/** status.history[0] of a ClusterVersion ({} when none). */
export function history0(o: unknown): Obj {
  return (((o as { status?: { history?: unknown[] } } | undefined)?.status?.history ?? [])[0] ?? {}) as Obj;
}

/** Every pool (paused ones skipped when asked) Updated on all its machines, and moved off `notOn`'s config. */
export function poolsUpdated(
  pools: readonly KubeObjectLike[],
  skipPaused: boolean,
  notOn?: ReadonlyMap<string, string>,
): boolean {
  if (pools.length === 0) return false;
  return pools.every((p) => {
    const spec = (p as { spec?: { paused?: boolean } }).spec ?? {};
    if (skipPaused && spec.paused === true) return true;
    const st = ((p as { status?: Obj }).status ?? {}) as {
      machineCount?: number;
      updatedMachineCount?: number;
      configuration?: { name?: string };
      observedGeneration?: number;
    };
    const before = notOn?.get(p.metadata.name ?? '');
    // the status must be about the pool's current target: a newer render in spec.configuration (or a spec the
    // controller has not observed yet) means the pool is not done, whatever its last Updated condition says
    const target = (p as { spec?: { configuration?: { name?: string } } }).spec?.configuration?.name;
    const generation = (p as { metadata: { generation?: number } }).metadata.generation;
    const current =
      (target === undefined || st.configuration?.name === target) &&
      (generation === undefined || st.observedGeneration === undefined || st.observedGeneration >= generation);
    return (
      current &&
      cond(p, 'Updated')?.status === 'True' &&
      (st.machineCount ?? 0) > 0 &&
      st.updatedMachineCount === st.machineCount &&
      (before === undefined || st.configuration?.name !== before)
    );
  });
}

/** The CVO refuses the requested release on a failed precondition (ReleaseAccepted=False PreconditionChecks). */
export function refusedOnPreconditions(cv: unknown): boolean {
  const accepted = cond(cv, 'ReleaseAccepted');
  return accepted?.status === 'False' && accepted.reason === 'PreconditionChecks';
}

/**
 * Since when the CVO has refused the target on its preconditions (pure): the CVO retrieves the release again before
 * each retry (ReleaseAccepted=Unknown RetrievePayload in between), which does not end the refusal; accepting it, or
 * failing for another reason, does.
 */
export function nextRefusedSince(prev: number | undefined, cv: unknown, now: number): number | undefined {
  if (refusedOnPreconditions(cv)) return prev ?? now;
  const accepted = cond(cv, 'ReleaseAccepted');
  return accepted?.status === 'Unknown' && accepted.reason === 'RetrievePayload' ? prev : undefined;
}

/** A pool reporting NodeDegraded=True or Degraded=True. */
export function degradedPool(pools: readonly KubeObjectLike[]): KubeObjectLike | undefined {
  return pools.find((p) => cond(p, 'Degraded')?.status === 'True' || cond(p, 'NodeDegraded')?.status === 'True');
}

/** How long a condition must hold before the rehearsal calls it final: a quarter of the phase, at least 2 s. */
export function holdMs(startedAt: number, deadline: number): number {
  return Math.max(2000, (deadline - startedAt) / 4);
}

/** How long a node may stay NotReady before the rehearsal says it did not come back: 5 reboots, at least 10 s. */
export function nodeDownLimitMs(rebootMs: number): number {
  return Math.max(10_000, 5 * rebootMs);
}

/** SlowClusterOperator about operators other than machine-config (whose node rollout the pool rules judge). */
function slowOperator(cv: unknown): Cond | undefined {
  const f = cond(cv, 'Failing');
  if (f?.status !== 'Unknown' || f.reason !== 'SlowClusterOperator') return undefined;
  return /^waiting on machine-config over /.test(f.message ?? '') ? undefined : f;
}

function finished(i: VerdictInput): RehearsalVerdict | undefined {
  const h = history0(i.clusterVersion);
  if (h['version'] !== i.target || h['state'] !== 'Completed' || !poolsUpdated(i.pools, true, i.installedConfigs))
    return undefined;
  return i.pausedPools.length > 0
    ? {
        outcome: 'PoolPaused',
        message: `ClusterVersion is at ${i.target}; paused pool(s) ${i.pausedPools.join(', ')} hold the node update until unpaused`,
      }
    : { outcome: 'Completed', message: `ClusterVersion history[0] ${i.target} Completed; every pool Updated` };
}

function failed(i: VerdictInput): RehearsalVerdict | undefined {
  const hold = holdMs(i.startedAt, i.deadline);
  const degraded = degradedPool(i.pools);
  if (degraded !== undefined && i.degradedSince !== undefined && i.now - i.degradedSince >= hold) {
    return {
      outcome: 'NodeRolloutFailed',
      message: `machineconfigpool/${degraded.metadata.name ?? ''}: ${(cond(degraded, 'NodeDegraded') ?? cond(degraded, 'Degraded'))?.message ?? 'Degraded'}`,
    };
  }
  if (i.failingSince !== undefined && i.now - i.failingSince >= hold) {
    return {
      outcome: 'Failed',
      message: `ClusterVersion Failing=True: ${cond(i.clusterVersion, 'Failing')?.message ?? ''}`,
    };
  }
  return undefined;
}

function stalled(i: VerdictInput): RehearsalVerdict | undefined {
  if (i.refusedSince !== undefined && i.now - i.refusedSince >= holdMs(i.startedAt, i.deadline)) {
    // the CVO retries a failed precondition on every sync: one that holds this long needs someone to act
    return {
      outcome: 'Stalled',
      message: `ClusterVersion ReleaseAccepted=False PreconditionChecks: ${cond(i.clusterVersion, 'ReleaseAccepted')?.message ?? ''}`,
    };
  }
  const slow = slowOperator(i.clusterVersion);
  if (slow !== undefined) {
    const progressing = cond(i.clusterVersion, 'Progressing')?.message;
    return {
      outcome: 'Stalled',
      message: `ClusterVersion Failing=Unknown SlowClusterOperator: ${slow.message ?? ''}${progressing !== undefined ? `; Progressing: ${progressing}` : ''}`,
    };
  }
  if (i.drainFailure !== undefined)
    return {
      outcome: 'Stalled',
      message: `node/${i.drainFailure.node} DrainThresholdExceeded: ${i.drainFailure.message}`,
    };
  const limit = i.rebootMs === undefined ? Number.POSITIVE_INFINITY : nodeDownLimitMs(i.rebootMs);
  const down = (i.downNodes ?? []).find((n) => i.now - n.since > limit);
  if (down !== undefined) {
    return {
      outcome: 'Stalled',
      message: `node/${down.name} has been NotReady for ${Math.round((i.now - down.since) / 1000)}s, a reboot takes ${Math.round((i.rebootMs ?? 0) / 100) / 10}s here: it did not come back from its reboot`,
    };
  }
  if (i.now > i.deadline) {
    return {
      outcome: 'Stalled',
      message: `the update to ${i.target} did not complete in ${Math.round((i.deadline - i.startedAt) / 1000)}s: ${cond(i.clusterVersion, 'Progressing')?.message ?? ''}`,
    };
  }
  return undefined;
}

/**
 * Decides whether the update is over and how (pure):
 * - Completed: history[0] is the target, Completed, every unpaused pool Updated on a new config (PoolPaused when a
 *   pool was paused);
 * - NodeRolloutFailed: a pool NodeDegraded/Degraded held for {@link holdMs} (a daemon's transient error clears on
 *   its retry well before);
 * - Failed: ClusterVersion Failing=True held for {@link holdMs};
 * - Stalled, as soon as upstream says the update is stuck: the target refused on a precondition for {@link holdMs}
 *   (e.g. an admin ack nobody gave), Failing=Unknown SlowClusterOperator (an operator
 *   other than machine-config has not reported the version for 30 minutes), a drain past the controller's
 *   DrainThresholdExceeded, a node NotReady for {@link nodeDownLimitMs}; or at the deadline.
 * Undefined while the update runs.
 */
export function decideUpdateVerdict(i: VerdictInput): RehearsalVerdict | undefined {
  return finished(i) ?? failed(i) ?? stalled(i);
}

/**
 * A stalled update's message with what holds it (pure): pools not yet on their new config, evictions refused by a
 * PodDisruptionBudget (the eviction API's 429 text), nodes NotReady or reporting Degraded.
 */
export function explainStall(
  message: string,
  pools: readonly KubeObjectLike[],
  pdbRefusals: number,
  nodes: readonly NodeView[] = [],
): string {
  const behind = pools.flatMap((p) => {
    const st = ((p as { status?: Obj }).status ?? {}) as {
      machineCount?: number;
      updatedMachineCount?: number;
      unavailableMachineCount?: number;
    };
    return cond(p, 'Updated')?.status === 'True'
      ? []
      : [
          `machineconfigpool/${p.metadata.name ?? ''} ${st.updatedMachineCount ?? 0}/${st.machineCount ?? 0} updated, ${st.unavailableMachineCount ?? 0} unavailable`,
        ];
  });
  const parts = [message, ...behind];
  for (const n of nodes) {
    if (!n.ready)
      parts.push(
        `node/${n.name} NotReady (desiredConfig ${n.desiredConfig || '-'}, currentConfig ${n.currentConfig || '-'})`,
      );
    else if (n.phase === 'degraded') parts.push(`node/${n.name} Degraded: ${n.reason ?? ''}`);
  }
  if (pdbRefusals > 0)
    parts.push(
      `drain blocked: ${pdbRefusals} evictions refused (Cannot evict pod as it would violate the pod's disruption budget.)`,
    );
  return parts.join('; ');
}
