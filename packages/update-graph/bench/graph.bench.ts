import { readFileSync } from 'node:fs';
import { test } from 'vitest';
import { availableUpdates, Graph, PlanIndex, planPath } from '../src/index.js';
import { syntheticGraph } from './synthetic.js';

const E2E = new URL('../test/fixtures/upstream/cincinnati/graphs/cincinnati-e2e/', import.meta.url);
const text47 = readFileSync(new URL('134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.7_amd64_v1.json', E2E), 'utf8');
const text49 = readFileSync(new URL('134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.9_amd64_v1.json', E2E), 'utf8');
const synthText = JSON.stringify(syntheticGraph());
const g47 = Graph.parse(text47);
const g49 = Graph.parse(text49);
const synth = Graph.parse(synthText);
const idx47 = new PlanIndex(g47);
const idxSynth = new PlanIndex(synth);

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('load (JSON.parse + validation + indexing)', async ({ bench }) => {
  await bench.compare(
    bench('stable-4.7 (102 nodes, 3,244 edges)', () => {
      Graph.parse(text47);
    }),
    bench('stable-4.9 (90 nodes, 2,544 edges)', () => {
      Graph.parse(text49);
    }),
    bench(`synthetic (${synth.nodes.length} nodes, ${synth.edges.length} edges)`, () => {
      Graph.parse(synthText);
    }),
    { time: 1500 },
  );
});

test('availableUpdates', async ({ bench }) => {
  await bench.compare(
    bench('stable-4.7 from 4.6.18 (conditional edges)', () => {
      availableUpdates(g47, '4.6.18', { channel: 'stable-4.7' });
    }),
    bench('stable-4.9 from 4.8.18', () => {
      availableUpdates(g49, '4.8.18', { channel: 'stable-4.9' });
    }),
    bench('synthetic from 4.25.90', () => {
      availableUpdates(synth, '4.25.90', { channel: 'stable-4.25' });
    }),
    { time: 1500 },
  );
});

test('planPath (index built once)', async ({ bench }) => {
  await bench.compare(
    bench('stable-4.7 4.6.1 → 4.7.60', () => {
      planPath(idx47, '4.6.1', '4.7.60');
    }),
    bench('stable-4.7 4.7.0 → 4.7.4 accepting the risk', () => {
      planPath(idx47, '4.7.0', '4.7.4', { acceptRisks: ['VSphereNodeNameChanges'] });
    }),
    bench('synthetic 4.0.0 → 4.49.99 (49 minors)', () => {
      planPath(idxSynth, '4.0.0', '4.49.99');
    }),
    bench('PlanIndex build, stable-4.7', () => {
      new PlanIndex(g47);
    }),
    bench('PlanIndex build, synthetic', () => {
      new PlanIndex(synth);
    }),
    { time: 1500 },
  );
});
