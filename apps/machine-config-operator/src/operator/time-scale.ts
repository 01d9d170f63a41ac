/** The operator's upstream durations on a compressed clock (`--time-scale`). */

/**
 * Least resync period on a compressed clock. The operator is driven by its informers' events; the resync is only a
 * safety net, and a scaled 30 s (0.5 s at 60x) would turn it into a poll that re-reads the cluster config twice a second.
 */
export const MIN_SCALED_RESYNC_MS = 5_000;

/** An upstream duration on a clock `timeScale` times faster. */
export function scaled(ms: number, timeScale: number): number {
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`timeScale must be a positive number, got ${String(timeScale)}`);
  return Math.max(1, Math.round(ms / timeScale));
}

/** The resync period (upstream 30 s) on a clock `timeScale` times faster, at least {@link MIN_SCALED_RESYNC_MS}. */
export function scaledResyncMs(timeScale: number): number {
  return Math.min(30_000, Math.max(MIN_SCALED_RESYNC_MS, scaled(30_000, timeScale)));
}
