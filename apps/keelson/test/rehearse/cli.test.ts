/** `keelson rehearse` as a child process: it refuses to run (exit 3) and names what is missing instead of faking a run. */
import { describe, expect, it } from 'vitest';
import type { RehearsalReport } from '../../src/rehearse/report.js';
import { cli } from '../cli-helpers.js';

// once every component is merged the first case runs a whole rehearsal (minutes on 2 shared cores, see README)
describe('keelson rehearse', { timeout: 600_000 }, () => {
  it('reports NotRunnable with each missing component while the components are not all on this branch', async () => {
    const r = await cli('rehearse', '--json');
    const report = JSON.parse(r.stdout) as RehearsalReport;
    if (report.outcome === 'NotRunnable') {
      expect(r.code).toBe(3);
      expect(report.missing.length).toBeGreaterThan(0);
      for (const m of report.missing) expect(m).toMatch(/\(.+\): .+/);
      expect(report.api.total).toBe(0);
      expect(report.pools).toEqual([]);
    } else {
      // every component is wired: the default rehearsal must complete within maxUnavailable
      expect(report.outcome).toBe('Completed');
      expect(r.code).toBe(0);
      for (const p of report.pools) expect(p.maxUnavailableSeen).toBeLessThanOrEqual(p.maxUnavailable);
    }
  });

  it('rejects bad flags with usage errors', async () => {
    const cases = [['--fault', 'explode'], ['--kill', 'cvo@200%'], ['--time-scale', '0'], ['--pools', 'worker=2'], ['--from', 'x'], ['--masters', '-1']];
    const runs = await Promise.all(cases.map((args) => cli('rehearse', ...args)));
    runs.forEach((r, i) => {
      expect(r.code, cases[i]?.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/error: /);
    });
  });
});
