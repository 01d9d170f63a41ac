/** The ClusterOperator gate (upstream pkg/cvo/internal/operatorstatus.go `checkOperatorHealth`): pure decision over manifest and live CO. */
import type { ClusterOperator, OperandVersion } from '../api-types.js';
import { UpdateError } from '../errors.js';

/** Mode the gate runs in. */
export type GateMode = 'initializing' | 'updating' | 'reconciling';

/**
 * Decides whether a ClusterOperator satisfies its manifest: returns `null` when it does, or the upstream
 * {@link UpdateError} (`ClusterOperatorNoVersions`, `ClusterOperatorNotAvailable`, `ClusterOperatorDegraded`,
 * `ClusterOperatorUpdating`) with its effect for `mode`.
 */
export function decideOperatorHealth(
  name: string,
  expected: readonly OperandVersion[],
  live: ClusterOperator,
  mode: GateMode,
): UpdateError | null {
  if (expected.length === 0) {
    return new UpdateError({
      reason: 'ClusterOperatorNoVersions',
      name,
      message: `Cluster operator ${name} does not declare expected versions`,
      effect: 'Fail',
    });
  }
  const liveVersions = new Map((live.status?.versions ?? []).map((v) => [v.name, v.version]));
  const undone: string[] = [];
  for (const want of expected) {
    const cur = liveVersions.get(want.name);
    if (cur === want.version) continue;
    undone.push(
      cur === undefined || cur === ''
        ? `${want.name} to ${want.version}`
        : `${want.name} from ${cur} to ${want.version}`,
    );
  }
  undone.sort();
  const conds = live.status?.conditions ?? [];
  const available = conds.find((c) => c.type === 'Available');
  if (available?.status !== 'True') {
    return new UpdateError({
      reason: 'ClusterOperatorNotAvailable',
      name,
      message: `Cluster operator ${name} is not available`,
      effect: 'Fail',
    });
  }
  const degraded = conds.find((c) => c.type === 'Degraded');
  if (degraded?.status !== 'False') {
    return new UpdateError({
      reason: 'ClusterOperatorDegraded',
      name,
      message: `Cluster operator ${name} is degraded`,
      effect: mode === 'initializing' ? 'Report' : 'FailAfterInterval',
    });
  }
  if (undone.length > 0 && mode !== 'initializing') {
    return new UpdateError({
      reason: 'ClusterOperatorUpdating',
      name,
      message: `Cluster operator ${name} is updating versions`,
      effect: 'None',
    });
  }
  return null;
}

/** The `status.versions` a ClusterOperator manifest declares. */
export function expectedVersions(manifest: Record<string, unknown>): OperandVersion[] {
  const st = manifest['status'];
  if (typeof st !== 'object' || st === null) return [];
  const v = (st as Record<string, unknown>)['versions'];
  if (!Array.isArray(v)) return [];
  return v.filter(
    (x): x is OperandVersion =>
      typeof x === 'object' &&
      x !== null &&
      typeof (x as OperandVersion).name === 'string' &&
      typeof (x as OperandVersion).version === 'string',
  );
}
