import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePayload } from '@keelson/payload-gen';
import { afterAll, beforeAll, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  byNumberAndComponent,
  createTask,
  createTaskNode,
  planSync,
  runGraph,
  TaskGraph,
  type Task,
} from '../src/index.js';

let dir = '';
let tasks: Task[] = [];

function load(root: string): Task[] {
  const out: { file: string; apiVersion: string; kind: string; ns: string; name: string }[] = [];
  for (const sub of ['manifests', 'release-manifests']) {
    const names = readdirSync(join(root, sub))
      .filter((n) => /\.(ya?ml|json)$/.test(n))
      .sort();
    for (const n of names) {
      for (const d of parseAllDocuments(readFileSync(join(root, sub, n), 'utf8'))) {
        const o = d.toJS() as {
          apiVersion: string;
          kind: string;
          metadata: { name: string; namespace?: string };
        } | null;
        if (o !== null)
          out.push({
            file: n,
            apiVersion: o.apiVersion,
            kind: o.kind,
            ns: o.metadata.namespace ?? '',
            name: o.metadata.name,
          });
      }
    }
  }
  return out.map((m, i) => {
    const slash = m.apiVersion.indexOf('/');
    return createTask({
      filename: m.file,
      group: slash < 0 ? '' : m.apiVersion.slice(0, slash),
      version: slash < 0 ? m.apiVersion : m.apiVersion.slice(slash + 1),
      kind: m.kind,
      namespace: m.ns,
      name: m.name,
      index: i + 1,
      total: out.length,
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mg-bench-'));
  await generatePayload({ out: dir, seed: 1 });
  tasks = load(dir);
}, 120_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('generated ~900-manifest payload (~16 MB)', { timeout: 600_000 }, async ({ bench }) => {
  await bench.compare(
    bench('build graph only (split + ByNumberAndComponent)', () => {
      new TaskGraph(tasks).splitOnJobs().parallelize(byNumberAndComponent);
    }),
    bench('planSync reconciling (permute + shift)', () => {
      planSync(tasks, { mode: 'reconciling', attempt: 13 });
    }),
    bench('build graph + toDot', () => {
      new TaskGraph(tasks).splitOnJobs().parallelize(byNumberAndComponent).toDot();
    }),
    { time: 3000 },
  );
});

test('load (read + YAML parse of ~16 MB) + build graph', { timeout: 600_000 }, async ({ bench }) => {
  await bench.compare(
    bench('load + build graph', () => {
      const t = load(dir);
      new TaskGraph(t).splitOnJobs().parallelize(byNumberAndComponent);
    }),
    bench('load only', () => {
      load(dir);
    }),
    { time: 0, iterations: 5, warmup: false },
  );
});

const noop = (): void => undefined;
const thousand = Array.from({ length: 1000 }, (_, i) =>
  createTask({ filename: `0000_50_c${i % 100}_${i}.yaml`, version: 'v1', kind: 'ConfigMap', name: `t${i}` }),
);

test('runGraph overhead, 1,000 no-op tasks', { timeout: 600_000 }, async ({ bench }) => {
  await bench.compare(
    bench('1,000 independent nodes, maxParallelism 16', async () => {
      await runGraph({ nodes: thousand.map((t) => createTaskNode([t])) }, { maxParallelism: 16 }, noop);
    }),
    bench('1,000-node chain, maxParallelism 1', async () => {
      const nodes = thousand.map((t, i) => createTaskNode([t], i > 0 ? [i - 1] : [], i < 999 ? [i + 1] : []));
      await runGraph({ nodes }, { maxParallelism: 1 }, noop);
    }),
    bench('planSync(updating) + runGraph, 1,000 tasks', async () => {
      const { graph, parallelism } = planSync(thousand, { mode: 'updating' });
      await runGraph(graph, { maxParallelism: parallelism }, noop);
    }),
    { time: 3000 },
  );
});
