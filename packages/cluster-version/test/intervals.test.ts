/** Sync intervals and backoffs (upstream pkg/cvo/sync_worker.go, pkg/cvo/cvo.go). */
import { describe, expect, it } from 'vitest';
import { backoffDelays, failureBackoffMs, resolveIntervals } from '../src/sync/intervals.js';

describe('intervals', () => {
  it('upstream task backoffs: 10 s then 13 s; Initializing 1, 2, 4 s', () => {
    const iv = resolveIntervals();
    expect(backoffDelays(iv.taskBackoff)).toEqual([10_000, 13_000]);
    expect(backoffDelays(iv.initializingTaskBackoff)).toEqual([1000, 2000, 4000]);
  });
  it('failure backoff interval/16 x 2^n up to the interval, +0..20 % jitter; timeScale compresses', () => {
    expect(failureBackoffMs(160_000, 0, () => 0)).toBe(10_000);
    expect(failureBackoffMs(160_000, 3, () => 0)).toBe(80_000);
    expect(failureBackoffMs(160_000, 5, () => 1)).toBe(192_000);
    expect(resolveIntervals(0.01).slowOperatorMs).toBe(18_000);
    expect(() => resolveIntervals(0)).toThrow(RangeError);
  });
});
