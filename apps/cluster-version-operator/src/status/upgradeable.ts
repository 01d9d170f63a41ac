/** The classic `Upgradeable` aggregation (cvo.md 5.4): ClusterOperators, overrides, deletes in progress. */
import type { Condition } from '@keelson/kube';
import type { ClusterOperator, ComponentOverrideSpec } from '../api-types.js';

interface Reason {
  reason: string;
  message: string;
}

/** Computes `Upgradeable`; `null` means no reason applies (the condition is removed). */
export function computeUpgradeable(operators: readonly ClusterOperator[], overrides: readonly ComponentOverrideSpec[] | undefined, deletesInProgress: readonly string[]): Condition | null {
  const reasons: Reason[] = [];
  const blocked = operators
    .map((co) => ({ name: co.metadata.name ?? '', c: (co.status?.conditions ?? []).find((x) => x.type === 'Upgradeable') }))
    .filter((x) => x.c?.status === 'False')
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const first = blocked[0];
  if (blocked.length === 1 && first) {
    reasons.push({ reason: first.c?.reason ?? '', message: `Cluster operator ${first.name} should not be upgraded between minor versions: ${first.c?.message ?? ''}` });
  } else if (blocked.length > 1) {
    reasons.push({
      reason: 'ClusterOperatorsNotUpgradeable',
      message: `Multiple cluster operators should not be upgraded between minor versions:\n${blocked.map((b) => `* Cluster operator ${b.name} should not be upgraded between minor versions: ${b.c?.reason ?? ''}: ${b.c?.message ?? ''}`).join('\n')}`,
    });
  }
  if ((overrides ?? []).some((o) => o.unmanaged)) {
    reasons.push({ reason: 'ClusterVersionOverridesSet', message: 'Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.' });
  }
  if (deletesInProgress.length > 0) {
    reasons.push({ reason: 'ResourceDeletesInProgress', message: `Cluster minor level upgrades are not allowed while resource deletions are in progress; resources=${[...deletesInProgress].sort().join(',')}` });
  }
  const only = reasons[0];
  if (!only) return null;
  if (reasons.length === 1) return { type: 'Upgradeable', status: 'False', reason: only.reason, message: only.message };
  return {
    type: 'Upgradeable',
    status: 'False',
    reason: 'MultipleReasons',
    message: `Cluster should not be upgraded between minor versions for multiple reasons: ${reasons.map((r) => r.reason).join(',')}\n* ${reasons.map((r) => r.message).join('\n* ')}`,
  };
}
