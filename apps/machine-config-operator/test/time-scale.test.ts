/** Durations on a compressed clock (`timeScale`, used by `keelson rehearse`): pure functions, no I/O. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DURATIONS,
  MIN_SCALED_DRAIN_ATTEMPT_MS,
  MIN_SCALED_POLL_MS,
  scaleDurations,
} from '../src/controllers/context.js';
import { MIN_SCALED_RESYNC_MS, scaled, scaledResyncMs } from '../src/operator/operator.js';
import { scaledLeaderElection } from '../src/common/runtime.js';

describe('controller durations on a compressed clock', () => {
  it('timeScale 1 keeps the upstream durations', () => {
    expect(scaleDurations(DEFAULT_DURATIONS, 1)).toEqual(DEFAULT_DURATIONS);
  });
  it('60x divides the delays (5 s render/node/drain delays become 83 ms, the 1 min drain requeue 1 s)', () => {
    const d = scaleDurations(DEFAULT_DURATIONS, 60);
    expect(d).toMatchObject({
      renderDelayMs: 83,
      nodeSyncDelayMs: 83,
      drainDelayMs: 83,
      drainRequeueMs: 1000,
      drainThresholdMs: 10_000,
      drainFailedMs: 60_000,
    });
  });
  it('polls and the drain attempt timeout keep their floors', () => {
    const d = scaleDurations(DEFAULT_DURATIONS, 60);
    expect(d.podDeletePollMs).toBe(MIN_SCALED_POLL_MS);
    expect(d.evictionRetryMs).toBe(MIN_SCALED_POLL_MS);
    expect(d.drainAttemptTimeoutMs).toBe(MIN_SCALED_DRAIN_ATTEMPT_MS);
  });
  it('rejects a time scale that is not a positive number', () => {
    expect(() => scaleDurations(DEFAULT_DURATIONS, 0)).toThrow(RangeError);
    expect(() => scaled(1000, Number.NaN)).toThrow(RangeError);
  });
});

describe('operator resync on a compressed clock', () => {
  it('is upstream 30 s at 1x, scaled down but never below the floor', () => {
    expect(scaledResyncMs(1)).toBe(30_000);
    expect(scaledResyncMs(2)).toBe(15_000);
    expect(scaledResyncMs(60)).toBe(MIN_SCALED_RESYNC_MS);
    expect(scaled(10 * 60_000, 60)).toBe(10_000);
  });
});

describe('leader election on a compressed clock', () => {
  it('is upstream 137 s / 107 s / 26 s at 1x', () => {
    expect(scaledLeaderElection(1)).toEqual({
      leaseDurationMs: 137_000,
      renewDeadlineMs: 107_000,
      retryPeriodMs: 26_000,
    });
  });
  it('keeps whole seconds, retry < renew < lease, and the 15 s / 10 s / 2 s wall-time floors at 60x', () => {
    expect(scaledLeaderElection(60)).toEqual({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 });
    expect(scaledLeaderElection(1000)).toEqual({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2000,
    });
  });
});
