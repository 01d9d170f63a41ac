/** The controllers' durations (`src/controller/durations.ts`) on a compressed clock (`timeScale`, used by `keelson rehearse`). */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DURATIONS,
  MIN_SCALED_DRAIN_ATTEMPT_MS,
  MIN_SCALED_POLL_MS,
  scaleDurations,
} from '../../src/controller/durations.js';

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
    expect(() => scaleDurations(DEFAULT_DURATIONS, Number.NaN)).toThrow(RangeError);
    expect(() => scaleDurations(DEFAULT_DURATIONS, Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
