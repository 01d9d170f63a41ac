import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  byNumberAndComponent,
  createTask,
  createTaskNode,
  flattenByNumberAndComponent,
  GoRand,
  permuteOrder,
  planSync,
  shiftOrder,
  TaskGraph,
  type BreakFn,
  type Task,
  type TaskNode,
} from '../src/index.js';

interface VNode {
  tasks: string[];
  in: number[];
  out: number[];
}
interface Vector {
  name: string;
  function: string;
  source: string;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
}

const file = new URL('./fixtures/upstream/vectors/cvo-taskgraph-vectors.json', import.meta.url);
const doc = JSON.parse(readFileSync(file, 'utf8')) as { vectors: Vector[] };

/** Computed-vector convention: `.job` = batch/v1 Job, else v1 ConfigMap. */
function fileTask(name: string): Task {
  return name.endsWith('.job')
    ? createTask({ filename: name, group: 'batch', version: 'v1', kind: 'Job', name })
    : createTask({ filename: name, version: 'v1', kind: 'ConfigMap', name });
}
/** `{file, kind}` inputs, kind like `v1/Pod` or `batch/v1/Job`. */
function kindTask(t: { file: string; kind: string }): Task {
  const parts = t.kind.split('/');
  const kind = parts.pop() ?? '';
  const version = parts.pop() ?? '';
  const group = parts.pop() ?? '';
  return createTask({ filename: t.file, group, version, kind });
}
/** Split-test convention: tasks named by kind only. */
function kindOnlyTask(kind: string): Task {
  return kind === 'Job' ? createTask({ group: 'batch', version: 'v1', kind }) : createTask({ version: 'v1', kind });
}
const label = (t: Task): string => (t.filename.length > 0 ? t.filename : t.kind);
const view = (nodes: TaskNode[]): VNode[] => nodes.map((n) => ({ tasks: n.tasks.map(label), in: n.in, out: n.out }));
const steps = (s: TaskNode[][] | null): string[][][] | null =>
  s === null ? null : s.map((st) => st.map((n) => n.tasks.map(label)));

function inputTasks(v: Vector): Task[] {
  const raw = v.input['tasks'] as (string | { file: string; kind: string })[];
  return raw.map((t) => (typeof t === 'string' ? fileTask(t) : kindTask(t)));
}

const runners: Record<string, (v: Vector) => void> = {
  'TaskGraph.Split(SplitOnJobs)': (v) => {
    const nodes = (v.input['nodes'] as VNode[]).map((n) =>
      createTaskNode(n.tasks.map(kindOnlyTask), [...n.in], [...n.out]),
    );
    const g = TaskGraph.fromNodes(nodes).splitOnJobs();
    expect(view(g.nodes)).toEqual(v.expected['nodes']);
  },
  ByNumberAndComponent: (v) => {
    expect(steps(byNumberAndComponent(inputTasks(v)))).toEqual(v.expected['steps']);
  },
  FlattenByNumberAndComponent: (v) => {
    expect(steps(flattenByNumberAndComponent(inputTasks(v)))).toEqual(v.expected['steps']);
  },
  ShiftOrder: (v) => {
    const given = v.input['steps'] as string[][][];
    const breakFn: BreakFn = () => given.map((st) => st.map((n) => createTaskNode(n.map(fileTask))));
    const fn = shiftOrder(breakFn, v.input['step'] as number, v.input['stride'] as number);
    expect(steps(fn([]))).toEqual(v.expected['steps']);
  },
  'PermuteOrder(FlattenByNumberAndComponent, rand.New(rand.NewSource(seed)))': (v) => {
    const fn = permuteOrder(flattenByNumberAndComponent, new GoRand(v.input['seed'] as number));
    expect(steps(fn(inputTasks(v)))).toEqual(v.expected['steps']);
  },
  'TaskGraph.bulkAdd (internal helper)': (v) => {
    // bulkAdd is private upstream too; reach it the same way the Go test does (same package).
    const nodes = (v.input['nodes'] as VNode[]).map((n) =>
      createTaskNode(n.tasks.map(fileTask), [...n.in], [...n.out]),
    );
    const g = TaskGraph.fromNodes(nodes);
    const add = (v.input['add'] as VNode[]).map((n) => createTaskNode(n.tasks.map(fileTask), [...n.in], [...n.out]));
    const bulkAdd = (g as unknown as { bulkAdd(n: TaskNode[], i: number[]): number[] }).bulkAdd.bind(g);
    expect(bulkAdd(add, v.input['inNodes'] as number[])).toEqual(v.expected['returned']);
    expect(view(g.nodes)).toEqual(v.expected['nodes']);
  },
  'NewTaskGraph+Parallelize(ByNumberAndComponent)': (v) => {
    const g = new TaskGraph(inputTasks(v)).parallelize(byNumberAndComponent);
    expect(view(g.nodes)).toEqual(v.expected['nodes']);
  },
  'NewTaskGraph+Split(SplitOnJobs)+Parallelize(ByNumberAndComponent)': (v) => {
    const g = new TaskGraph(inputTasks(v)).splitOnJobs().parallelize(byNumberAndComponent);
    expect(view(g.nodes)).toEqual(v.expected['nodes']);
    if (v.name.startsWith('computed/sync-worker')) {
      const plan = planSync(inputTasks(v), { mode: 'updating' });
      expect(view(plan.graph.nodes)).toEqual(v.expected['nodes']);
      expect(plan.parallelism).toBe(16);
    }
  },
  'NewTaskGraph+Split(SplitOnJobs)+Parallelize(FlattenByNumberAndComponent)': (v) => {
    const plan = planSync(inputTasks(v), { mode: 'initializing' });
    expect(view(plan.graph.nodes)).toEqual(v.expected['nodes']);
    expect(plan.parallelism).toBe(plan.graph.nodes.length);
  },
  'NewTaskGraph+Split(SplitOnJobs)+Parallelize(ShiftOrder(PermuteOrder(FlattenByNumberAndComponent, rand.New(rand.NewSource(attempt/8))), attempt%8, 8))':
    (v) => {
      const plan = planSync(inputTasks(v), { mode: 'reconciling', attempt: v.input['attempt'] as number });
      expect(view(plan.graph.nodes)).toEqual(v.expected['nodes']);
      expect(plan.parallelism).toBe(2);
    },
};

describe('cvo-taskgraph-vectors.json', () => {
  const graphVectors = doc.vectors.filter((v) => v.function !== 'RunGraph');
  it('has a runner for every non-RunGraph function', () => {
    const missing = [...new Set(graphVectors.map((v) => v.function))].filter((f) => runners[f] === undefined);
    expect(missing).toEqual([]);
    expect(graphVectors.length).toBeGreaterThan(50);
  });
  for (const v of graphVectors) {
    it(`${v.function} ${v.name}`, () => {
      const run = runners[v.function];
      if (run === undefined) throw new Error(`no runner for ${v.function}`);
      run(v);
    });
  }
});
