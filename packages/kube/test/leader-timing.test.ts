import { describe, expect, it } from 'vitest';
import {
  LeaderElector,
  OPENSHIFT_LEADER_ELECTION,
  SCALED_LEADER_ELECTION_FLOOR,
  scaledLeaderElection,
  type KubeClient,
} from '../src/index.js';

describe('scaledLeaderElection', () => {
  it("is library-go's 137 s / 107 s / 26 s at 1x, and upstream's scaled while no floor is hit", () => {
    expect(scaledLeaderElection(1)).toEqual(OPENSHIFT_LEADER_ELECTION);
    expect(scaledLeaderElection(2)).toEqual({
      leaseDurationMs: 69_000,
      renewDeadlineMs: 54_000,
      retryPeriodMs: 13_000,
    });
  });

  it('keeps whole seconds and never goes below the wall-time floors (15 s / 10 s / 2 s) on a fast clock', () => {
    for (const s of [13, 60, 600, 10_000]) expect(scaledLeaderElection(s)).toEqual(SCALED_LEADER_ELECTION_FLOOR);
    expect(scaledLeaderElection(8)).toEqual({ leaseDurationMs: 18_000, renewDeadlineMs: 14_000, retryPeriodMs: 4_000 });
  });

  it('is accepted by LeaderElector at every scale (retry x 1.2 < renew deadline < lease)', () => {
    for (const s of [0.5, 1, 1.7, 3, 7, 26, 60, 137, 600, 1e6]) {
      const t = scaledLeaderElection(s);
      for (const v of Object.values(t)) expect(v % 1000).toBe(0);
      expect(t.leaseDurationMs).toBeGreaterThan(t.renewDeadlineMs);
      expect(t.renewDeadlineMs).toBeGreaterThan(1.2 * t.retryPeriodMs);
      expect(
        () =>
          new LeaderElector({
            client: { resource: () => ({}) } as unknown as KubeClient,
            namespace: 'ns',
            name: 'lease',
            identity: 'me',
            onStartedLeading: () => undefined,
            ...t,
          }),
      ).not.toThrow();
    }
  });

  it('rejects a time scale that is not a positive number', () => {
    for (const s of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => scaledLeaderElection(s)).toThrow(RangeError);
  });
});
