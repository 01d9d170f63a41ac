/** The MCO controllers' durations (upstream values) and their scaling onto a faster clock. */

/** Durations of the controllers (upstream values by default; tests shorten them). */
export interface ControllerDurations {
  /** Delay of every render enqueue, batching MC churn (upstream 5 s). */
  renderDelayMs: number;
  /** Delay of node-controller pool syncs after node/pool events (upstream 5 s). */
  nodeSyncDelayMs: number;
  /** Delay of drain-controller reactions (upstream 5 s). */
  drainDelayMs: number;
  /** Retry of a failed drain (upstream 1 min), and after the threshold (5 min). */
  drainRequeueMs: number;
  drainRequeueAfterThresholdMs: number;
  /** A drain failing longer than this gets DrainThresholdExceeded and the slower requeue (upstream 10 min). */
  drainThresholdMs: number;
  /** A drain failing longer than this gets DrainFailed (upstream 1 h). */
  drainFailedMs: number;
  /** Wait between eviction retries refused by a PodDisruptionBudget (upstream 5 s). */
  evictionRetryMs: number;
  /** Per-attempt drain timeout (upstream 90 s). */
  drainAttemptTimeoutMs: number;
  /** How long a deleted pod may take to disappear before the drain attempt fails (bounded by the attempt timeout). */
  podDeletePollMs: number;
  /** One minute on this clock: messages that name durations in minutes (as upstream) count in these. */
  minuteMs: number;
}

/** Upstream durations. */
export const DEFAULT_DURATIONS: ControllerDurations = {
  renderDelayMs: 5_000,
  nodeSyncDelayMs: 5_000,
  drainDelayMs: 5_000,
  drainRequeueMs: 60_000,
  drainRequeueAfterThresholdMs: 5 * 60_000,
  drainThresholdMs: 10 * 60_000,
  drainFailedMs: 60 * 60_000,
  evictionRetryMs: 5_000,
  drainAttemptTimeoutMs: 90_000,
  podDeletePollMs: 1_000,
  minuteMs: 60_000,
};

/** Least wait of a poll on a compressed clock: a scaled 1 s poll must not become a busy loop of GETs. */
export const MIN_SCALED_POLL_MS = 100;
/** Least per-attempt drain timeout on a compressed clock (evictions and pod deletions take real time here). */
export const MIN_SCALED_DRAIN_ATTEMPT_MS = 5_000;

/**
 * The upstream durations on a clock `timeScale` times faster (rehearsals: 60 turns the 5 s render delay into 83 ms).
 * Polls keep at least {@link MIN_SCALED_POLL_MS} and a drain attempt at least {@link MIN_SCALED_DRAIN_ATTEMPT_MS}.
 */
export function scaleDurations(d: ControllerDurations, timeScale: number): ControllerDurations {
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`timeScale must be a positive number, got ${String(timeScale)}`);
  const s = (ms: number, floor = 1): number => Math.max(floor, Math.round(ms / timeScale));
  return {
    renderDelayMs: s(d.renderDelayMs),
    nodeSyncDelayMs: s(d.nodeSyncDelayMs),
    drainDelayMs: s(d.drainDelayMs),
    drainRequeueMs: s(d.drainRequeueMs),
    drainRequeueAfterThresholdMs: s(d.drainRequeueAfterThresholdMs),
    drainThresholdMs: s(d.drainThresholdMs),
    drainFailedMs: s(d.drainFailedMs),
    evictionRetryMs: s(d.evictionRetryMs, MIN_SCALED_POLL_MS),
    drainAttemptTimeoutMs: s(d.drainAttemptTimeoutMs, MIN_SCALED_DRAIN_ATTEMPT_MS),
    podDeletePollMs: s(d.podDeletePollMs, MIN_SCALED_POLL_MS),
    minuteMs: d.minuteMs / timeScale,
  };
}
