/** Rollout arithmetic of the node controller (upstream pkg/controller/node/node_controller.go): maxUnavailable, candidates, capacity, ordering. */
import type { Node } from '@keelson/api';
import { Labels } from '../constants.js';
import {
  isNodeDesiredTarget,
  isNodeMCDFailing,
  isNodeReady,
  isNodeUnavailable,
  type PoolTarget,
} from './node-state.js';

/** An invalid `spec.maxUnavailable`. */
export class MaxUnavailableError extends Error {
  readonly code = 'POOL_MAX_UNAVAILABLE_INVALID';
  constructor(
    readonly pool: string,
    readonly value: string | number,
  ) {
    super(
      `invalid value for IntOrString: invalid value "${String(value)}": must be an integer or a percentage (e.g. "10%") in pool ${pool} spec.maxUnavailable`,
    );
    this.name = 'MaxUnavailableError';
  }
}

/**
 * maxUnavailable of a pool: default 1; an integer as is; `"<digits>%"` → floor(pct × nodes / 100); 0 → 1;
 * the `arbiter` pool always 1.
 * @throws MaxUnavailableError for any other string.
 */
export function computeMaxUnavailable(
  poolName: string,
  value: number | string | null | undefined,
  nodeCount: number,
): number {
  if (poolName === 'arbiter') return 1;
  let n: number;
  if (value === null || value === undefined) n = 1;
  else if (typeof value === 'number') n = Math.trunc(value);
  else {
    const m = /^(\d+)%$/.exec(value);
    if (!m) throw new MaxUnavailableError(poolName, value);
    n = Math.floor((Number(m[1]) * nodeCount) / 100);
  }
  return n === 0 ? 1 : n;
}

/** Result of {@link computeCandidates}. */
export interface Candidates {
  /** Nodes that need the pool target and may be given it (input order). */
  candidates: Node[];
  /** How many of them may be started now. */
  capacity: number;
  /** Unavailable node count. */
  unavailable: number;
}

/** getAllCandidateMachines: candidates and remaining capacity under maxUnavailable. */
export function computeCandidates(nodes: readonly Node[], target: PoolTarget, maxUnavailable: number): Candidates {
  let unavailable = 0;
  for (const n of nodes) if (isNodeUnavailable(n)) unavailable++;
  if (unavailable >= maxUnavailable) return { candidates: [], capacity: 0, unavailable };
  let capacity = maxUnavailable - unavailable;
  let failing = 0;
  const candidates: Node[] = [];
  for (const n of nodes) {
    if (isNodeDesiredTarget(n, target)) {
      if (isNodeMCDFailing(n)) failing++;
      continue;
    }
    if (!isNodeReady(n)) continue;
    candidates.push(n);
  }
  if (failing >= capacity) return { candidates: [], capacity: 0, unavailable };
  capacity -= failing;
  return { candidates, capacity, unavailable };
}

const created = (n: Node): number => {
  const t = n.metadata.creationTimestamp;
  return t === undefined ? 0 : Date.parse(t);
};

/** Candidate order: nodes with a zone first, by zone then age (oldest first); nodes without a zone after, oldest first. Stable. */
export function sortNodesByZoneAndAge<T extends Node>(nodes: readonly T[], createdAt: (n: T) => number = created): T[] {
  return nodes
    .map((n, i) => ({ n, i, zone: n.metadata.labels?.[Labels.zone], t: createdAt(n) }))
    .sort((a, b) => {
      const az = a.zone !== undefined;
      const bz = b.zone !== undefined;
      if (az !== bz) return az ? -1 : 1;
      if (az && bz && a.zone !== b.zone) return (a.zone ?? '') < (b.zone ?? '') ? -1 : 1;
      if (a.t !== b.t) return a.t - b.t;
      return a.i - b.i;
    })
    .map((x) => x.n);
}
