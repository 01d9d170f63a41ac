/**
 * The ClusterVersion `Upgradeable` condition as the CVO aggregates it (classic `pkg/cvo/upgradeable.go`, cvo.md 5.4):
 * ClusterOperators reporting `Upgradeable=False`, ClusterVersion overrides, resource deletions in progress. The
 * `ClusterVersionUpgradeable` precondition then blocks minor and major updates while it is False.
 */
import { OVERRIDES_SET, type PreconditionCondition } from './preconditions.js';

/** The fields of a ClusterOperator this reads (a @keelson/api `ClusterOperator` is one). */
export interface UpgradeableOperator {
  metadata: { name?: string };
  status?: { conditions?: readonly PreconditionCondition[] };
}

/** The computed `Upgradeable=False` condition. */
export interface UpgradeableCondition {
  type: 'Upgradeable';
  status: 'False';
  reason: string;
  message: string;
}

interface Reason {
  reason: string;
  message: string;
}

function operatorReasons(operators: readonly UpgradeableOperator[]): Reason[] {
  const blocked = operators
    .map((co) => ({ name: co.metadata.name ?? '', c: (co.status?.conditions ?? []).find((x) => x.type === 'Upgradeable') }))
    .filter((x) => x.c?.status === 'False')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const first = blocked[0];
  if (first === undefined) return [];
  if (blocked.length === 1) return [{ reason: first.c?.reason ?? '', message: `Cluster operator ${first.name} should not be upgraded between minor versions: ${first.c?.message ?? ''}` }];
  return [
    {
      reason: 'ClusterOperatorsNotUpgradeable',
      message: `Multiple cluster operators should not be upgraded between minor versions:\n${blocked.map((b) => `* Cluster operator ${b.name} should not be upgraded between minor versions: ${b.c?.reason ?? ''}: ${b.c?.message ?? ''}`).join('\n')}`,
    },
  ];
}

/**
 * Computes `Upgradeable`; `null` means no reason applies (the CVO removes the condition).
 * @param operators every ClusterOperator of the cluster
 * @param overrides ClusterVersion `spec.overrides` (only `unmanaged` is read)
 * @param deletesInProgress resources the CVO is deleting (`release.openshift.io/delete`), as `kind ns/name`
 */
export function computeUpgradeable<O extends { unmanaged: boolean }>(operators: readonly UpgradeableOperator[], overrides: readonly O[] | undefined, deletesInProgress: readonly string[]): UpgradeableCondition | null {
  const reasons = operatorReasons(operators);
  if ((overrides ?? []).some((o) => o.unmanaged)) reasons.push({ ...OVERRIDES_SET });
  if (deletesInProgress.length > 0) {
    reasons.push({ reason: 'ResourceDeletesInProgress', message: `Cluster minor level upgrades are not allowed while resource deletions are in progress; resources=${[...deletesInProgress].sort().join(',')}` });
  }
  const only = reasons[0];
  if (only === undefined) return null;
  if (reasons.length === 1) return { type: 'Upgradeable', status: 'False', reason: only.reason, message: only.message };
  return {
    type: 'Upgradeable',
    status: 'False',
    reason: 'MultipleReasons',
    message: `Cluster should not be upgraded between minor versions for multiple reasons: ${reasons.map((r) => r.reason).join(',')}\n* ${reasons.map((r) => r.message).join('\n* ')}`,
  };
}
