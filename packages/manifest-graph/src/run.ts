import { ManifestGraphError } from './errors.js';
import { taskString, type Task } from './task.js';
import type { TaskNode } from './graph.js';

/** Options of {@link runGraph}. */
export interface RunGraphOptions {
  /** Most nodes run at the same time; values below 1 mean 1 (as upstream). */
  maxParallelism?: number;
  /** Aborting stops new nodes from starting; running workers see it through their own signal. */
  signal?: AbortSignal;
}

/** Context handed to the worker of {@link runGraph}. */
export interface RunGraphWorkerContext {
  /** Aborted when the run is cancelled (the caller's signal fired). */
  signal: AbortSignal;
  /** Index of the node being run. */
  node: number;
}

/** Runs the tasks of one node; throwing (or rejecting) fails the node. */
export type RunGraphWorker<T = unknown> = (tasks: Task<T>[], ctx: RunGraphWorkerContext) => Promise<void> | void;

function asError(e: unknown): Error {
  if (e instanceof Error) return e;
  return new ManifestGraphError('TASK_FAILED', `task worker failed: ${String(e)}`, { cause: e });
}

/**
 * Upstream `RunGraph`: visits nodes in index order as soon as all their prerequisites succeeded, at
 * most `maxParallelism` at a time. A failed node's dependents never start; independent branches go
 * on. Resolves with every node error in node order; when nothing failed but nodes with tasks were
 * left undone it returns `N incomplete task nodes, beginning with <task>` (N counts every unfinished
 * node) followed by a `context canceled` error if the signal was aborted.
 */
export async function runGraph<T>(
  graph: { nodes: readonly TaskNode<T>[] },
  options: RunGraphOptions,
  worker: RunGraphWorker<T>,
): Promise<Error[]> {
  const nodes = graph.nodes;
  const max = Math.max(1, Math.floor(options.maxParallelism ?? 1) || 1);
  const outer = options.signal;
  const nested = new AbortController();
  const onAbort = (): void => {
    nested.abort(outer?.reason);
  };
  if (outer !== undefined) {
    if (outer.aborted) nested.abort(outer.reason);
    else outer.addEventListener('abort', onAbort, { once: true });
  }

  const submitted = new Array<boolean>(nodes.length).fill(false);
  const results = new Array<{ error: Error | null } | undefined>(nodes.length);

  const canVisit = (node: TaskNode<T>): boolean =>
    node.in.every((p) => {
      const r = results[p];
      return r !== undefined && r.error === null;
    });
  const nextNode = (): number => {
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      if (n !== undefined && !submitted[i] && canVisit(n)) return i;
    }
    return -1;
  };

  let inflight = 0;
  let wake: (() => void) | undefined;
  const settled = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  nested.signal.addEventListener('abort', settled, { once: true });

  try {
    for (;;) {
      if (!nested.signal.aborted) {
        while (inflight < max) {
          const i = nextNode();
          if (i < 0) break;
          submitted[i] = true;
          inflight++;
          const node = nodes[i] as TaskNode<T>;
          void (async () => {
            let error: Error | null = null;
            try {
              await worker(node.tasks, { signal: nested.signal, node: i });
            } catch (e) {
              error = asError(e);
            }
            results[i] = { error };
            inflight--;
            settled();
          })();
          if (nested.signal.aborted) break;
        }
      }
      if (inflight === 0) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    outer?.removeEventListener('abort', onAbort);
    nested.signal.removeEventListener('abort', settled);
  }

  const errs: Error[] = [];
  let firstIncomplete: TaskNode<T> | undefined;
  let incompleteCount = 0;
  for (let i = 0; i < nodes.length; i++) {
    const r = results[i];
    if (r === undefined) {
      const n = nodes[i];
      if (firstIncomplete === undefined && n !== undefined && n.tasks.length > 0) firstIncomplete = n;
      incompleteCount++;
    } else if (r.error !== null) {
      errs.push(r.error);
    }
  }
  const first = firstIncomplete?.tasks[0];
  if (errs.length === 0 && first !== undefined) {
    errs.push(
      new ManifestGraphError(
        'INCOMPLETE',
        `${incompleteCount} incomplete task nodes, beginning with ${taskString(first)}`,
      ),
    );
    if (outer?.aborted === true) {
      errs.push(new ManifestGraphError('CANCELED', 'context canceled', { cause: outer.reason }));
    }
  }
  return errs;
}
