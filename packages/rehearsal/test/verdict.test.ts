/** The rehearsal's pure verdicts on stuck updates, and the install's settle check. */
import { describe, expect, it } from 'vitest';
import { missingSources, unsettledDaemons, unsettledPools } from '../src/settled.js';
import type { NodeView } from '../src/timeline.js';
import { decideUpdateVerdict, explainStall, holdMs, nodeDownLimitMs, type VerdictInput } from '../src/verdict.js';

const cv = (failing: { status: string; reason?: string; message?: string }) => ({
  metadata: { name: 'version' },
  status: {
    history: [{ version: '4.18.8', state: 'Partial' }],
    conditions: [
      { type: 'Failing', ...failing },
      {
        type: 'Progressing',
        status: 'True',
        message: 'Working towards 4.18.8: 125 of 209 done (59% complete), waiting on dns',
      },
    ],
  },
});
const updating = {
  metadata: { name: 'worker' },
  status: {
    machineCount: 1,
    updatedMachineCount: 0,
    unavailableMachineCount: 1,
    conditions: [{ type: 'Updated', status: 'False' }],
  },
};
const base: VerdictInput = {
  clusterVersion: cv({ status: 'False' }),
  pools: [updating],
  target: '4.18.8',
  installedConfigs: new Map(),
  pausedPools: [],
  now: 10_000,
  failingSince: undefined,
  startedAt: 0,
  deadline: 60_000,
};

describe('decideUpdateVerdict on stuck updates', () => {
  it('holds conditions a quarter of the phase, at least 2 s', () => {
    expect(holdMs(0, 60_000)).toBe(15_000);
    expect(holdMs(0, 4_000)).toBe(2_000);
  });

  it('stalls at once on SlowClusterOperator naming an operator, not when only machine-config is slow', () => {
    const slow = cv({
      status: 'Unknown',
      reason: 'SlowClusterOperator',
      message: 'waiting on dns over 30 minutes which is longer than expected',
    });
    expect(decideUpdateVerdict({ ...base, clusterVersion: slow })).toEqual({
      outcome: 'Stalled',
      message:
        'ClusterVersion Failing=Unknown SlowClusterOperator: waiting on dns over 30 minutes which is longer than expected; Progressing: Working towards 4.18.8: 125 of 209 done (59% complete), waiting on dns',
    });
    const mco = cv({
      status: 'Unknown',
      reason: 'SlowClusterOperator',
      message: 'waiting on machine-config over 90 minutes which is longer than expected',
    });
    expect(decideUpdateVerdict({ ...base, clusterVersion: mco })).toBeUndefined();
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv({
          status: 'False',
          reason: 'ClusterOperatorUpdating',
          message: 'Cluster operator dns is updating versions',
        }),
      }),
    ).toBeUndefined();
  });

  it("stalls on the machine-config-controller's DrainThresholdExceeded", () => {
    const drainFailure = {
      node: 'worker-0',
      message:
        "Drain failed. Drain has been failing for more than 10 minutes. Waiting 5 minutes then retrying. Error message from drain: Cannot evict pod as it would violate the pod's disruption budget.",
    };
    expect(decideUpdateVerdict({ ...base, drainFailure })).toEqual({
      outcome: 'Stalled',
      message: `node/worker-0 DrainThresholdExceeded: ${drainFailure.message}`,
    });
  });

  it('stalls on a node NotReady for five reboots (at least 10 s), not before', () => {
    expect(nodeDownLimitMs(4_000)).toBe(20_000);
    expect(nodeDownLimitMs(100)).toBe(10_000);
    const downNodes = [{ name: 'worker-0', since: 1_000 }];
    expect(decideUpdateVerdict({ ...base, downNodes, rebootMs: 4_000, now: 20_000 })).toBeUndefined();
    expect(decideUpdateVerdict({ ...base, downNodes })).toBeUndefined();
    expect(decideUpdateVerdict({ ...base, downNodes, rebootMs: 4_000, now: 22_000 })).toEqual({
      outcome: 'Stalled',
      message: 'node/worker-0 has been NotReady for 21s, a reboot takes 4s here: it did not come back from its reboot',
    });
  });

  it('lets a transient NodeDegraded (cleared by the daemon retry) pass', () => {
    const degraded = {
      ...updating,
      status: {
        ...updating.status,
        conditions: [
          {
            type: 'NodeDegraded',
            status: 'True',
            message: 'Node worker-0 is reporting: "PATCH /api/v1/nodes/worker-0 failed: 500 InternalError"',
          },
        ],
      },
    };
    expect(decideUpdateVerdict({ ...base, pools: [degraded], degradedSince: 8_000 })).toBeUndefined();
    expect(decideUpdateVerdict({ ...base, pools: [degraded], degradedSince: undefined, now: 59_000 })).toBeUndefined();
    expect(decideUpdateVerdict({ ...base, pools: [degraded], degradedSince: 8_000, now: 23_000 })?.outcome).toBe(
      'NodeRolloutFailed',
    );
  });
});

describe('explainStall', () => {
  it('names nodes NotReady or Degraded', () => {
    const node = (name: string, over: Partial<NodeView>): NodeView => ({
      name,
      pool: 'worker',
      phase: 'done',
      currentConfig: 'rendered-worker-a',
      desiredConfig: 'rendered-worker-b',
      ready: true,
      cordoned: false,
      unavailable: true,
      ...over,
    });
    const nodes = [
      node('worker-0', { ready: false, phase: 'rebooting' }),
      node('worker-1', { phase: 'degraded', reason: 'unexpected on-disk state' }),
      node('worker-2', { unavailable: false }),
    ];
    expect(explainStall('stuck', [], 0, nodes)).toBe(
      'stuck; node/worker-0 NotReady (desiredConfig rendered-worker-b, currentConfig rendered-worker-a); node/worker-1 Degraded: unexpected on-disk state',
    );
  });
});

describe('settled pools', () => {
  const mc = (name: string, role: string, owned = false) => ({
    metadata: {
      name,
      labels: { 'machineconfiguration.openshift.io/role': role },
      ...(owned ? { ownerReferences: [{ kind: 'MachineConfigPool' }] } : {}),
    },
  });
  const pool = (name: string, sources: string[]) => ({
    metadata: { name },
    spec: { machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': name } } },
    status: { configuration: { name: `rendered-${name}-1`, source: sources.map((s) => ({ name: s })) } },
  });
  const mcs = [
    mc('00-worker', 'worker'),
    mc('01-worker-kubelet', 'worker'),
    mc('50-worker-release-base', 'worker'),
    mc('00-master', 'master'),
    { metadata: { name: 'rendered-worker-1' } },
  ];

  it('lists the MachineConfigs selecting a pool that its running config was not rendered from', () => {
    expect(missingSources(pool('worker', ['00-worker', '01-worker-kubelet']), mcs)).toEqual(['50-worker-release-base']);
    expect(missingSources(pool('worker', ['00-worker', '01-worker-kubelet', '50-worker-release-base']), mcs)).toEqual(
      [],
    );
    expect(
      missingSources(pool('worker', ['00-worker', '01-worker-kubelet', '50-worker-release-base']), [
        ...mcs,
        mc('rendered-worker-2', 'worker', true),
      ]),
    ).toEqual([]);
  });

  it('says which pools have not settled', () => {
    expect(unsettledPools([pool('master', ['00-master']), pool('worker', ['00-worker'])], mcs)).toEqual([
      'machineconfigpool/worker runs rendered-worker-1 without 01-worker-kubelet, 50-worker-release-base',
    ]);
    expect(unsettledPools([pool('master', ['00-master'])], mcs)).toEqual([]);
  });
});

describe("unsettledDaemons (the daemons' first sync, before an update starts)", () => {
  const DD = 'machineconfiguration.openshift.io/desiredDrain';
  const LD = 'machineconfiguration.openshift.io/lastAppliedDrain';
  const node = (name: string, a: Record<string, string>) => ({ metadata: { name, annotations: a } });
  const mcn = (name: string, updated: string) => ({
    metadata: { name },
    status: { conditions: [{ type: 'Updated', status: updated }] },
  });
  const u = 'uncordon-rendered-worker-1';

  it('waits for the uncordon request, its acknowledgement and the Updated report', () => {
    const nodes = [
      node('w-0', {}), // provisioned Done, its daemon has not asked for the uncordon yet
      node('w-1', { [DD]: u }), // asked, not acknowledged
      node('w-2', { [DD]: u, [LD]: u }), // acknowledged, its MCN not yet Updated
      node('w-3', { [DD]: u, [LD]: u }), // settled
      node('w-4', { [DD]: u, [LD]: u }), // settled, no MachineConfigNode (a cluster without their CRD)
    ];
    expect(unsettledDaemons(nodes, [mcn('w-2', 'False'), mcn('w-3', 'True')])).toEqual(['w-0', 'w-1', 'w-2']);
    expect(unsettledDaemons(nodes.slice(3), [mcn('w-3', 'True')])).toEqual([]);
  });
});
