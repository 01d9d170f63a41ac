/** Pool status computation (upstream `calculateStatus`, ImageModeStatusReporting off). */
import { MACHINE_CONFIG_POOL_CONDITIONS } from '@keelson/api';
import type { Condition } from '@keelson/api';
import type { MachineConfigPool, Node } from '@keelson/api';
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

/**
 * The pool's new status from its nodes: counters, status.configuration copied from spec once all nodes are
 * updated, conditions Updated/Updating/NodeDegraded/Degraded (RenderDegraded is kept as the render controller set it).
 */
export function computePoolStatus(
  pool: MachineConfigPool,
  nodes: readonly Node[],
  target: PoolTarget,
  now: Date,
): PoolStatusDecision {
  const counts = computePoolCounts(nodes, target);
  const prev = pool.status ?? {};
  let conditions: Condition[] = [...(prev.conditions ?? [])];
  const name = pool.spec.configuration?.name ?? '';
  const allUpdated =
    counts.updatedMachineCount === counts.machineCount &&
    counts.readyMachineCount === counts.machineCount &&
    counts.unavailableMachineCount === 0;
  let configuration = prev.configuration;
  let completed = false;
  if (allUpdated) {
    conditions = setPoolCondition(
      conditions,
      {
        type: MACHINE_CONFIG_POOL_CONDITIONS.Updated,
        status: 'True',
        reason: '',
        message: `All nodes are updated with MachineConfig ${name}`,
      },
      now,
    );
    conditions = setPoolCondition(
      conditions,
      { type: MACHINE_CONFIG_POOL_CONDITIONS.Updating, status: 'False', reason: '', message: '' },
      now,
    );
    completed = prev.configuration?.name !== name;
    configuration = structuredClone(pool.spec.configuration);
  } else {
    conditions = setPoolCondition(
      conditions,
      { type: MACHINE_CONFIG_POOL_CONDITIONS.Updated, status: 'False', reason: '', message: '' },
      now,
    );
    conditions =
      pool.spec.paused === true
        ? setPoolCondition(
            conditions,
            {
              type: MACHINE_CONFIG_POOL_CONDITIONS.Updating,
              status: 'False',
              reason: '',
              message: `Pool is paused; will not update to MachineConfig ${name}`,
            },
            now,
          )
        : setPoolCondition(
            conditions,
            {
              type: MACHINE_CONFIG_POOL_CONDITIONS.Updating,
              status: 'True',
              reason: '',
              message: `All nodes are updating to MachineConfig ${name}`,
            },
            now,
          );
  }
  let nodeDegradedMessage = '';
  if (counts.degradedMachineCount > 0) {
    nodeDegradedMessage = counts.degradedNodes
      .filter((n) => (n.metadata.annotations?.[NodeAnnotations.reason] ?? '') !== '')
      .map(
        (n) =>
          `Node ${n.metadata.name ?? ''} is reporting: "${n.metadata.annotations?.[NodeAnnotations.reason] ?? ''}"`,
      )
      .join(', ');
    conditions = setPoolCondition(
      conditions,
      {
        type: MACHINE_CONFIG_POOL_CONDITIONS.NodeDegraded,
        status: 'True',
        reason: `${counts.degradedMachineCount} nodes are reporting degraded status on sync`,
        message: nodeDegradedMessage,
      },
      now,
    );
  } else {
    conditions = setPoolCondition(
      conditions,
      { type: MACHINE_CONFIG_POOL_CONDITIONS.NodeDegraded, status: 'False', reason: '', message: '' },
      now,
    );
  }
  const renderDegraded = getCondition(conditions, MACHINE_CONFIG_POOL_CONDITIONS.RenderDegraded)?.status === 'True';
  if (counts.degradedMachineCount > 0 || renderDegraded) {
    conditions = setPoolCondition(
      conditions,
      {
        type: MACHINE_CONFIG_POOL_CONDITIONS.Degraded,
        status: 'True',
        reason: '',
        message: counts.degradedMachineCount > 0 ? nodeDegradedMessage : '',
      },
      now,
    );
  } else {
    conditions = setPoolCondition(
      conditions,
      { type: MACHINE_CONFIG_POOL_CONDITIONS.Degraded, status: 'False', reason: '', message: '' },
      now,
    );
  }
  const status: PoolStatus = {
    observedGeneration: pool.metadata.generation ?? 0,
    machineCount: counts.machineCount,
    updatedMachineCount: counts.updatedMachineCount,
    readyMachineCount: counts.readyMachineCount,
    unavailableMachineCount: counts.unavailableMachineCount,
    degradedMachineCount: counts.degradedMachineCount,
    certExpirys: [],
    conditions,
  };
  if (configuration !== undefined) status.configuration = configuration;
  return { status, completed };
}

/** True when two statuses differ in content (a write is needed). */
export function poolStatusChanged(a: PoolStatus | undefined, b: PoolStatus): boolean {
  return !semanticEqual(a ?? {}, b);
}
