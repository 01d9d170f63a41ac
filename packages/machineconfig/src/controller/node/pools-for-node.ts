/** Node → pool assignment (upstream `GetPoolsForNode`). */
import { compileLabelSelector, isEmptyLabelSelector } from '@keelson/api';
import type { MachineConfigPool, Node } from '@keelson/api';
import { Labels } from '../constants.js';

/** Why a node cannot be assigned (it is then ignored for updates). */
export class NodePoolAssignmentError extends Error {
  readonly code = 'NODE_MULTIPLE_CUSTOM_POOLS';
  constructor(
    readonly node: string,
    /** The custom pools that all select the node. */
    readonly pools: string[],
  ) {
    super(`node ${node} belongs to ${pools.length} custom roles, cannot proceed with this Node`);
    this.name = 'NodePoolAssignmentError';
  }
}

/** Result of {@link getPoolsForNode}: `pools[0]` is the primary pool (the one that updates and counts the node). */
export interface PoolsForNode {
  pools: MachineConfigPool[];
  /** Set when the node matched a custom pool and the master pool: the MCO defaults to master and raises an alert. */
  defaultedToMaster?: boolean;
}

type Matcher = (labels: Record<string, string> | undefined) => boolean;
/** Compiled node selectors, per selector object (pools from an informer cache keep their identity). */
const compiled = new WeakMap<object, Matcher>();

function matcherOf(pool: MachineConfigPool): Matcher {
  const sel = pool.spec.nodeSelector;
  if (sel === undefined || isEmptyLabelSelector(sel)) return () => false;
  let m = compiled.get(sel);
  if (m === undefined) {
    try {
      const c = compileLabelSelector(sel);
      m = (labels) => c.matches(labels);
    } catch {
      m = () => false;
    }
    compiled.set(sel, m);
  }
  return m;
}

function selects(pool: MachineConfigPool, node: Node): boolean {
  return matcherOf(pool)(node.metadata.labels);
}

/**
 * The pools of a node, primary first; `undefined` when no pool applies (no match, or a Windows node).
 * @throws NodePoolAssignmentError when more than one custom pool selects the node.
 */
export function getPoolsForNode(pools: readonly MachineConfigPool[], node: Node): PoolsForNode | undefined {
  if (node.metadata.labels?.[Labels.os] === 'windows') return undefined;
  let master: MachineConfigPool | undefined;
  let worker: MachineConfigPool | undefined;
  const custom: MachineConfigPool[] = [];
  for (const p of pools) {
    if (!selects(p, node)) continue;
    const name = p.metadata.name ?? '';
    if (name === 'master') master = p;
    else if (name === 'worker') worker = p;
    else custom.push(p);
  }
  if (custom.length > 1)
    throw new NodePoolAssignmentError(
      node.metadata.name ?? '',
      custom.map((p) => p.metadata.name ?? ''),
    );
  const first = custom[0];
  if (first !== undefined) {
    if (master) return { pools: worker ? [master, worker] : [master], defaultedToMaster: true };
    return { pools: worker ? [first, worker] : [first] };
  }
  if (master) return { pools: [master] };
  if (worker) return { pools: [worker] };
  return undefined;
}

/** The nodes whose primary pool is `pool` (nodes in two custom pools are left out). */
export function nodesForPool(
  pools: readonly MachineConfigPool[],
  pool: MachineConfigPool,
  nodes: readonly Node[],
): Node[] {
  const out: Node[] = [];
  for (const n of nodes) {
    if (!selects(pool, n)) continue;
    let primary: MachineConfigPool | undefined;
    try {
      primary = getPoolsForNode(pools, n)?.pools[0];
    } catch {
      continue;
    }
    if (primary?.metadata.name === pool.metadata.name) out.push(n);
  }
  return out;
}
