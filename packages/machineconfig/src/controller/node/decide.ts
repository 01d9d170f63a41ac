/**
 * One pass of the node controller over one pool, as a pure function (upstream pkg/controller/node/node_controller.go syncMachineConfigPool): which nodes get the pool
 * target as desiredConfig, which carry the UpdateInProgress taint, and the pool's new status.
 */
import type { CertExpiry, MachineConfigPool, Node } from '@keelson/api';
import { NodeAnnotations, UPDATE_IN_PROGRESS_TAINT } from '../constants.js';
import type { PoolTarget } from './node-state.js';
import { decideCustomPoolLabels, nodesNeedingTopology, type CustomPoolLabelling } from './node-labels.js';
import { nodesForPool } from './pools-for-node.js';
import { computeCandidates, computeMaxUnavailable, MaxUnavailableError, sortNodesByZoneAndAge } from './rollout.js';
import { computePoolStatus, poolStatusChanged, type PoolStatus } from './status.js';

/** Input of {@link decidePoolSync}. */
export interface PoolSyncInput {
  pool: MachineConfigPool;
  /** Every pool (node → primary pool assignment). */
  pools: readonly MachineConfigPool[];
  /** Every node of the cluster (or a superset of the pool's). */
  nodes: readonly Node[];
  /** Node running the machine-config-operator pod: updated last in the master pool. */
  operatorNodeName?: string;
  /** Infrastructure controlPlaneTopology (ControllerConfig spec.infra.status), copied onto the pool's nodes. */
  controlPlaneTopology?: string;
  /** `status.certExpirys` of the pool (from the ControllerConfig: `poolCertExpirys`); default none. */
  certExpirys?: readonly CertExpiry[];
  /** Pool owning a rendered MachineConfig (custom-pool births); default: from the rendered name. */
  renderedOwnerPool?: (renderedName: string) => string | undefined;
  now: Date;
}

/** Output of {@link decidePoolSync}. */
export interface PoolSyncDecision {
  /** The pool's nodes (primary pool = this pool). */
  poolNodes: Node[];
  /** False when the pool has no rendered target yet (render not done): nothing else is decided. */
  hasTarget: boolean;
  /** maxUnavailable in effect, when valid. */
  maxUnavailable?: number;
  /** Invalid maxUnavailable: updates stop, status is still synced. */
  error?: MaxUnavailableError;
  /** Nodes that get desiredConfig = target now. */
  setDesired: string[];
  /** Operator node held back this pass (event DeferringOperatorNodeUpdate). */
  deferredOperatorNode?: string;
  /** Nodes that need the UpdateInProgress taint added / removed. */
  addTaint: string[];
  removeTaint: string[];
  /** Nodes whose controlPlaneTopology annotation must be set. */
  annotateTopology: string[];
  /** Nodes born into a custom pool that get its labels (and are not candidates in this pass). */
  customPoolLabels: CustomPoolLabelling[];
  /**
   * Status to write before any node is touched (upstream syncs status first): set when the pool's spec changed since
   * the last status (generation ≠ status.observedGeneration, e.g. a new rendered target) so Updated=False /
   * Updating=True and observedGeneration are visible at once, before the first node is targeted.
   */
  statusFirst?: PoolStatus;
  /** New pool status, and whether it differs from the current one. */
  status: PoolStatus;
  statusChanged: boolean;
  /** The rollout completed with this pass (event Completed). */
  completed: boolean;
}

const hasTaint = (n: Node): boolean =>
  (n.spec?.taints ?? []).some(
    (t) => t.key === UPDATE_IN_PROGRESS_TAINT.key && t.effect === UPDATE_IN_PROGRESS_TAINT.effect,
  );

/** Picks the nodes to start, honouring capacity, zone/age order and the operator-node deferral. */
function pickNodes(
  pool: MachineConfigPool,
  poolNodes: Node[],
  target: PoolTarget,
  max: number,
  operatorNodeName: string | undefined,
  skip: ReadonlySet<string>,
): { picked: Node[]; deferred?: string } {
  const { candidates, capacity } = computeCandidates(poolNodes, target, max);
  let list = skip.size > 0 ? candidates.filter((n) => !skip.has(n.metadata.name ?? '')) : candidates;
  let deferred: string | undefined;
  if (pool.metadata.name === 'master' && operatorNodeName !== undefined && list.length > 1) {
    const without = list.filter((n) => n.metadata.name !== operatorNodeName);
    if (without.length !== list.length) {
      deferred = operatorNodeName;
      list = without;
    }
  }
  if (capacity < list.length) list = sortNodesByZoneAndAge(list).slice(0, capacity);
  return deferred !== undefined ? { picked: list, deferred } : { picked: list };
}

/** Decides one sync of a pool. */
export function decidePoolSync(input: PoolSyncInput): PoolSyncDecision {
  const { pool, now } = input;
  const poolNodes = nodesForPool(input.pools, pool, input.nodes);
  const targetName = pool.spec.configuration?.name ?? '';
  const customPoolLabels = decideCustomPoolLabels(input.pools, poolNodes, input.renderedOwnerPool);
  const base = {
    poolNodes,
    setDesired: [] as string[],
    addTaint: [] as string[],
    removeTaint: [] as string[],
    annotateTopology: nodesNeedingTopology(poolNodes, input.controlPlaneTopology),
    customPoolLabels,
  };
  if (targetName === '') {
    const { status } = computePoolStatus(pool, poolNodes, { config: '' }, now, input.certExpirys);
    return { ...base, hasTarget: false, status, statusChanged: false, completed: false };
  }
  const target: PoolTarget = { config: targetName };
  for (const n of poolNodes) {
    const needs = (n.metadata.annotations?.[NodeAnnotations.desiredConfig] ?? '') !== targetName;
    if (needs && !hasTaint(n)) base.addTaint.push(n.metadata.name ?? '');
    if (!needs && hasTaint(n)) base.removeTaint.push(n.metadata.name ?? '');
  }
  let maxUnavailable: number | undefined;
  let error: MaxUnavailableError | undefined;
  try {
    maxUnavailable = computeMaxUnavailable(pool.metadata.name ?? '', pool.spec.maxUnavailable, poolNodes.length);
  } catch (e) {
    if (!(e instanceof MaxUnavailableError)) throw e;
    error = e;
  }
  let after = poolNodes;
  let deferred: string | undefined;
  if (maxUnavailable !== undefined && pool.spec.paused !== true && pool.metadata.deletionTimestamp === undefined) {
    const r = pickNodes(
      pool,
      poolNodes,
      target,
      maxUnavailable,
      input.operatorNodeName,
      new Set(customPoolLabels.map((c) => c.node)),
    );
    deferred = r.deferred;
    base.setDesired = r.picked.map((n) => n.metadata.name ?? '');
    const chosen = new Set(base.setDesired);
    after = poolNodes.map((n) => (chosen.has(n.metadata.name ?? '') ? withDesired(n, targetName) : n));
  }
  const { status, completed } = computePoolStatus(pool, after, target, now, input.certExpirys);
  const first =
    pool.metadata.generation !== pool.status?.observedGeneration && base.setDesired.length > 0
      ? computePoolStatus(pool, poolNodes, target, now, input.certExpirys).status
      : undefined;
  return {
    ...base,
    hasTarget: true,
    ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(deferred !== undefined ? { deferredOperatorNode: deferred } : {}),
    ...(first !== undefined && poolStatusChanged(pool.status, first) ? { statusFirst: first } : {}),
    status,
    statusChanged: poolStatusChanged(first ?? pool.status, status),
    completed,
  };
}

/** The node as it will be once desiredConfig is set (desiredImage dropped: non-layered pools). */
export function withDesired(n: Node, target: string): Node {
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(n.metadata.annotations ?? {}))
    if (k !== NodeAnnotations.desiredImage) annotations[k] = v;
  annotations[NodeAnnotations.desiredConfig] = target;
  return { ...n, metadata: { ...n.metadata, annotations } };
}
