/**
 * Leader-election durations of OpenShift components, optionally on a compressed clock (rehearsals, tests).
 *
 * Upstream: openshift/library-go pkg/config/leaderelection `LeaderElectionDefaulting` — lease 137 s, renew deadline
 * 107 s, retry period 26 s — used by the machine-config-operator and machine-config-controller
 * (openshift/machine-config-operator cmd/common `GetLeaderElectionConfig`) and by the cluster-version-operator
 * (pkg/start `leaseDuration` / `renewDeadline` / `retryPeriod`).
 */

import { OPENSHIFT_LEADER_ELECTION } from './manager.js';

/** Lease duration, renew deadline and retry period in milliseconds. */
export interface LeaderElectionTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/**
 * Wall-time floors of {@link scaledLeaderElection}: 15 s / 10 s / 2 s (client-go's own defaults). API latency does
 * not shrink with a compressed clock: a 2 s renew deadline made a leader step down on a loaded machine, and a 1 s
 * retry period made each leader write its Lease every second of wall time, whatever the simulated clock.
 */
export const SCALED_LEADER_ELECTION_FLOOR: Readonly<LeaderElectionTiming> = Object.freeze({
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
});

/**
 * {@link OPENSHIFT_LEADER_ELECTION} on a clock `timeScale` times faster: each duration divided by `timeScale`, rounded
 * up to whole seconds (the Lease's `leaseDurationSeconds` unit), never below {@link SCALED_LEADER_ELECTION_FLOOR},
 * and kept in order: retry × 1.2 < renew deadline < lease. At 1× (and any scale where nothing hits a floor) it is
 * upstream's.
 * @throws RangeError when `timeScale` is not a positive finite number
 */
export function scaledLeaderElection(timeScale: number): LeaderElectionTiming {
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`timeScale must be a positive number, got ${timeScale}`);
  const up = OPENSHIFT_LEADER_ELECTION;
  const floor = SCALED_LEADER_ELECTION_FLOOR;
  const sec = (ms: number, min: number): number => Math.max(min / 1000, Math.ceil(ms / 1000 / timeScale));
  const retry = sec(up.retryPeriodMs, floor.retryPeriodMs);
  const renew = Math.max(sec(up.renewDeadlineMs, floor.renewDeadlineMs), Math.floor(retry * 1.2) + 1);
  const lease = Math.max(sec(up.leaseDurationMs, floor.leaseDurationMs), renew + 1);
  return { leaseDurationMs: lease * 1000, renewDeadlineMs: renew * 1000, retryPeriodMs: retry * 1000 };
}
