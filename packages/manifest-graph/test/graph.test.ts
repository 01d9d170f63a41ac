import { describe, expect, it } from 'vitest';
import {
  byNumberAndComponent,
  createTask,
  createTaskNode,
  flattenByNumberAndComponent,
  goQuote,
  ManifestGraphError,
  planSync,
  shiftOrder,
  TaskGraph,
  taskNodeString,
  taskString,
  toJson,
  toMermaid,
  type Task,
} from '../src/index.js';

const cm = (file: string, name: string, ns = '', index = 0, total = 0): Task =>
  createTask({ filename: file, version: 'v1', kind: 'ConfigMap', namespace: ns, name, index, total });

describe('task formatting (upstream Task.String)', () => {
  it('formats namespaced and cluster-scoped ids', () => {
    expect(taskString(cm('f', 'b', 'default', 3, 9))).toBe('configmap "default/b" (3 of 9)');
    expect(taskString(createTask({ kind: 'ClusterOperator', name: 'dns', index: 1, total: 2 }))).toBe(
      'clusteroperator "dns" (1 of 2)',
    );
    expect(taskString(createTask({ kind: 'Namespace', filename: 'x.yaml', index: 1, total: 1 }))).toBe(
      'namespace "x.yaml" (1 of 1)',
    );
  });
  it('quotes like Go strconv.Quote', () => {
    expect(goQuote('a"b\\c\n\x01')).toBe('"a\\"b\\\\c\\n\\x01"');
  });
  it('renders node strings with file names or GVKs', () => {
    expect(
      taskNodeString(createTaskNode([cm('a.yaml', 'a'), createTask({ group: 'batch', version: 'v1', kind: 'Job' })])),
    ).toBe('{Tasks: a.yaml, batch/v1, Kind=Job}');
  });
});

describe('DOT / Mermaid / JSON', () => {
  const tasks = [
    cm('0000_10_a_x.yaml', 'a', 'ns-a', 1, 4),
    cm('0000_20_b_x.yaml', 'b', '', 2, 4),
    cm('0000_20_c_x.yaml', 'c', 'ns-c', 3, 4),
    cm('0000_30_d_x.yaml', 'd', '', 4, 4),
  ];
  const g = new TaskGraph(tasks).splitOnJobs().parallelize(byNumberAndComponent);

  it('builds upstream shape for a fan-out/fan-in', () => {
    expect(toJson(g)).toEqual({
      nodes: [
        { in: [], out: [1], tasks: [] },
        { in: [0], out: [2, 3], tasks: ['0000_10_a_x.yaml'] },
        { in: [1], out: [4], tasks: ['0000_20_b_x.yaml'] },
        { in: [1], out: [4], tasks: ['0000_20_c_x.yaml'] },
        { in: [2, 3], out: [], tasks: ['0000_30_d_x.yaml'] },
      ],
    });
    expect(g.roots()).toEqual([0]);
  });

  it('prints DOT in upstream Tree() format (quotes stripped, no trailing newline)', () => {
    expect(g.toDot()).toBe(
      [
        'digraph tasks {',
        '  labelloc=t;',
        '  rankdir=TB;',
        '  0 [ label="no manifests" shape="box" ];',
        '  1 [ label="configmap ns-a/a (1 of 4)" shape="box" ];',
        '  2 [ label="configmap b (2 of 4)" shape="box" ];',
        '  3 [ label="configmap ns-c/c (3 of 4)" shape="box" ];',
        '  4 [ label="configmap d (4 of 4)" shape="box" ];',
        '  0 -> 1;',
        '  1 -> 2;',
        '  1 -> 3;',
        '  2 -> 4;',
        '  3 -> 4;',
        '}',
      ].join('\n'),
    );
  });

  it('joins several tasks of a node with a literal \\n', () => {
    const one = new TaskGraph([cm('a', 'a', '', 1, 2), cm('b', 'b', '', 2, 2)]);
    expect(one.toDot()).toContain('  0 [ label="configmap a (1 of 2)\\nconfigmap b (2 of 2)" shape="box" ];');
  });

  it('prints Mermaid with escaped labels', () => {
    const m = toMermaid(new TaskGraph([cm('a', 'we"ird<x>', 'ns', 1, 1)]));
    expect(m).toBe('flowchart TB\n  n0["configmap #quot;ns/we#quot;ird#lt;x#gt;#quot; (1 of 1)"]\n');
    expect(toMermaid(g)).toContain('  n1 --> n2\n  n1 --> n3\n');
    expect(toMermaid(g)).toContain('n0["no manifests"]');
  });
});

describe('graph construction details', () => {
  it('inserts a spacer between two multi-node steps and a right anchor for dependents', () => {
    const tasks = ['0000_10_a_1', '0000_10_b_1', '0000_20_a_1', '0000_20_b_1'].map((f) => cm(f, f));
    const job = createTask({ filename: '0000_30_z_job', group: 'batch', version: 'v1', kind: 'Job', name: 'z' });
    const g = new TaskGraph([...tasks, job]).splitOnJobs().parallelize(byNumberAndComponent);
    const nodes = toJson(g).nodes;
    const spacers = nodes.filter((n) => n.tasks.length === 0);
    expect(spacers.length).toBeGreaterThanOrEqual(2);
    // the Job keeps running after everything before it
    const jobIdx = nodes.findIndex((n) => n.tasks[0] === '0000_30_z_job');
    expect(nodes[jobIdx]?.in).toHaveLength(1);
  });

  it('treats non-adjacent same-level components as unsplittable', () => {
    const steps = byNumberAndComponent(['0000_10_a_1', 'other', '0000_10_b_1'].map((f) => cm(f, f)));
    expect(steps?.map((s) => s.map((n) => n.tasks.map((t) => t.filename)))).toEqual([
      [['0000_10_a_1', 'other', '0000_10_b_1']],
    ]);
  });

  it('flatten puts every chunk into one step', () => {
    const steps = flattenByNumberAndComponent(['0000_10_a_1', '0000_20_b_1', '0000_30_c_1'].map((f) => cm(f, f)));
    expect(steps).toHaveLength(1);
    expect(steps?.[0]).toHaveLength(3);
  });

  it('validates arguments with typed errors', () => {
    expect(() => shiftOrder(byNumberAndComponent, 1, 0)).toThrow(ManifestGraphError);
    expect(() => TaskGraph.fromNodes([createTaskNode([], [3], [])])).toThrow(/node 0 has edge to 3/);
    expect(() => planSync([], { mode: 'bogus' as 'updating' })).toThrow(/unknown mode "bogus"/);
    expect(() => planSync([], { mode: 'reconciling', attempt: -1 })).toThrow(/attempt must be/);
  });

  it('planSync honours maxWorkers for updating', () => {
    expect(planSync([cm('a', 'a')], { mode: 'updating', maxWorkers: 3 }).parallelism).toBe(3);
  });
});
