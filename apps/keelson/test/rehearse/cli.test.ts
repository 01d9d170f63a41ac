/** `keelson rehearse` as a child process with every real component: a whole update of the default cluster. */
import { describe, expect, it } from 'vitest';
import type { RehearsalReport } from '@keelson/rehearsal';
import { cli } from '../cli-helpers.js';

// a whole rehearsal takes minutes on 2 shared cores (see README)
describe('keelson rehearse', { timeout: 600_000 }, () => {
  it('runs the default rehearsal to the end: B Completed, every pool on a new config, never above maxUnavailable', async () => {
    const r = await cli('rehearse', '--json', '--timeout', '400');
    const report = JSON.parse(r.stdout) as RehearsalReport;
    expect(report.missing).toEqual([]);
    expect(report.outcome, report.message).toBe('Completed');
    expect(r.code).toBe(0);
    expect(report.from).toBe('4.18.7');
    expect(report.to).toBe('4.18.8');
    expect(report.pools.map((p) => p.name)).toEqual(['master', 'worker']);
    for (const p of report.pools) {
      expect(p.updated).toBe(3);
      expect(p.maxUnavailableSeen).toBeGreaterThan(0);
      expect(p.maxUnavailableSeen).toBeLessThanOrEqual(p.maxUnavailable);
      expect([...p.rolloutOrder].sort()).toEqual([0, 1, 2].map((i) => `${p.name}-${i}`));
    }
    for (const o of report.operators) expect(o.reachedMs, o.name).not.toBeNull();
    expect(report.reboots.map((x) => x.node).sort()).toEqual([
      'master-0',
      'master-1',
      'master-2',
      'worker-0',
      'worker-1',
      'worker-2',
    ]);
    expect(report.api.evictions).toBeGreaterThan(0);
    expect(report.api.total).toBeGreaterThan(1000);
  });

  it('--max-unavailable: worker=67% of 3 lets 2 workers update at once; a --pools custom pool is created and rolled', async () => {
    const r = await cli(
      'rehearse',
      '--json',
      '--masters',
      '1',
      '--workers',
      '3',
      '--pools',
      'infra=1',
      '--max-unavailable',
      'worker=67%',
      '--time-scale',
      '120',
      '--timeout',
      '300',
    );
    const report = JSON.parse(r.stdout) as RehearsalReport;
    expect(report.outcome, report.message).toBe('Completed');
    const pool = (name: string) => report.pools.find((p) => p.name === name);
    // floor(67% × 3) = 2, as the machine-config-controller scales it; both chosen in one pass
    expect(pool('worker')).toMatchObject({ nodes: 3, updated: 3, maxUnavailable: 2, maxUnavailableSeen: 2 });
    expect(pool('infra')).toMatchObject({ nodes: 1, updated: 1, maxUnavailable: 1 });
    expect(pool('infra')?.config).toMatch(/^rendered-infra-/);
    expect(pool('master')).toMatchObject({ maxUnavailable: 1, maxUnavailableSeen: 1 });
  });

  it('rejects bad flags with usage errors', async () => {
    const cases = [
      ['--fault', 'explode'],
      ['--kill', 'cvo@200%'],
      ['--time-scale', '0'],
      ['--pools', 'worker=2'],
      ['--from', 'x'],
      ['--masters', '-1'],
      ['--max-unavailable', 'worker=10 %'],
      ['--max-unavailable', 'worker=-1'],
      ['--max-unavailable', 'infra=1'],
      ['--pools', 'infra=1', '--max-unavailable', 'gpu=10%'],
    ];
    const runs = await Promise.all(cases.map((args) => cli('rehearse', ...args)));
    runs.forEach((r, i) => {
      expect(r.code, cases[i]?.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/error: /);
    });
  });
});
