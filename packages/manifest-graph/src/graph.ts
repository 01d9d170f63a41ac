import { ManifestGraphError } from './errors.js';
import { splitOnJobs, taskString, type Task } from './task.js';

/**
 * A node of a {@link TaskGraph}: `tasks` run serially when the node is visited; `in` are the indices
 * of prerequisite nodes, `out` the indices of dependent nodes. A node without tasks is a spacer/anchor.
 */
export interface TaskNode<T = unknown> {
  in: number[];
  tasks: Task<T>[];
  out: number[];
}

/** Creates a {@link TaskNode} (empty edges unless given). */
export function createTaskNode<T = unknown>(
  tasks: Task<T>[] = [],
  inEdges: number[] = [],
  outEdges: number[] = [],
): TaskNode<T> {
  return { in: inEdges, tasks, out: outEdges };
}

/**
 * A break function (upstream `BreakFunc`): returns the input tasks as ordered steps, each step a list
 * of nodes that may run in parallel. `null` (Go nil) or `[]` means "nothing to split".
 */
export type BreakFn<T = unknown> = (tasks: Task<T>[]) => TaskNode<T>[][] | null;

/** Upstream's grouping pattern: group 1 = run level, group 2 = component. */
export const RUN_LEVEL_COMPONENT_PATTERN = /^0000_(\d+)_([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*?)_/;

type Match = { level: string; component: string } | null;

function matchAll(tasks: readonly Task[]): Match[] {
  return tasks.map((t) => {
    const m = RUN_LEVEL_COMPONENT_PATTERN.exec(t.filename);
    return m === null ? null : { level: m[1] ?? '', component: m[2] ?? '' };
  });
}

/**
 * `ByNumberAndComponent`: files sharing `0000_NN_NAME_` run serially; adjacent chunks with the same
 * run level `NN` but different `NAME` run in parallel; non-matching or non-adjacent files form
 * unsplittable serial steps. Returns `null` for fewer than two tasks.
 */
export function byNumberAndComponent<T>(tasks: Task<T>[]): TaskNode<T>[][] | null {
  if (tasks.length <= 1) return null;
  const count = tasks.length;
  const matches = matchAll(tasks);
  const buckets: TaskNode<T>[][] = [];
  let lastNode: TaskNode<T> | null = null;
  for (let i = 0; i < count;) {
    let matchBase = matches[i] ?? null;
    let j = i + 1;
    const groups: TaskNode<T>[] = [];
    for (; j < count; j++) {
      const matchNext = matches[j] ?? null;
      if (matchBase === null || matchNext === null || matchBase.level !== matchNext.level) break;
      if (matchBase.component !== matchNext.component) {
        groups.push(createTaskNode(tasks.slice(i, j)));
        i = j;
      }
      matchBase = matchNext;
    }
    if (groups.length > 0) {
      groups.push(createTaskNode(tasks.slice(i, j)));
      i = j;
      buckets.push(groups);
      lastNode = null;
      continue;
    }
    if (lastNode === null) {
      lastNode = createTaskNode(tasks.slice(i, j));
      i = j;
      buckets.push([lastNode]);
      continue;
    }
    lastNode.tasks.push(...tasks.slice(i, j));
    i = j;
  }
  return buckets;
}

/**
 * `FlattenByNumberAndComponent`: like {@link byNumberAndComponent} but every chunk lands in one single
 * parallel step (order across run levels is not preserved). Returns `null` for fewer than two tasks.
 */
export function flattenByNumberAndComponent<T>(tasks: Task<T>[]): TaskNode<T>[][] | null {
  if (tasks.length <= 1) return null;
  const count = tasks.length;
  const matches = matchAll(tasks);
  let lastNode: TaskNode<T> | null = null;
  const groups: TaskNode<T>[] = [];
  for (let i = 0; i < count;) {
    let matchBase = matches[i] ?? null;
    let j = i + 1;
    for (; j < count; j++) {
      const matchNext = matches[j] ?? null;
      if (matchBase === null || matchNext === null || matchBase.level !== matchNext.level) break;
      if (matchBase.component !== matchNext.component) {
        groups.push(createTaskNode(tasks.slice(i, j)));
        i = j;
      }
      matchBase = matchNext;
    }
    if (groups.length > 0) {
      groups.push(createTaskNode(tasks.slice(i, j)));
      i = j;
      lastNode = null;
      continue;
    }
    if (lastNode === null) {
      lastNode = createTaskNode(tasks.slice(i, j));
      i = j;
      groups.push(lastNode);
      continue;
    }
    lastNode.tasks.push(...tasks.slice(i, j));
    i = j;
  }
  return [groups];
}

/**
 * `ShiftOrder`: rotates each step left by `step % len` when the step is shorter than `stride`, else by
 * `trunc(step * len / stride) % len`, so successive attempts start at different nodes.
 */
export function shiftOrder<T>(breakFn: BreakFn<T>, step: number, stride: number): BreakFn<T> {
  if (!Number.isInteger(step) || step < 0) {
    throw new ManifestGraphError('INVALID_ARGUMENT', `shiftOrder: step must be a non-negative integer, got ${step}`);
  }
  if (!Number.isInteger(stride) || stride <= 0) {
    throw new ManifestGraphError('INVALID_ARGUMENT', `shiftOrder: stride must be a positive integer, got ${stride}`);
  }
  return (tasks) => {
    const steps = breakFn(tasks);
    if (steps === null) return null;
    for (let i = 0; i < steps.length; i++) {
      const stepTasks = steps[i] ?? [];
      const max = stepTasks.length;
      if (max === 0) {
        throw new ManifestGraphError('INVALID_GRAPH', `shiftOrder: break function returned an empty step ${i}`);
      }
      const shift = max < stride ? step % max : Math.trunc((step * max) / stride) % max;
      steps[i] = [...stepTasks.slice(shift), ...stepTasks.slice(0, shift)];
    }
    return steps;
  };
}

/** Anything with Go's `Shuffle(n, swap)` (for example {@link GoRand}). */
export interface Shuffler {
  shuffle(n: number, swap: (i: number, j: number) => void): void;
}

/** `PermuteOrder`: shuffles the nodes of each step in place with `rng.shuffle`. */
export function permuteOrder<T>(breakFn: BreakFn<T>, rng: Shuffler): BreakFn<T> {
  return (tasks) => {
    const steps = breakFn(tasks);
    if (steps === null) return null;
    for (const stepTasks of steps) {
      rng.shuffle(stepTasks.length, (i, j) => {
        const a = stepTasks[i];
        const b = stepTasks[j];
        if (a === undefined || b === undefined) return;
        stepTasks[i] = b;
        stepTasks[j] = a;
      });
    }
    return steps;
  };
}

function pushUnique(arr: number[], items: readonly number[]): void {
  for (const item of items) if (!arr.includes(item)) arr.push(item);
}

function replaceAll(arr: number[], from: number, to: number): void {
  for (let k = 0; k < arr.length; k++) if (arr[k] === from) arr[k] = to;
}

/**
 * The CVO's task graph: created from a single node holding every task in payload order, then
 * {@link TaskGraph.split | split} and {@link TaskGraph.parallelize | parallelized} exactly as upstream
 * does (same spacer nodes, same node numbering, same edge order).
 */
export class TaskGraph<T = unknown> {
  /** Graph nodes; edges refer to indices in this array. */
  nodes: TaskNode<T>[];

  /** Creates a graph with a single node containing `tasks` (upstream `NewTaskGraph`). */
  constructor(tasks: Task<T>[] = []) {
    this.nodes = [createTaskNode([...tasks])];
  }

  /** Wraps existing nodes (no validation of edges beyond index bounds). */
  static fromNodes<T>(nodes: TaskNode<T>[]): TaskGraph<T> {
    const g = new TaskGraph<T>();
    nodes.forEach((n, i) => {
      for (const e of [...n.in, ...n.out]) {
        if (!Number.isInteger(e) || e < 0 || e >= nodes.length) {
          throw new ManifestGraphError(
            'INVALID_GRAPH',
            `node ${i} has edge to ${e}, outside 0..${nodes.length - 1}; fix the node list`,
          );
        }
      }
    });
    g.nodes = nodes;
    return g;
  }

  private node(index: number): TaskNode<T> {
    const n = this.nodes[index];
    if (n === undefined) throw new ManifestGraphError('INVALID_GRAPH', `edge to missing node ${index}`);
    return n;
  }

  /**
   * Splits every node at the first task for which `predicate` is true into up to three serial nodes
   * `[before] -> [task] -> [after]`; the new nodes are appended (upstream `Split`).
   */
  split(predicate: (task: Task<T>) => boolean = splitOnJobs): this {
    for (let i = 0; i < this.nodes.length; i++) {
      const node = this.node(i);
      const tasks = node.tasks;
      if (tasks.length <= 1) continue;
      const j = tasks.findIndex((t) => predicate(t));
      if (j < 0) continue;
      if (j > 0) {
        const next = this.nodes.length;
        this.nodes.push(createTaskNode(tasks.slice(0, j), node.in, [i]));
        for (const pos of node.in) replaceAll(this.node(pos).out, i, next);
        node.in = [next];
      }
      if (j < tasks.length - 1) {
        const next = this.nodes.length;
        this.nodes.push(createTaskNode(tasks.slice(j + 1), [i], node.out));
        for (const pos of node.out) replaceAll(this.node(pos).in, i, next);
        node.out = [next];
      }
      node.tasks = tasks.slice(j, j + 1);
    }
    return this;
  }

  /** {@link TaskGraph.split} with upstream's `SplitOnJobs`. */
  splitOnJobs(): this {
    return this.split(splitOnJobs);
  }

  private bulkAdd(nodes: TaskNode<T>[], inNodes: number[]): number[] {
    const from = this.nodes.length;
    this.nodes.push(...nodes);
    const next: number[] = [];
    for (let k = from; k < this.nodes.length; k++) next.push(k);
    if (inNodes.length === 0) return next;
    for (const k of next) this.node(k).in = [...inNodes];
    for (const k of inNodes) pushUnique(this.node(k).out, next);
    return next;
  }

  /**
   * Applies `breakFn` to every node (including nodes it creates) and replaces a node that breaks into
   * more than one node by a chain of parallel steps, with upstream's spacer nodes between two
   * multi-node steps and a right anchor node carrying the original node's dependents.
   */
  parallelize(breakFn: BreakFn<T>): this {
    for (let i = 0; i < this.nodes.length; i++) {
      const node = this.node(i);
      const results = breakFn(node.tasks);
      if (results === null || results.length === 0 || (results.length === 1 && results[0]?.length === 1)) continue;
      node.tasks = [];
      const out = node.out;
      node.out = [];
      let inEdges = [i];
      for (const inNodes of results) {
        if (inNodes.length === 0) continue;
        if (inEdges.length === 1 || inNodes.length === 1) {
          inEdges = this.bulkAdd(inNodes, inEdges);
        } else {
          inEdges = this.bulkAdd([createTaskNode<T>()], inEdges);
          inEdges = this.bulkAdd(inNodes, inEdges);
        }
      }
      if (out.length > 0) {
        const next = this.nodes.length;
        const nextNode = createTaskNode<T>([], [], out);
        this.nodes.push(nextNode);
        for (const j of out) replaceAll(this.node(j).in, i, next);
        for (const j of inEdges) {
          this.node(j).out = [next];
          nextNode.in.push(j);
        }
      }
    }
    return this;
  }

  /** Indices of nodes without prerequisites, in index order (upstream `Roots`). */
  roots(): number[] {
    const roots: number[] = [];
    this.nodes.forEach((n, i) => {
      if (n.in.length === 0) roots.push(i);
    });
    return roots;
  }

  /** Graphviz DOT, byte-identical to upstream `Tree()` (no trailing newline). */
  toDot(): string {
    return toDot(this);
  }
}

/** Upstream `TaskNode.String()`: `{Tasks: file1, file2}` (GVK string for tasks without a file name). */
export function taskNodeString(node: TaskNode): string {
  const parts = node.tasks.map((t) => (t.filename.length > 0 ? t.filename : `${t.group}/${t.version}, Kind=${t.kind}`));
  return `{Tasks: ${parts.join(', ')}}`;
}

/** Graphviz DOT of a graph, byte-identical to upstream `TaskGraph.Tree()` (no trailing newline). */
export function toDot(graph: { nodes: readonly TaskNode[] }): string {
  const out = ['digraph tasks {', '  labelloc=t;', '  rankdir=TB;'];
  graph.nodes.forEach((node, i) => {
    const label = node.tasks.map((t) => taskString(t).replaceAll('"', ''));
    if (label.length === 0) label.push('no manifests');
    out.push(`  ${i} [ label="${label.join('\\n')}" shape="box" ];`);
  });
  graph.nodes.forEach((node, i) => {
    for (const j of node.out) out.push(`  ${i} -> ${j};`);
  });
  out.push('}');
  return out.join('\n');
}
