/**
 * `keelson rehearse` with each fault that ends the rehearsal on a held condition, each a whole rehearsal with the real
 * components (smallest cluster: one master, one worker, time scale 120), one after the other. Each asserts the outcome,
 * the exit code and the upstream text the components reported:
 * - degraded-operator: Failed (4), ClusterVersion Failing=True ClusterOperatorDegraded after the 40-minute interval;
 * - on-disk-drift: NodeRolloutFailed (6), the daemon's "unexpected on-disk state validating against rendered-…:
 *   content mismatch for file" in the pool's NodeDegraded;
 * - operator-never-updates: Stalled (5) on the CVO's Failing=Unknown SlowClusterOperator (30 minutes);
 * - node-fails-boot: Stalled (5) once the node stays NotReady for five reboots;
 * - pdb-blocks-drain: Stalled (5) on the controller's DrainThresholdExceeded, evictions refused with the eviction
 *   API's 429 text counted.
 * Stalls are recognised from what upstream reports, so no test waits for its timeout. The faults the update recovers
 * from are in `faults-recovery.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { conditionLines, rehearseWith } from './fault-helpers.js';

const PDB_429 = "Cannot evict pod as it would violate the pod's disruption budget.";

describe('keelson rehearse faults (held)', { timeout: 900_000 }, () => {
  it('--fault degraded-operator=dns: Failed (exit 4), ClusterVersion Failing=True ClusterOperatorDegraded naming dns', async () => {
    // Failing=True counts once held for a quarter of the phase timeout (15 s here)
    const { code, report } = await rehearseWith(['--fault', 'degraded-operator=dns'], { timeoutSeconds: 60 });
    expect(report.outcome, report.message).toBe('Failed');
    expect(code).toBe(4);
    expect(report.exitCode).toBe(4);
    expect(report.faults).toEqual(['degraded-operator=dns']);
    expect(report.message).toMatch(
      /^ClusterVersion Failing=True: wait has exceeded 40 minutes for these operators: dns$/,
    );
    const lines = conditionLines(report);
    expect(lines).toContain(
      'clusterversion/version Failing=True ClusterOperatorDegraded: wait has exceeded 40 minutes for these operators: dns',
    );
    expect(lines.some((l) => l.startsWith('clusteroperator/dns Degraded=True'))).toBe(true);
    expect(report.operators.find((o) => o.name === 'dns')?.reachedMs ?? null).not.toBeNull();
  });

  it("--fault on-disk-drift=worker-0:/etc/kubernetes/apiserver-url.env: NodeRolloutFailed (exit 6) with the daemon's on-disk validation reason", async () => {
    // a NodeDegraded counts once held for a quarter of the phase timeout (15 s here)
    const { code, report } = await rehearseWith(
      ['--fault', 'on-disk-drift=worker-0:/etc/kubernetes/apiserver-url.env'],
      { timeoutSeconds: 60 },
    );
    expect(report.outcome, report.message).toBe('NodeRolloutFailed');
    expect(code).toBe(6);
    expect(report.injected.map((f) => f.detail)).toEqual([
      '/etc/kubernetes/apiserver-url.env on worker-0 edited by hand after A was applied',
    ]);
    expect(report.message).toMatch(
      /^machineconfigpool\/worker: Node worker-0 is reporting: "unexpected on-disk state validating against rendered-worker-[0-9a-f]{32}: content mismatch for file "\/etc\/kubernetes\/apiserver-url\.env""$/,
    );
    const lines = conditionLines(report);
    expect(
      lines.some((l) =>
        /^machineconfigpool\/worker NodeDegraded=True .*unexpected on-disk state validating against rendered-worker-[0-9a-f]+: content mismatch for file "\/etc\/kubernetes\/apiserver-url\.env"/.test(
          l,
        ),
      ),
      lines.join('\n'),
    ).toBe(true);
    expect(report.pools.find((p) => p.name === 'worker')?.updated).toBe(0);
    // The drift holds back the worker pool only: the master was given B's config. The verdict comes once the worker's
    // NodeDegraded has held for 15 s, which on a loaded machine can be before the master has finished rebooting, so
    // its rollout is asserted, not its completion.
    expect(report.pools.find((p) => p.name === 'master')?.rolloutOrder).toEqual(['master-0']);
  });

  it('--fault operator-never-updates=dns: Stalled (exit 5) on ClusterVersion Failing=Unknown SlowClusterOperator naming dns', async () => {
    const { code, report } = await rehearseWith(['--fault', 'operator-never-updates=dns']);
    expect(report.outcome, report.message).toBe('Stalled');
    expect(code).toBe(5);
    expect(report.message).toMatch(
      /^ClusterVersion Failing=Unknown SlowClusterOperator: waiting on dns over 30 minutes which is longer than expected; Progressing: Working towards 4\.18\.8: \d+ of \d+ done \(\d+% complete\), waiting on dns(;|$)/,
    );
    expect(conditionLines(report)).toContain(
      'clusterversion/version Failing=Unknown SlowClusterOperator: waiting on dns over 30 minutes which is longer than expected',
    );
    expect(report.operators.find((o) => o.name === 'dns')?.reachedMs).toBeNull();
    // the operators of earlier run levels did reach B
    expect(report.operators.find((o) => o.name === 'etcd')?.reachedMs ?? null).not.toBeNull();
  });

  it('--fault node-fails-boot=worker-0: Stalled (exit 5) naming the node that did not come back from its reboot', async () => {
    const { code, report } = await rehearseWith(['--fault', 'node-fails-boot=worker-0']);
    expect(report.outcome, report.message).toBe('Stalled');
    expect(code).toBe(5);
    expect(report.message).toMatch(
      /^node\/worker-0 has been NotReady for \d+s, a reboot takes 2s here: it did not come back from its reboot; machineconfigpool\/worker 0\/1 updated, 1 unavailable; node\/worker-0 NotReady \(desiredConfig rendered-worker-[0-9a-f]{32}, currentConfig rendered-worker-[0-9a-f]{32}\)/,
    );
    expect(report.pools.find((p) => p.name === 'worker')?.updated).toBe(0);
    expect(report.injected.map((f) => f.fault)).toEqual(['node-fails-boot=worker-0']);
  });

  it("--fault pdb-blocks-drain: Stalled (exit 5) on the controller's DrainThresholdExceeded; PDB refusals counted", async () => {
    const { code, report } = await rehearseWith(['--fault', 'pdb-blocks-drain']);
    expect(report.outcome, report.message).toBe('Stalled');
    expect(code).toBe(5);
    // upstream says "more than 10 minutes" / "Waiting 5 minutes": the controller prints wall-clock minutes of its
    // compressed durations (a known defect of the MCO app, reported), so the numbers are not pinned here
    expect(report.message).toMatch(
      /^node\/worker-0 DrainThresholdExceeded: Drain failed\. Drain has been failing for more than [\d.]+ minutes\. Waiting [\d.]+ minutes then retrying\. Error message from drain: .*error when evicting pods\/"critical-app-[a-z0-9-]+" -n "rehearsal-workload"/,
    );
    expect(report.message).toMatch(
      /; machineconfigpool\/worker 0\/1 updated, 1 unavailable; .*drain blocked: \d+ evictions refused \(Cannot evict pod as it would violate the pod's disruption budget\.\)$/,
    );
    expect(report.message).toContain(PDB_429);
    expect(report.api.pdbRefusals).toBeGreaterThan(0);
    expect(report.api.evictions).toBeGreaterThanOrEqual(report.api.pdbRefusals);
    expect(report.pools.find((p) => p.name === 'worker')?.updated).toBe(0);
  });
});
