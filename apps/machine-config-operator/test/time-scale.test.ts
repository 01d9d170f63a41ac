/**
 * Durations on a compressed clock (`timeScale`, used by `keelson rehearse`): pure functions, no I/O. The controllers'
 * durations (`scaleDurations`) are tested in `@keelson/machineconfig` (test/controller/durations.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { MIN_SCALED_RESYNC_MS, scaled, scaledResyncMs } from '../src/operator/operator.js';
import { scaledLeaderElection } from '../src/common/runtime.js';

describe('operator resync on a compressed clock', () => {
  it('is upstream 30 s at 1x, scaled down but never below the floor', () => {
    expect(scaledResyncMs(1)).toBe(30_000);
    expect(scaledResyncMs(2)).toBe(15_000);
    expect(scaledResyncMs(60)).toBe(MIN_SCALED_RESYNC_MS);
    expect(scaled(10 * 60_000, 60)).toBe(10_000);
  });
  it('rejects a time scale that is not a positive number', () => {
    expect(() => scaled(1000, Number.NaN)).toThrow(RangeError);
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
