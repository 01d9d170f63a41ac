import { ManifestGraphError } from './errors.js';
import { GoRand } from './go-rand.js';
import { byNumberAndComponent, flattenByNumberAndComponent, permuteOrder, shiftOrder, TaskGraph } from './graph.js';
import type { Task } from './task.js';

/** Sync-worker state: `updating` (orderly), `initializing` (install), `reconciling` (steady state). */
export type SyncMode = 'updating' | 'initializing' | 'reconciling';

/** Options of {@link planSync}. */
export interface PlanSyncOptions {
  mode: SyncMode;
  /** How many times this payload has been attempted (seeds the reconciling permutation). */
  attempt?: number;
  /** Workers for `updating` (the CVO starts its sync worker with 16). */
  maxWorkers?: number;
}

/** Graph and worker count chosen by {@link planSync}. */
export interface SyncPlan<T = unknown> {
  graph: TaskGraph<T>;
  parallelism: number;
}

/** Steps of the reconciling shift, as in the CVO sync worker. */
export const RECONCILE_SHIFT_STEPS = 8;

/**
 * The graph the CVO sync worker builds for a payload: split on Jobs, then
 * - `initializing`: `FlattenByNumberAndComponent`, parallelism = number of nodes;
 * - `reconciling`: `ShiftOrder(PermuteOrder(Flatten..., rand(attempt / 8)), attempt % 8, 8)`, parallelism 2;
 * - `updating`: `ByNumberAndComponent`, parallelism `maxWorkers` (default 16).
 */
export function planSync<T>(tasks: Task<T>[], options: PlanSyncOptions): SyncPlan<T> {
  const attempt = options.attempt ?? 0;
  if (!Number.isInteger(attempt) || attempt < 0) {
    throw new ManifestGraphError(
      'INVALID_ARGUMENT',
      `planSync: attempt must be a non-negative integer, got ${attempt}`,
    );
  }
  const graph = new TaskGraph<T>(tasks).splitOnJobs();
  switch (options.mode) {
    case 'initializing':
      graph.parallelize(flattenByNumberAndComponent);
      return { graph, parallelism: graph.nodes.length };
    case 'reconciling': {
      const epoch = Math.floor(attempt / RECONCILE_SHIFT_STEPS);
      const iteration = attempt % RECONCILE_SHIFT_STEPS;
      const rng = new GoRand(epoch);
      graph.parallelize(shiftOrder(permuteOrder(flattenByNumberAndComponent, rng), iteration, RECONCILE_SHIFT_STEPS));
      return { graph, parallelism: 2 };
    }
    case 'updating': {
      graph.parallelize(byNumberAndComponent);
      return { graph, parallelism: options.maxWorkers ?? 16 };
    }
    default:
      throw new ManifestGraphError(
        'INVALID_ARGUMENT',
        `planSync: unknown mode ${JSON.stringify(options.mode)}; use updating, initializing or reconciling`,
      );
  }
}
