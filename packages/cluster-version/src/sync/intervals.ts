/** Every duration the operator uses, with upstream defaults; `timeScale` compresses them all for rehearsals. */

/** Exponential backoff of one task (upstream `wait.Backoff`). */
export interface TaskBackoff {
  durationMs: number;
  factor: number;
  steps: number;
  capMs: number;
}

/** Durations of the sync worker and status reporting. */
export interface Intervals {
  /** Base resync period (upstream 2 min; the worker waits 1-2x this between reconciles). */
  minimumReconcileIntervalMs: number;
  /** Least time between status writes that are not edges (upstream 15 s). */
  statusIntervalMs: number;
  /** How often the update service is polled (upstream: the resync period). */
  updateCheckIntervalMs: number;
  /** Task retries in Updating/Reconciling (upstream 10 s x1.3, 3 steps, cap 15 s). */
  taskBackoff: TaskBackoff;
  /** Task retries in Initializing (upstream 1 s x2, 4 steps, cap 15 s). */
  initializingTaskBackoff: TaskBackoff;
  /** Slow ClusterOperator threshold (upstream 30 min). */
  slowOperatorMs: number;
  /** Slow threshold for machine-config (upstream 90 min). */
  slowMachineConfigMs: number;
  /** How long a Degraded ClusterOperator is tolerated during an update (upstream 40 min). */
  degradedIntervalMs: number;
  /** Lease duration / renew deadline / retry period of leader election (upstream 137 s / 107 s / 26 s). */
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** One minute on this clock (60 s scaled by `timeScale`); messages report upstream's minutes. */
  minuteMs: number;
}

/** Upstream defaults. */
export const UPSTREAM_INTERVALS: Intervals = {
  minimumReconcileIntervalMs: 2 * 60_000,
  statusIntervalMs: 15_000,
  updateCheckIntervalMs: 2 * 60_000,
  taskBackoff: { durationMs: 10_000, factor: 1.3, steps: 3, capMs: 15_000 },
  initializingTaskBackoff: { durationMs: 1_000, factor: 2, steps: 4, capMs: 15_000 },
  slowOperatorMs: 30 * 60_000,
  slowMachineConfigMs: 90 * 60_000,
  degradedIntervalMs: 40 * 60_000,
  leaseDurationMs: 137_000,
  renewDeadlineMs: 107_000,
  retryPeriodMs: 26_000,
  minuteMs: 60_000,
};

/** Upstream defaults multiplied by `timeScale` (e.g. 0.01 = a 100x faster clock), then explicit overrides. */
export function resolveIntervals(timeScale = 1, overrides: Partial<Intervals> = {}): Intervals {
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`timeScale must be a positive number, got ${timeScale}`);
  const s = (ms: number): number => Math.max(1, Math.round(ms * timeScale));
  const b = (x: TaskBackoff): TaskBackoff => ({ ...x, durationMs: s(x.durationMs), capMs: s(x.capMs) });
  const u = UPSTREAM_INTERVALS;
  return {
    minimumReconcileIntervalMs: s(u.minimumReconcileIntervalMs),
    statusIntervalMs: s(u.statusIntervalMs),
    updateCheckIntervalMs: s(u.updateCheckIntervalMs),
    taskBackoff: b(u.taskBackoff),
    initializingTaskBackoff: b(u.initializingTaskBackoff),
    slowOperatorMs: s(u.slowOperatorMs),
    slowMachineConfigMs: s(u.slowMachineConfigMs),
    degradedIntervalMs: s(u.degradedIntervalMs),
    leaseDurationMs: s(u.leaseDurationMs),
    renewDeadlineMs: s(u.renewDeadlineMs),
    retryPeriodMs: s(u.retryPeriodMs),
    minuteMs: 60_000 * timeScale,
    ...overrides,
  };
}

/** Delays between attempts of a backoff (steps-1 sleeps). */
export function backoffDelays(b: TaskBackoff): number[] {
  const out: number[] = [];
  let d = b.durationMs;
  for (let i = 0; i < b.steps - 1; i++) {
    out.push(Math.min(d, b.capMs));
    d *= b.factor;
  }
  return out;
}

/** Wait after `consecutiveErrors` failed applies: interval/16 x 2^n for n < 4, else the interval; ±20 % jitter. */
export function failureBackoffMs(
  intervalMs: number,
  consecutiveErrors: number,
  random: () => number = Math.random,
): number {
  const base = consecutiveErrors < 4 ? (intervalMs / 16) * 2 ** consecutiveErrors : intervalMs;
  return Math.round(base * (1 + 0.2 * random()));
}
