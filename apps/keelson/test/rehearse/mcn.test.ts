/** MachineConfigNodes in the rehearsal: MCN snapshots → timeline events → the report's per-node lines. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@keelson/kube';
import {
  formatMcnReports,
  mcnEvents,
  mcnHtml,
  mcnReports,
  computeReport,
  formatReport,
  type TimelineEvent,
} from '@keelson/rehearsal';
import { renderHtmlReport } from '../../src/rehearse/html.js';
import { plainLine } from '../../src/rehearse/live-view.js';
import { API, RUN_LEVELS, sampleTimeline } from './timeline-fixture.js';

const mcn = (conds: Array<[string, string, string]>, current = 'rendered-worker-a'): KubeObject =>
  ({
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigNode',
    metadata: { name: 'worker-0' },
    spec: { node: { name: 'worker-0' }, pool: { name: 'worker' }, configVersion: { desired: 'rendered-worker-b' } },
    status: {
      configVersion: { desired: 'rendered-worker-b', current },
      conditions: conds.map(([type, status, reason]) => ({ type, status, reason, message: 'm' })),
    },
  }) as KubeObject;

describe('MCN timeline and report', () => {
  const first = mcn([
    ['Updated', 'True', 'Updated'],
    ['Drained', 'False', 'NotYetOccurred'],
  ]);
  const prepared = mcn([
    ['Updated', 'False', 'Updated'],
    ['Drained', 'False', 'NotYetOccurred'],
    ['UpdatePrepared', 'True', 'UpdatePrepared'],
  ]);
  const done = mcn(
    [
      ['Updated', 'True', 'Updated'],
      ['Drained', 'False', 'UpdateExecutedDrained'],
      ['UpdatePrepared', 'False', 'UpdatePrepared'],
    ],
    'rendered-worker-b',
  );

  it('turns changed conditions into events, skipping placeholders and unchanged ones', () => {
    expect(mcnEvents(undefined, first, 5).map((e) => `${e.condition.type}=${e.condition.status}`)).toEqual([
      'Updated=True',
    ]);
    const evs = mcnEvents(first, prepared, 10);
    expect(evs.map((e) => `${e.condition.type}=${e.condition.status}`)).toEqual([
      'Updated=False',
      'UpdatePrepared=True',
    ]);
    expect(evs[0]).toMatchObject({
      node: 'worker-0',
      pool: 'worker',
      desired: 'rendered-worker-b',
      current: 'rendered-worker-a',
    });
    expect(plainLine(evs[0] as TimelineEvent)).toBeUndefined();
  });

  it('reports per node the changes since the update started and the final state, in the text report', () => {
    const evs: TimelineEvent[] = [
      ...mcnEvents(undefined, first, 5),
      ...mcnEvents(first, prepared, 1500),
      ...mcnEvents(prepared, done, 2500),
    ];
    const rs = mcnReports(evs, 1000);
    expect(rs).toEqual([
      {
        node: 'worker-0',
        pool: 'worker',
        desired: 'rendered-worker-b',
        current: 'rendered-worker-b',
        updated: 'True',
        transitions: [
          { atMs: 500, type: 'Updated', status: 'False', reason: 'Updated' },
          { atMs: 500, type: 'UpdatePrepared', status: 'True', reason: 'UpdatePrepared' },
          { atMs: 1500, type: 'Updated', status: 'True', reason: 'Updated' },
          { atMs: 1500, type: 'Drained', status: 'False', reason: 'UpdateExecutedDrained' },
          { atMs: 1500, type: 'UpdatePrepared', status: 'False', reason: 'UpdatePrepared' },
        ],
      },
    ]);
    expect(formatMcnReports(rs, '  ')).toEqual([
      '  MachineConfigNodes (conditions as they changed during the update, time since it started):',
      '    worker-0 (pool worker): desired rendered-worker-b, current rendered-worker-b, Updated True',
      '      +0.5s Updated=False UpdatePrepared=True',
      '      +1.5s Updated=True Drained=False UpdatePrepared=False',
    ]);
    const timeline = sampleTimeline();
    const upgrade = timeline.find((e) => e.type === 'phase' && e.phase === 'upgrade')?.t ?? 0;
    const withMcn = [...timeline, ...mcnEvents(first, prepared, upgrade + 100)].sort((a, b) => a.t - b.t);
    const r = computeReport(withMcn, {
      from: '4.18.7',
      to: '4.18.8',
      outcome: 'Completed',
      message: 'ok',
      timeScale: 60,
      api: API,
      runLevels: RUN_LEVELS,
      faults: [],
    });
    expect(r.machineConfigNodes.map((m) => m.node)).toEqual(['worker-0']);
    const html = renderHtmlReport(r, withMcn);
    expect(html).toContain('<h2>MachineConfigNodes</h2>');
    expect(html).toContain(
      '<tr><td>worker-0</td><td>worker</td><td><code>rendered-worker-b</code></td><td><code>rendered-worker-a</code></td><td>False</td><td>+0.1 s Updated=False UpdatePrepared=True</td></tr>',
    );
    expect(mcnHtml([])).toBe('');
    expect(formatReport(r)).toContain(
      '    worker-0 (pool worker): desired rendered-worker-b, current rendered-worker-a, Updated False',
    );
  });
});
