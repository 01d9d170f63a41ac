/**
 * Leader-election timings by control-plane topology (openshift/cluster-version-operator `pkg/start/start.go`
 * `getLeaderElectionConfig`; openshift/library-go `pkg/config/leaderelection` `LeaderElectionDefaulting` = 137 s /
 * 107 s / 26 s and `LeaderElectionSNOConfig` = 270 s / 240 s / 60 s, which tolerate a single API server's restart).
 */
import { isNotFound, type KubeClient, type Logger } from '@keelson/kube';
import { Infrastructures } from './resources.js';

/** Lease timings in ms. */
export interface LeaseTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** library-go `LeaderElectionSNOConfig` (unscaled). */
export const SINGLE_NODE_LEASE: LeaseTimings = {
  leaseDurationMs: 270_000,
  renewDeadlineMs: 240_000,
  retryPeriodMs: 60_000,
};

/**
 * The timings for this cluster: single-node ones (× `timeScale`) when Infrastructure `cluster` reports
 * `controlPlaneTopology: SingleReplica`, else `ha` (the HA defaults, already scaled). An unreadable Infrastructure
 * keeps the HA values with upstream's warning.
 */
export async function leaseTimingsFor(
  client: KubeClient,
  ha: LeaseTimings,
  timeScale: number,
  log: Logger,
  signal?: AbortSignal,
): Promise<LeaseTimings & { topology: string }> {
  try {
    const infra = await client.resource(Infrastructures).get('cluster', undefined, signal);
    const topology = infra.status?.controlPlaneTopology ?? '';
    if (topology !== 'SingleReplica') return { ...ha, topology };
    const s = (ms: number): number => Math.max(1, Math.round(ms * timeScale));
    return {
      leaseDurationMs: s(SINGLE_NODE_LEASE.leaseDurationMs),
      renewDeadlineMs: s(SINGLE_NODE_LEASE.renewDeadlineMs),
      retryPeriodMs: s(SINGLE_NODE_LEASE.retryPeriodMs),
      topology,
    };
  } catch (e) {
    const why = isNotFound(e) ? 'infrastructures.config.openshift.io "cluster" not found' : (e as Error).message;
    log.warn(`unable to get cluster infrastructure status, using HA cluster values for leader election: ${why}`);
    return { ...ha, topology: '' };
  }
}
