#!/usr/bin/env node
// Start-up cost of the CLI: whole-process `keelson payload graph DIR` (spawn, imports, load, graph, DOT) against
// the same work done in-process with the modules already loaded (load + graph + DOT). Prints medians of N runs.
// Usage: node bench/startup.mjs [payload-dir] [runs]   (default: ../../.keelson/demo-payload, 9 runs; build first)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const dir = process.argv[2] ?? fileURLToPath(new URL('../../../.keelson/demo-payload', import.meta.url));
const runs = Number(process.argv[3] ?? 9);
if (!existsSync(bin)) throw new Error(`${bin} missing: build keelson-cli first`);
if (!existsSync(dir)) throw new Error(`${dir} missing: run npm start once (or payload-gen --out ${dir})`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// whole process: what a user waits for
const whole = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [bin, 'payload', 'graph', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  whole.push(performance.now() - t);
  if (r.status !== 0) throw new Error(`keelson exited ${r.status}`);
}

// in-process: the same load + graph + DOT with every module already imported. "cold": the first run in a fresh
// process (imports excluded, JIT cold: what one CLI run does after start-up); "warm": repeated runs in one process.
const job = `
  const { performance } = await import('node:perf_hooks');
  const mg = await import('@keelson/manifest-graph');
  const rp = await import('@keelson/release-payload');
  const run = async () => {
    const t = performance.now();
    const p = rp.loadPayloadFromFiles(await rp.readPayloadDirectory(${JSON.stringify(dir)}), 'dir', { releaseImage: '' });
    const inc = rp.filterManifests(p, { profile: rp.DEFAULT_CLUSTER_PROFILE, featureSet: '', enabledFeatureGates: [] }).included;
    const tasks = inc.map((m, j) => mg.createTask({ filename: m.filename, group: m.gvk.group, version: m.gvk.version, kind: m.gvk.kind, namespace: m.namespace, name: m.name, index: j + 1, total: inc.length, data: m }));
    mg.toDot(new mg.TaskGraph(tasks).splitOnJobs().parallelize(mg.byNumberAndComponent));
    return performance.now() - t;
  };
  const out = [await run()];
  for (let i = 0; i < ${runs}; i++) out.push(await run());
  console.log(JSON.stringify(out));
`;
const cold = [];
let warm = [];
for (let i = 0; i < runs; i++) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', job], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  const [first, ...rest] = JSON.parse(r.stdout);
  cold.push(first);
  if (i === 0) warm = rest;
}

// a bare Node start, for reference
const bare = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  bare.push(performance.now() - t);
}

const w = median(whole);
const c = median(cold);
console.log(`payload: ${dir}`);
console.log(`whole-process keelson payload graph:  ${w.toFixed(0)} ms (median of ${runs})`);
console.log(
  `in-process load + graph + DOT, cold:  ${c.toFixed(0)} ms (first run in a fresh process, imports excluded)`,
);
console.log(`in-process load + graph + DOT, warm:  ${median(warm).toFixed(0)} ms`);
console.log(`bare node -e '':                      ${median(bare).toFixed(0)} ms`);
console.log(`ratio whole-process / in-process cold: ${(w / c).toFixed(2)}x`);
