/** Pool status computation (upstream `calculateStatus`, ImageModeStatusReporting off). */
import { MACHINE_CONFIG_POOL_CONDITIONS } from '@keelson/api';
import type { Condition } from '@keelson/api';
import type { CertExpiry, MachineConfigPool, Node } from '@keelson/api';
import { NodeAnnotations } from '../constants.js';
import { getCondition, setPoolCondition } from '../conditions.js';
import { isNodeDegraded, isNodeReady, isNodeUnavailable, isNodeUpdated, type PoolTarget } from './node-state.js';
import { semanticEqual } from '../semantic.js';

/** MachineConfigPool status as the node controller writes it. */
export type PoolStatus = NonNullable<MachineConfigPool['status']>;

/** Counters of a pool (machineCount and friends) plus the names behind them. */
export interface PoolCounts {
  machineCount: number;
  updatedMachineCount: number;
  readyMachineCount: number;
  unavailableMachineCount: number;
  degradedMachineCount: number;
  degradedNodes: Node[];
}

/** Counts the pool's nodes. */
export function computePoolCounts(nodes: readonly Node[], target: PoolTarget): PoolCounts {
  let updated = 0;
  let ready = 0;
  let unavailable = 0;
  const degradedNodes: Node[] = [];
  for (const n of nodes) {
    const up = isNodeUpdated(n, target);
    if (up) updated++;
    if (up && isNodeReady(n)) ready++;
    if (isNodeUnavailable(n)) unavailable++;
    if (isNodeDegraded(n) && (n.metadata.annotations?.[NodeAnnotations.desiredConfig] ?? '') !== '')
      degradedNodes.push(n);
  }
  return {
    machineCount: nodes.length,
    updatedMachineCount: updated,
    readyMachineCount: ready,
    unavailableMachineCount: unavailable,
    degradedMachineCount: degradedNodes.length,
    degradedNodes,
  };
}

/** Result of {@link computePoolStatus}. */
export interface PoolStatusDecision {
  status: PoolStatus;
  /** True when this computation completed the rollout (status.configuration moved to the target: event Completed). */
  completed: boolean;
}

/** Updated/Updating from the counters: all updated, paused, or updating (upstream status.go `calculateStatus`). */
function updateConditions(
  conditions: Condition[],
  pool: MachineConfigPool,
  allUpdated: boolean,
  now: Date,
): Condition[] {
  const C = MACHINE_CONFIG_POOL_CONDITIONS;
  const name = pool.spec.configuration?.name ?? '';
  if (allUpdated) {
    const updated = `All nodes are updated with MachineConfig ${name}`;
    const next = setPoolCondition(conditions, { type: C.Updated, status: 'True', reason: '', message: updated }, now);
    return setPoolCondition(next, { type: C.Updating, status: 'False', reason: '', message: '' }, now);
  }
  const next = setPoolCondition(conditions, { type: C.Updated, status: 'False', reason: '', message: '' }, now);
  const updating =
    pool.spec.paused === true
      ? { status: 'False' as const, message: `Pool is paused; will not update to MachineConfig ${name}` }
      : { status: 'True' as const, message: `All nodes are updating to MachineConfig ${name}` };
  return setPoolCondition(
    next,
    { type: C.Updating, status: updating.status, reason: '', message: updating.message },
    now,
  );
}

/** NodeDegraded from the degraded nodes' reasons, then Degraded from NodeDegraded or RenderDegraded. */
function degradedConditions(conditions: Condition[], counts: PoolCounts, now: Date): Condition[] {
  const C = MACHINE_CONFIG_POOL_CONDITIONS;
  const degraded = counts.degradedMachineCount > 0;
  const nodeDegradedMessage = degraded
    ? counts.degradedNodes
        .filter((n) => (n.metadata.annotations?.[NodeAnnotations.reason] ?? '') !== '')
        .map(
          (n) =>
            `Node ${n.metadata.name ?? ''} is reporting: "${n.metadata.annotations?.[NodeAnnotations.reason] ?? ''}"`,
        )
        .join(', ')
    : '';
  const next = setPoolCondition(
    conditions,
    degraded
      ? {
          type: C.NodeDegraded,
          status: 'True',
          reason: `${counts.degradedMachineCount} nodes are reporting degraded status on sync`,
          message: nodeDegradedMessage,
        }
      : { type: C.NodeDegraded, status: 'False', reason: '', message: '' },
    now,
  );
  const renderDegraded = getCondition(next, C.RenderDegraded)?.status === 'True';
  return setPoolCondition(
    next,
    degraded || renderDegraded
      ? { type: C.Degraded, status: 'True', reason: '', message: nodeDegradedMessage }
      : { type: C.Degraded, status: 'False', reason: '', message: '' },
    now,
  );
}

/**
 * The pool's new status from its nodes: counters, status.configuration copied from spec once all nodes are
 * updated, conditions Updated/Updating/NodeDegraded/Degraded (RenderDegraded is kept as the render controller set it).
 */
export function computePoolStatus(
  pool: MachineConfigPool,
  nodes: readonly Node[],
  target: PoolTarget,
  now: Date,
  certExpirys: readonly CertExpiry[] = [],
): PoolStatusDecision {
  const counts = computePoolCounts(nodes, target);
  const prev = pool.status ?? {};
  const allUpdated =
    counts.updatedMachineCount === counts.machineCount &&
    counts.readyMachineCount === counts.machineCount &&
    counts.unavailableMachineCount === 0;
  let conditions = updateConditions([...(prev.conditions ?? [])], pool, allUpdated, now);
  conditions = degradedConditions(conditions, counts, now);
  const completed = allUpdated && prev.configuration?.name !== (pool.spec.configuration?.name ?? '');
  const configuration = allUpdated ? structuredClone(pool.spec.configuration) : prev.configuration;
  const status: PoolStatus = {
    observedGeneration: pool.metadata.generation ?? 0,
    machineCount: counts.machineCount,
    updatedMachineCount: counts.updatedMachineCount,
    readyMachineCount: counts.readyMachineCount,
    unavailableMachineCount: counts.unavailableMachineCount,
    degradedMachineCount: counts.degradedMachineCount,
    certExpirys: certExpirys.map((c) => ({ ...c })),
    conditions,
  };
  if (configuration !== undefined) status.configuration = configuration;
  return { status, completed };
}

/** True when two statuses differ in content (a write is needed). */
export function poolStatusChanged(a: PoolStatus | undefined, b: PoolStatus): boolean {
  return !semanticEqual(a ?? {}, b);
}
