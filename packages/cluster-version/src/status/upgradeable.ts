/**
 * The ClusterVersion `Upgradeable` conditions as the CVO computes them (upstream release-4.20 `pkg/cvo/upgradeable.go`):
 * overrides, admin-ack gates, ClusterOperators reporting `Upgradeable=False`, resource deletions in progress, an update
 * in progress. The `ClusterVersionUpgradeable` precondition then blocks minor and major updates while it is False.
 */
import { checkAdminAcks, UPGRADEABLE_ADMIN_ACK_REQUIRED, type AdminAckInput } from './admin-acks.js';
import type { PreconditionCondition } from '../preconditions/preconditions.js';

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
    .map((co) => ({
      name: co.metadata.name ?? '',
      c: (co.status?.conditions ?? []).find((x) => x.type === 'Upgradeable'),
    }))
    .filter((x) => x.c?.status === 'False')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const first = blocked[0];
  if (first === undefined) return [];
  if (blocked.length === 1)
    return [
      {
        reason: first.c?.reason ?? '',
        message: `Cluster operator ${first.name} should not be upgraded between minor versions: ${first.c?.message ?? ''}`,
      },
    ];
  return [
    {
      reason: 'ClusterOperatorsNotUpgradeable',
      message: `Multiple cluster operators should not be upgraded between minor versions:\n${blocked.map((b) => `* Cluster operator ${b.name} should not be upgraded between minor versions: ${b.c?.reason ?? ''}: ${b.c?.message ?? ''}`).join('\n')}`,
    },
  ];
}

/** Inputs of {@link computeUpgradeableConditions}. */
export interface UpgradeableInput {
  /** Every ClusterOperator of the cluster. */
  operators: readonly UpgradeableOperator[];
  /** ClusterVersion `spec.overrides` (only `unmanaged` is read). */
  overrides: readonly { readonly unmanaged: boolean }[] | undefined;
  /** Resources the CVO is deleting (`release.openshift.io/delete`), as `kind ns/name`. */
  deletesInProgress: readonly string[];
  /** The admin-ack gates and acknowledgements (omitted: not checked, e.g. offline). */
  adminAcks?: AdminAckInput;
  /** The ClusterVersion's Progressing condition is True (release-4.20 `upgradeInProgressUpgradeable`). */
  updateInProgress?: boolean;
}

/** One condition of the Upgradeable family (`Upgradeable`, `UpgradeableClusterOperators`, …). */
export interface UpgradeableStatusCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** upstream `defaultUpgradeableChecks` in order: overrides, admin acks, ClusterOperators, deletes, update in progress. */
function upgradeableChecks(input: UpgradeableInput): UpgradeableStatusCondition[] {
  const out: UpgradeableStatusCondition[] = [];
  if ((input.overrides ?? []).some((o) => o.unmanaged)) {
    out.push({
      type: 'UpgradeableClusterVersionOverrides',
      status: 'False',
      reason: 'ClusterVersionOverridesSet',
      message:
        'Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.',
    });
  }
  const ack = input.adminAcks ? checkAdminAcks(input.adminAcks) : undefined;
  if (ack) out.push({ type: UPGRADEABLE_ADMIN_ACK_REQUIRED, status: 'False', ...ack });
  const [cos] = operatorReasons(input.operators);
  if (cos) out.push({ type: 'UpgradeableClusterOperators', status: 'False', ...cos });
  if (input.deletesInProgress.length > 0) {
    const resources = [...input.deletesInProgress].sort().join(',');
    out.push({
      type: 'UpgradeableDeletesInProgress',
      status: 'False',
      reason: 'ResourceDeletesInProgress',
      message: `Cluster minor level upgrades are not allowed while resource deletions are in progress; resources=${resources}`,
    });
  }
  if (input.updateInProgress === true) {
    out.push({
      type: 'UpgradeableUpgradeInProgress',
      status: 'True',
      reason: 'UpdateInProgress',
      message: 'An update is already in progress and the details are in the Progressing condition',
    });
  }
  return out;
}

/**
 * upstream `setUpgradeableConditions`: with one failing check, `Upgradeable=False` with its reason and message; with
 * several, each check's own condition plus `Upgradeable=False` `MultipleReasons`; none: no condition. Sorted by type.
 */
export function computeUpgradeableConditions(input: UpgradeableInput): UpgradeableStatusCondition[] {
  const checks = upgradeableChecks(input);
  const first = checks[0];
  if (first === undefined) return [];
  if (checks.length === 1)
    return [{ type: 'Upgradeable', status: 'False', reason: first.reason, message: first.message }];
  const aggregate: UpgradeableStatusCondition = {
    type: 'Upgradeable',
    status: 'False',
    reason: 'MultipleReasons',
    message: `Cluster should not be upgraded between minor versions for multiple reasons: ${checks.map((c) => c.reason).join(',')}\n* ${checks.map((c) => c.message).join('\n* ')}`,
  };
  return [...checks, aggregate].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/**
 * The aggregate `Upgradeable` condition (see {@link computeUpgradeableConditions}); `null` means no reason applies.
 * @param operators every ClusterOperator of the cluster
 * @param overrides ClusterVersion `spec.overrides` (only `unmanaged` is read)
 * @param deletesInProgress resources the CVO is deleting (`release.openshift.io/delete`), as `kind ns/name`
 */
export function computeUpgradeable(
  operators: readonly UpgradeableOperator[],
  overrides: readonly { readonly unmanaged: boolean }[] | undefined,
  deletesInProgress: readonly string[],
  extra: Pick<UpgradeableInput, 'adminAcks' | 'updateInProgress'> = {},
): UpgradeableCondition | null {
  const up = computeUpgradeableConditions({ operators, overrides, deletesInProgress, ...extra }).find(
    (c) => c.type === 'Upgradeable',
  );
  return up ? { type: 'Upgradeable', status: 'False', reason: up.reason, message: up.message } : null;
}
