/**
 * `keelson rehearse` faults on the CVO side, each a whole rehearsal with the real components (smallest cluster):
 * a degraded ClusterOperator fails the update with the CVO's upstream condition; a SIGKILLed CVO process is started
 * again and the update resumes to the end.
 */
import { describe, expect, it } from 'vitest';
import { conditionLines, rehearseWith } from './fault-helpers.js';

describe.concurrent('keelson rehearse faults (CVO)', { timeout: 900_000 }, () => {
  it('--fault degraded-operator=dns: Failed (exit 4), ClusterVersion Failing=True ClusterOperatorDegraded naming dns', async () => {
    const { code, report } = await rehearseWith(['--fault', 'degraded-operator=dns']);
    expect(report.outcome, report.message).toBe('Failed');
    expect(code).toBe(4);
    expect(report.exitCode).toBe(4);
    expect(report.faults).toEqual(['degraded-operator=dns']);
    expect(report.message).toMatch(/^ClusterVersion Failing=True: wait has exceeded 40 minutes for these operators: dns$/);
    const lines = conditionLines(report);
    expect(lines).toContain('clusterversion/version Failing=True ClusterOperatorDegraded: wait has exceeded 40 minutes for these operators: dns');
    expect(lines.some((l) => l.startsWith('clusteroperator/dns Degraded=True'))).toBe(true);
    expect(report.operators.find((o) => o.name === 'dns')?.reachedMs ?? null).not.toBeNull();
  });

  it('--kill cvo@50%: the CVO process is SIGKILLed mid-update, started again, and the update completes (exit 0)', async () => {
    const { code, report } = await rehearseWith(['--kill', 'cvo@50%']);
    expect(report.outcome, report.message).toBe('Completed');
    expect(code).toBe(0);
    const killed = report.interruptions.find((x) => x.component === 'cluster-version-operator' && x.state === 'killed');
    const restarted = report.interruptions.find((x) => x.component === 'cluster-version-operator' && x.state === 'restarted');
    expect(killed, JSON.stringify(report.interruptions)).toBeDefined();
    expect(restarted).toBeDefined();
    // killed at or after half of B's manifests, before the end
    const m = /^at (\d+)\/(\d+)$/.exec(killed?.detail ?? '');
    expect(m).not.toBeNull();
    const [done, total] = [Number(m?.[1]), Number(m?.[2])];
    expect(done / total).toBeGreaterThanOrEqual(0.5);
    expect(done).toBeLessThan(total);
    expect(report.pools.every((p) => p.updated === p.nodes)).toBe(true);
    for (const o of report.operators) expect(o.reachedMs, o.name).not.toBeNull();
  });
});
