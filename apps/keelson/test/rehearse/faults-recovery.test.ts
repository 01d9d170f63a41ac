/**
 * `keelson rehearse` with the faults an update survives or is held by on purpose, each a whole rehearsal with the real
 * components (smallest cluster: one master, one worker, time scale 120), one after the other:
 * - kill cvo@50%: the CVO process is SIGKILLed, started again, the update completes (0);
 * - pause-pool: PoolPaused (7), the paused pool holds its node;
 * - api-errors: the update completes (0) despite injected 500s, which the report counts;
 * - kill daemon: the node's daemon is killed mid-update, started again, and the update completes (0).
 * The faults that end on a held condition are in `faults.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { rehearseWith } from './fault-helpers.js';

describe('keelson rehearse faults (recovery)', { timeout: 900_000 }, () => {
  it('--kill cvo@50%: the CVO process is SIGKILLed mid-update, started again, and the update completes (exit 0)', async () => {
    const { code, report } = await rehearseWith(['--kill', 'cvo@50%']);
    expect(report.outcome, report.message).toBe('Completed');
    expect(code).toBe(0);
    const killed = report.interruptions.find((x) => x.component === 'cluster-version-operator' && x.state === 'killed');
    const restarted = report.interruptions.find(
      (x) => x.component === 'cluster-version-operator' && x.state === 'restarted',
    );
    expect(killed, JSON.stringify(report.interruptions)).toBeDefined();
    expect(restarted).toBeDefined();
    // killed at or after half of B's manifests, before the end
    const m = /^at (\d+)\/(\d+)$/.exec(killed?.detail ?? '');
    expect(m).not.toBeNull();
    const [done, total] = [Number(m?.[1]), Number(m?.[2])];
    expect(done / total).toBeGreaterThanOrEqual(0.5);
    expect(done).toBeLessThan(total);
    // Completed is decided on the pools' Updated conditions read from the API (the per-pool counts of the report come
    // from the observer's event timeline, which can be one MachineConfigPool event behind at that instant)
    expect(report.message).toMatch(/every pool Updated$/);
    for (const o of report.operators) expect(o.reachedMs, o.name).not.toBeNull();
  });

  it('--pause-pool worker: PoolPaused (exit 7): B applied, masters updated, the paused worker pool holds its node', async () => {
    const { code, report } = await rehearseWith(['--pause-pool', 'worker']);
    expect(report.outcome, report.message).toBe('PoolPaused');
    expect(code).toBe(7);
    expect(report.message).toBe(
      'ClusterVersion is at 4.18.8; paused pool(s) worker hold the node update until unpaused',
    );
    const master = report.pools.find((p) => p.name === 'master');
    const worker = report.pools.find((p) => p.name === 'worker');
    expect(master?.updated).toBe(1);
    expect(worker?.paused).toBe(true);
    expect(worker?.updated).toBe(0);
    expect(worker?.rolloutOrder).toEqual([]);
    expect(report.reboots.map((r) => r.node)).toEqual(['master-0']);
    expect(report.injected.map((f) => f.fault)).toEqual(['pause-pool worker']);
  });

  it('--fault api-errors=0.05: the update completes (exit 0) despite injected 500s, which the report counts', async () => {
    const { code, report } = await rehearseWith(['--fault', 'api-errors=0.05'], { timeoutSeconds: 120 });
    expect(report.outcome, report.message).toBe('Completed');
    expect(code).toBe(0);
    expect(report.message).toMatch(/every pool Updated$/);
    expect(report.faults).toEqual(['api-errors=0.05']);
    expect(report.api.injectedErrors).toBeGreaterThan(0);
    for (const o of report.operators) expect(o.reachedMs, o.name).not.toBeNull();
  });

  it('--kill daemon@worker-0: the daemon is killed mid-update, started again, and the update completes (exit 0)', async () => {
    const { code, report } = await rehearseWith(['--kill', 'daemon@worker-0'], { timeoutSeconds: 120 });
    expect(report.outcome, report.message).toBe('Completed');
    expect(code).toBe(0);
    expect(report.interruptions).toContainEqual(
      expect.objectContaining({
        component: 'machine-config-daemon/worker-0',
        state: 'restarted',
        detail: 'killed mid-update',
      }),
    );
    expect(report.message).toMatch(/every pool Updated$/);
    expect(report.reboots.find((r) => r.node === 'worker-0')?.count ?? 0).toBeGreaterThanOrEqual(1);
  });
});
