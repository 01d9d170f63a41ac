/**
 * The rehearsal's own overhead on its hot paths: folding a 300-worker update timeline into the report and the live
 * view, and planning A -> B (diff, task graph, two renders per pool). Run: pnpm --filter keelson-cli run bench
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateRehearsalReleases } from '@keelson/payload-gen';
import { openPayload, type ReleasePayload } from '@keelson/release-payload';
import { afterAll, test } from 'vitest';
import { computeUpgradePlan } from '../src/plan/compute-plan.js';
import { applyEvent, initialState, renderLive } from '../src/rehearse/live-view.js';
import { computeReport, type NodePhase, type TimelineEvent } from '@keelson/rehearsal';

function timeline(workers: number): TimelineEvent[] {
  const ev: TimelineEvent[] = [
    { t: 0, type: 'phase', phase: 'install', detail: '' },
    { t: 1, type: 'phase', phase: 'upgrade', detail: '' },
  ];
  let t = 2;
  const phases: NodePhase[] = ['draining', 'updating', 'rebooting', 'done'];
  for (let i = 0; i < workers; i++) {
    for (const phase of phases) {
      const done = phase === 'done';
      ev.push({
        t: t++,
        type: 'node',
        node: {
          name: `worker-${i}`,
          pool: 'worker',
          phase,
          currentConfig: done ? 'b' : 'a',
          desiredConfig: 'b',
          ready: phase !== 'rebooting',
          cordoned: !done,
          unavailable: !done,
        },
      });
    }
    ev.push({
      t: t++,
      type: 'pool',
      pool: {
        name: 'worker',
        machineCount: workers,
        updated: i + 1,
        ready: workers,
        unavailable: 0,
        degraded: 0,
        paused: false,
        config: i + 1 === workers ? 'b' : 'a',
        target: 'b',
        maxUnavailable: 1,
        conditions: [],
      },
    });
  }
  ev.push({ t, type: 'phase', phase: 'finished', detail: 'Completed' });
  return ev;
}

const ev300 = timeline(300);
const ctx = {
  from: '4.18.7',
  to: '4.18.8',
  outcome: 'Completed' as const,
  message: '',
  timeScale: 60,
  api: { total: 0, byVerb: {}, evictions: 0, pdbRefusals: 0, injectedErrors: 0 },
  runLevels: [],
  faults: [],
};
const out = mkdtempSync(join(tmpdir(), 'plan-bench-'));
const rel = await generateRehearsalReleases({ out });
const a: ReleasePayload = await openPayload(rel.from.dir);
const b: ReleasePayload = await openPayload(rel.to.dir);
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

// vitest 5 benchmarks: the `bench` fixture of a test
test('rehearsal overhead', { timeout: 120_000 }, async ({ bench }) => {
  await bench.compare(
    bench('computeReport, 300 workers (1,500 events)', () => {
      computeReport(ev300, ctx);
    }),
    bench('live view: fold + render 1,500 events', () => {
      const s = initialState('4.18.7', '4.18.8');
      for (const e of ev300) applyEvent(s, e);
      renderLive(s);
    }),
    bench(`computeUpgradePlan A -> B (${b.manifests.length} manifests, 2 pools)`, () => {
      computeUpgradePlan({ from: a, to: b });
    }),
    { time: 500 },
  );
});
