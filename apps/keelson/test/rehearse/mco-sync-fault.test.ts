/**
 * `--fault mco-sync-fails` (issue 20 §5): a machine-config-operator sync task fails during the update. As upstream
 * release-4.20 reports it, machine-config stays Available=True and goes Degraded=True RenderConfigFailed; the CVO
 * tolerates it for 40 minutes (scaled), then reports it (Failing=True ClusterOperatorDegraded); the input is restored
 * and the update completes. Before release-4.20's status rules Keelson's MCO went Available=False on any task error and
 * the CVO failed the update at once (ClusterOperatorNotAvailable).
 * - the fault's driver on the embedded API server (breaks at the target operator, restores on the CVO's report);
 * - a whole rehearsal with the fault, as a real child process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { installClusterCABundles, startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { KubeClient } from '@keelson/kube';
import {
  FaultSpecError,
  describeFaults,
  parseFaults,
  cvoReportsMachineConfig,
  McoSyncFault,
  type McoSyncFaultEvent,
} from '@keelson/rehearsal';
import { conditionLines, rehearseWith } from './fault-helpers.js';

const PATH = '/api/v1/namespaces/openshift-config-managed/configmaps/kube-apiserver-client-ca';
const failing = (message: string): unknown => ({
  status: { conditions: [{ type: 'Failing', status: 'True', reason: 'ClusterOperatorDegraded', message }] },
});

describe('--fault mco-sync-fails', { timeout: 900_000 }, () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.stop();
    sandbox = undefined;
  });

  it('parses without a value and is listed in the report', () => {
    const plan = parseFaults(['mco-sync-fails'], [], []);
    expect(plan.mcoSyncFails).toBe(true);
    expect(describeFaults(plan)).toEqual(['mco-sync-fails']);
    expect(() => parseFaults(['mco-sync-fails=1'], [], [])).toThrow(FaultSpecError);
  });

  it('breaks the operator input once the target operator runs, and restores it as it was once the CVO reports it', async () => {
    sandbox = await startSandbox();
    await installClusterCABundles(sandbox);
    const client = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
    const before = await client.request<{ data?: Record<string, string> }>('GET', PATH);
    const events: McoSyncFaultEvent[] = [];
    const fault = new McoSyncFault(client, (e) => events.push(e));
    // the previous release's operator still runs: nothing happens
    expect(await fault.step('4.18.7', '4.18.8', undefined)).toBe('armed');
    await client.request('GET', PATH);
    expect(await fault.step('4.18.8', '4.18.8', undefined)).toBe('broken');
    await expect(client.request('GET', PATH)).rejects.toThrow(/404/);
    // another operator's report does not restore it
    expect(cvoReportsMachineConfig(failing('wait has exceeded 40 minutes for these operators: dns'))).toBe(false);
    expect(await fault.step('4.18.8', '4.18.8', failing('wait has exceeded 40 minutes for these operators: dns'))).toBe(
      'broken',
    );
    const report = failing('wait has exceeded 40 minutes for these operators: machine-config');
    expect(await fault.step('4.18.8', '4.18.8', report)).toBe('restored');
    const after = await client.request<{ data?: Record<string, string> }>('GET', PATH);
    expect(after.data).toEqual(before.data);
    expect(events.map((e) => e.detail)).toEqual([
      expect.stringMatching(/^configmap openshift-config-managed\/kube-apiserver-client-ca removed/),
      expect.stringMatching(
        /^the CVO reported it \(wait has exceeded 40 minutes for these operators: machine-config\)/,
      ),
    ]);
    await client.close();
  });

  it('whole rehearsal: Degraded RenderConfigFailed and still Available, the CVO reports it after 40 minutes, the update completes', async () => {
    const { code, report } = await rehearseWith(['--fault', 'mco-sync-fails']);
    expect(report.outcome, report.message).toBe('Completed');
    expect(code).toBe(0);
    expect(report.faults).toEqual(['mco-sync-fails']);
    const lines = conditionLines(report);
    const update = report.conditions
      .filter((c) => c.phase === 'update')
      .map((c) => c.object + ' ' + JSON.stringify(c.condition));
    expect(lines).toContain(
      'clusteroperator/machine-config Degraded=True RenderConfigFailed: Unable to apply 4.18.8: configmap "kube-apiserver-client-ca" not found',
    );
    expect(lines).toContain(
      'clusterversion/version Failing=True ClusterOperatorDegraded: wait has exceeded 40 minutes for these operators: machine-config',
    );
    // never unavailable during the update (the pre-4.18 rule made the CVO fail the update at once)
    expect(update.filter((l) => /machine-config .*"type":"Available","status":"False"/.test(l))).toEqual([]);
    expect(update.filter((l) => /ClusterOperatorNotAvailable/.test(l))).toEqual([]);
    expect(report.injected.map((i) => i.fault)).toEqual(['mco-sync-fails', 'mco-sync-fails']);
  });
});
