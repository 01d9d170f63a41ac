/**
 * Pure interpretation of apply errors (upstream `summarizeTaskGraphErrors` and `convertErrorToProgressing`,
 * pkg/cvo/sync_worker.go): condense ClusterOperator errors, and decide over time whether an error is a failure yet.
 */
import { UpdateError, type UpdateEffect } from '../errors.js';

const EFFECT_RANK: Record<UpdateEffect, number> = { Fail: 3, FailAfterInterval: 2, None: 1, Report: 0 };

const PLURAL: Record<string, { reason: string; format: (names: string) => string }> = {
  ClusterOperatorNotAvailable: {
    reason: 'ClusterOperatorsNotAvailable',
    format: (n) => `Cluster operators ${n} are not available`,
  },
  ClusterOperatorDegraded: { reason: 'ClusterOperatorsDegraded', format: (n) => `Cluster operators ${n} are degraded` },
  ClusterOperatorUpdating: {
    reason: 'ClusterOperatorsUpdating',
    format: (n) => `Cluster operators ${n} are updating versions`,
  },
};

function isContextError(e: Error): boolean {
  return (
    /context (canceled|deadline exceeded)/.test(e.message) ||
    (e as { code?: string }).code === 'CANCELED' ||
    (e as { code?: string }).code === 'INCOMPLETE'
  );
}

/** Condenses the errors of one graph run into at most one error (`MultipleErrors` when several remain). */
export function summarizeTaskGraphErrors(errs: readonly Error[]): Error | null {
  const real = errs.filter((e) => !isContextError(e));
  if (real.length === 0) {
    const incomplete = errs.find((e) => (e as { code?: string }).code === 'INCOMPLETE');
    return incomplete ?? null;
  }
  const byReason = new Map<string, UpdateError[]>();
  const rest: Error[] = [];
  for (const e of real) {
    if (e instanceof UpdateError && PLURAL[e.reason]) {
      const list = byReason.get(e.reason) ?? [];
      list.push(e);
      byReason.set(e.reason, list);
    } else rest.push(e);
  }
  const condensed: Error[] = [];
  for (const [reason, list] of byReason) {
    const first = list[0];
    if (list.length === 1 && first) {
      condensed.push(first);
      continue;
    }
    const names = [...new Set(list.flatMap((e) => e.names))].sort();
    const effect = list.map((e) => e.effect).reduce((a, b) => (EFFECT_RANK[b] > EFFECT_RANK[a] ? b : a));
    const plural = PLURAL[reason];
    if (!plural) continue;
    condensed.push(
      new UpdateError({
        reason: plural.reason,
        message: plural.format(names.join(', ')),
        effect,
        name: names.join(', '),
        names,
      }),
    );
  }
  const all = [...condensed, ...rest];
  if (all.length === 1) return all[0] ?? null;
  const msgs = [...new Set(all.map((e) => e.message))].sort();
  const effect = all
    .map((e) => (e instanceof UpdateError ? e.effect : 'Fail'))
    .reduce((a, b) => (EFFECT_RANK[b] > EFFECT_RANK[a] ? b : a));
  return new UpdateError({
    reason: 'MultipleErrors',
    message: `Multiple errors are preventing progress:\n* ${msgs.join('\n* ')}`,
    effect: effect === 'Report' ? 'Fail' : effect === 'None' ? 'Fail' : effect,
  });
}

/** Durations of the failure interpretation (upstream constants; scaled for compressed clocks). */
export interface FailureIntervals {
  /** Slow ClusterOperator threshold (upstream 30 min). */
  slowOperatorMs: number;
  /** Slow threshold for `machine-config` (upstream 90 min). */
  slowMachineConfigMs: number;
  /** How long a Degraded operator is tolerated during an update (upstream 40 min). */
  degradedIntervalMs: number;
  /** Length of one minute on this clock (60 000 ms; less on a compressed clock), so messages keep upstream's minutes. */
  minuteMs?: number;
}

/** Upstream values of {@link FailureIntervals}. */
export const UPSTREAM_FAILURE_INTERVALS: FailureIntervals = {
  slowOperatorMs: 30 * 60_000,
  slowMachineConfigMs: 90 * 60_000,
  degradedIntervalMs: 40 * 60_000,
};

/** How a (summarised) error shows in Progressing/Failing. */
export interface ErrorInterpretation {
  /** `false`: not a failure yet; `true`: Failing=True; `unknown`: Failing=Unknown (slow operators). */
  failing: 'true' | 'false' | 'unknown';
  reason: string;
  /** Failing message (full error text) or the slow-operator message. */
  message: string;
  /** Suffix for the Progressing message when the failure is suppressed (`waiting on X`). */
  waitingOn?: string;
  /** Name(s) the error is about (operators, workloads), for the Progressing summary. */
  name?: string;
}

/**
 * Decides whether an error is a failure yet (`convertErrorToProgressing`): ClusterOperator updating (effect None) is
 * progress, slow after {@link FailureIntervals.slowOperatorMs}; Degraded (FailAfterInterval) is tolerated for
 * {@link FailureIntervals.degradedIntervalMs}; anything else fails at once. `since` gives, per operator name, when
 * the CVO first waited on it in this update.
 */
export function interpretError(
  err: Error,
  reconciling: boolean,
  now: number,
  since: ReadonlyMap<string, number>,
  iv: FailureIntervals,
): ErrorInterpretation {
  const r = interpret(err, reconciling, now, since, iv);
  if (err instanceof UpdateError && err.updateName !== '') r.name = err.updateName;
  return r;
}

function interpret(
  err: Error,
  reconciling: boolean,
  now: number,
  since: ReadonlyMap<string, number>,
  iv: FailureIntervals,
): ErrorInterpretation {
  const ue = err instanceof UpdateError ? err : undefined;
  const reason = ue?.reason ?? 'UpdatePayloadFailed';
  if (reconciling || !ue) return { failing: 'true', reason, message: err.message };
  const names = ue.names.length > 0 ? ue.names : [ue.updateName];
  const minutes = (ms: number): number => Math.round(ms / (iv.minuteMs ?? 60_000));
  if (ue.effect === 'None') {
    const slow: string[] = [];
    let mcoSlow = false;
    for (const n of names) {
      const start = since.get(n) ?? now;
      if (n === 'machine-config') {
        if (now - start > iv.slowMachineConfigMs) mcoSlow = true;
      } else if (now - start > iv.slowOperatorMs) slow.push(n);
    }
    const waitingOn = `waiting on ${names.join(', ')}`;
    if (slow.length === 0 && !mcoSlow) return { failing: 'false', reason, message: err.message, waitingOn };
    let msg: string;
    if (slow.length > 0 && mcoSlow)
      msg = `waiting on ${slow.join(', ')} over ${minutes(iv.slowOperatorMs)} minutes and machine-config over ${minutes(iv.slowMachineConfigMs)} minutes which is longer than expected`;
    else if (mcoSlow)
      msg = `waiting on machine-config over ${minutes(iv.slowMachineConfigMs)} minutes which is longer than expected`;
    else msg = `waiting on ${slow.join(', ')} over ${minutes(iv.slowOperatorMs)} minutes which is longer than expected`;
    return { failing: 'unknown', reason: 'SlowClusterOperator', message: msg, waitingOn };
  }
  if (ue.effect === 'FailAfterInterval') {
    const exceeded = names.filter((n) => now - (since.get(n) ?? now) > iv.degradedIntervalMs);
    if (exceeded.length === 0)
      return {
        failing: 'false',
        reason,
        message: err.message,
        waitingOn: `waiting up to ${minutes(iv.degradedIntervalMs)} minutes on ${names.join(', ')}`,
      };
    return {
      failing: 'true',
      reason,
      message: `wait has exceeded ${minutes(iv.degradedIntervalMs)} minutes for these operators: ${exceeded.join(', ')}`,
    };
  }
  if (ue.effect === 'Report') return { failing: 'false', reason, message: err.message };
  return { failing: 'true', reason, message: err.message };
}
