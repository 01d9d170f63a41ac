/**
 * `keelson rehearse` faults on the MCO side, each a whole rehearsal with the real components (smallest cluster):
 * a paused pool holds its nodes while B is applied; a file edited by hand on a node stops that node's update with the
 * daemon's upstream "unexpected on-disk state" reason.
 */
import { describe, expect, it } from 'vitest';
import { conditionLines, rehearseWith } from './fault-helpers.js';

describe.concurrent('keelson rehearse faults (MCO)', { timeout: 900_000 }, () => {
  it('--pause-pool worker: PoolPaused (exit 7): B applied, masters updated, the paused worker pool holds its node', async () => {
    const { code, report } = await rehearseWith(['--pause-pool', 'worker']);
    expect(report.outcome, report.message).toBe('PoolPaused');
    expect(code).toBe(7);
    expect(report.message).toBe('ClusterVersion is at 4.18.8; paused pool(s) worker hold the node update until unpaused');
    const master = report.pools.find((p) => p.name === 'master');
    const worker = report.pools.find((p) => p.name === 'worker');
    expect(master?.updated).toBe(1);
    expect(worker?.paused).toBe(true);
    expect(worker?.updated).toBe(0);
    expect(worker?.rolloutOrder).toEqual([]);
    expect(report.reboots.map((r) => r.node)).toEqual(['master-0']);
    expect(report.injected.map((f) => f.fault)).toEqual(['pause-pool worker']);
  });

  it('--fault on-disk-drift=worker-0:/etc/node-role: NodeRolloutFailed (exit 6) with the daemon\'s on-disk validation reason', async () => {
    const { code, report } = await rehearseWith(['--fault', 'on-disk-drift=worker-0:/etc/node-role']);
    expect(report.outcome, report.message).toBe('NodeRolloutFailed');
    expect(code).toBe(6);
    const lines = conditionLines(report);
    expect(lines.some((l) => /^machineconfigpool\/worker NodeDegraded=True .*unexpected on-disk state validating against rendered-worker-[0-9a-f]+: content mismatch for file "\/etc\/node-role"/.test(l)), lines.join('\n')).toBe(true);
    expect(report.pools.find((p) => p.name === 'worker')?.updated).toBe(0);
  });
});
