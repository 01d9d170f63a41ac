/** Table tests of the `keelson upgrade status` diagnosis (pure: ClusterVersion + ClusterOperators + pools). */
import { describe, expect, it } from 'vitest';
import type { ClusterOperator, ClusterVersion, MachineConfigPool } from '../../src/upgrade/api-types.js';
import { formatUpgradeStatus, shortDuration } from '../../src/upgrade/status-format.js';
import { computeUpgradeStatus } from '../../src/upgrade/status-summary.js';
import { cond, idleCluster, IMG } from './fixtures.js';

const START = '2026-01-01T02:00:00Z';
const NOW = Date.parse('2026-01-01T02:45:00Z');

function updating(failing = false): ClusterVersion {
  const cv = idleCluster({
    conditions: [
      cond(
        'Failing',
        failing ? 'True' : 'False',
        failing ? 'ClusterOperatorDegraded' : undefined,
        failing ? 'Cluster operator dns is degraded' : undefined,
      ),
      cond(
        'Progressing',
        'True',
        undefined,
        'Working towards 4.18.4: 300 of 900 done (33% complete), waiting on dns, etcd',
      ),
    ],
  });
  if (cv.status) {
    cv.status.desired = { version: '4.18.4', image: IMG(4) };
    cv.status.history = [
      { state: 'Partial', startedTime: START, completionTime: null, version: '4.18.4', image: IMG(4), verified: true },
      {
        state: 'Completed',
        startedTime: '2026-01-01T00:00:00Z',
        completionTime: '2026-01-01T01:00:00Z',
        version: '4.18.3',
        image: IMG(3),
        verified: true,
      },
    ];
  }
  return cv;
}

function co(name: string, version: string, extra: ReturnType<typeof cond>[] = []): ClusterOperator {
  const base = [cond('Available', 'True'), cond('Degraded', 'False'), cond('Progressing', 'False')];
  const conditions = [...base.filter((b) => !extra.some((e) => e.type === b.type)), ...extra];
  return { metadata: { name }, spec: {}, status: { versions: [{ name: 'operator', version }], conditions } };
}

function pool(
  name: string,
  machines: number,
  updated: number,
  opts: { updating?: boolean; degraded?: number; paused?: boolean } = {},
): MachineConfigPool {
  const conditions = [
    cond('Updating', opts.updating === true ? 'True' : 'False', undefined, undefined, '2026-01-01T02:30:00Z'),
    cond('Updated', updated === machines && opts.updating !== true ? 'True' : 'False'),
    cond(
      'Degraded',
      (opts.degraded ?? 0) > 0 ? 'True' : 'False',
      undefined,
      (opts.degraded ?? 0) > 0 ? 'Node worker-1 is reporting: "unexpected on-disk state"' : undefined,
    ),
  ];
  return {
    metadata: { name },
    spec: { paused: opts.paused === true },
    status: {
      machineCount: machines,
      updatedMachineCount: updated,
      readyMachineCount: updated,
      unavailableMachineCount: opts.updating === true ? 1 : 0,
      degradedMachineCount: opts.degraded ?? 0,
      conditions,
    },
  };
}

describe('computeUpgradeStatus', () => {
  const operators = [
    co('etcd', '4.18.3', [
      cond('Progressing', 'True', 'NodeInstaller', 'installing revision 7', '2026-01-01T02:40:00Z'),
    ]),
    co('dns', '4.18.3', [cond('Degraded', 'True', 'DNSDegraded', 'dns pods crash', '2026-01-01T02:15:00Z')]),
    co('console', '4.18.4'),
    co('ingress', '4.18.4'),
    co('network', '4.18.3'),
    co('storage', '4.18.3', [cond('Available', 'False', 'NoCSI', 'CSI driver missing', '2026-01-01T02:44:00Z')]),
  ];
  const cases: { name: string; cv: ClusterVersion; want: Record<string, unknown> }[] = [
    {
      name: 'progressing update',
      cv: updating(),
      want: {
        assessment: 'Progressing',
        from: '4.18.3',
        durationMs: 45 * 60_000,
        completion: { percent: 33, updated: 2, total: 6, updating: 1, pending: 1 },
      },
    },
    {
      name: 'stalled update (Failing=True)',
      cv: updating(true),
      want: {
        assessment: 'Stalled',
        failing: { reason: 'ClusterOperatorDegraded', message: 'Cluster operator dns is degraded' },
      },
    },
  ];
  for (const c of cases)
    it(c.name, () =>
      expect(computeUpgradeStatus({ clusterVersion: c.cv, operators, pools: [], now: NOW })).toMatchObject(c.want),
    );

  it('classifies each operator with its reason and since', () => {
    const s = computeUpgradeStatus({ clusterVersion: updating(), operators, pools: [], now: NOW });
    expect(s.operators.map((o) => [o.name, o.state, o.since ?? null, o.reason ?? null])).toEqual([
      ['console', 'Updated', null, null],
      ['dns', 'Degraded', '2026-01-01T02:15:00Z', 'DNSDegraded'],
      ['etcd', 'Updating', '2026-01-01T02:40:00Z', 'NodeInstaller'],
      ['ingress', 'Updated', null, null],
      ['network', 'Pending', START, null],
      ['storage', 'Unavailable', '2026-01-01T02:44:00Z', 'NoCSI'],
    ]);
  });

  it('lists what it waits on, longest wait first, with the node pools', () => {
    const s = computeUpgradeStatus({
      clusterVersion: updating(),
      operators,
      pools: [pool('master', 3, 3), pool('worker', 3, 1, { updating: true }), pool('infra', 2, 0, { paused: true })],
      now: NOW,
    });
    expect(s.waitingOn.map((w) => [w.kind, w.name, w.waitedMs ?? null, w.reason ?? null])).toEqual([
      ['ClusterOperator', 'network', 45 * 60_000, 'has not reported the target version'],
      ['ClusterOperator', 'dns', 30 * 60_000, 'is degraded (DNSDegraded)'],
      ['MachineConfigPool', 'worker', 15 * 60_000, '1 of 3 machines updated'],
      ['ClusterOperator', 'etcd', 5 * 60_000, 'is updating'],
      ['ClusterOperator', 'storage', 60_000, 'is unavailable (NoCSI)'],
    ]);
    expect(s.pools.map((p) => [p.name, p.assessment, p.percent])).toEqual([
      ['infra', 'Excluded', 0],
      ['master', 'Completed', 100],
      ['worker', 'Progressing', 33],
    ]);
  });

  it('operator health comes from the conditions (no Available condition = Unknown)', () => {
    const s = computeUpgradeStatus({
      clusterVersion: updating(),
      operators: [...operators, { metadata: { name: 'fresh' }, spec: {} }],
      pools: [pool('fresh', 0, 0)],
      now: NOW,
    });
    expect(s.operators.map((o) => [o.name, o.health])).toEqual([
      ['console', 'Healthy'],
      ['dns', 'Degraded'],
      ['etcd', 'Healthy'],
      ['fresh', 'Unknown'],
      ['ingress', 'Healthy'],
      ['network', 'Healthy'],
      ['storage', 'Unavailable'],
    ]);
    expect(formatUpgradeStatus(s, NOW)).toContain('Operator Health: 4 Healthy, 1 Unavailable, 1 Degraded, 1 Unknown\n');
    expect(s.pools[0]).toMatchObject({ name: 'fresh', percent: 100, assessment: 'Completed' });
    // a pool the MCO has not reported on yet is Pending at 0%, not complete
    const bare = computeUpgradeStatus({
      clusterVersion: updating(),
      operators: [],
      pools: [{ metadata: { name: 'new' }, spec: {} }],
      now: NOW,
    });
    expect(bare.pools[0]).toMatchObject({ assessment: 'Pending', percent: 0, machines: 0 });
  });

  it('a degraded pool is Degraded with the node message', () => {
    const s = computeUpgradeStatus({
      clusterVersion: updating(),
      operators: [],
      pools: [pool('worker', 3, 2, { degraded: 1 })],
      now: NOW,
    });
    expect(s.pools[0]).toMatchObject({
      assessment: 'Degraded',
      degraded: 1,
      message: 'Node worker-1 is reporting: "unexpected on-disk state"',
    });
  });

  it('completion never goes backwards within one update, and restarts for another target', () => {
    const first = computeUpgradeStatus({
      clusterVersion: updating(),
      operators: [co('a', '4.18.4'), co('b', '4.18.4'), co('c', '4.18.3')],
      pools: [],
      now: NOW,
    });
    expect(first.completion.percent).toBe(66);
    // a new ClusterOperator appears (from the new payload): the raw fraction drops to 50%
    const second = computeUpgradeStatus({
      clusterVersion: updating(),
      operators: [co('a', '4.18.4'), co('b', '4.18.4'), co('c', '4.18.3'), co('d', '')],
      pools: [],
      now: NOW,
      previous: first,
    });
    expect(second.completion).toMatchObject({ percent: 66, updated: 2, total: 4 });
    const other = updating();
    if (other.status) other.status.desired = { version: '4.18.10', image: IMG(7) };
    expect(
      computeUpgradeStatus({
        clusterVersion: other,
        operators: [co('a', '4.18.4')],
        pools: [],
        now: NOW,
        previous: first,
      }).completion.percent,
    ).toBe(0);
  });

  it('an idle cluster is Completed and waits on nothing', () => {
    const s = computeUpgradeStatus({
      clusterVersion: idleCluster(),
      operators: [co('a', '4.18.3')],
      pools: [pool('worker', 2, 2)],
      now: NOW,
    });
    expect(s).toMatchObject({
      assessment: 'Completed',
      target: { version: '4.18.3' },
      completion: { percent: 100 },
      waitingOn: [],
      durationMs: 3_600_000,
    });
  });
});

describe('formatUpgradeStatus', () => {
  it('renders the sections', () => {
    const s = computeUpgradeStatus({
      clusterVersion: updating(),
      operators: [
        co('console', '4.18.4'),
        co('etcd', '4.18.3', [
          cond('Progressing', 'True', 'NodeInstaller', 'installing revision 7', '2026-01-01T02:40:00Z'),
        ]),
      ],
      pools: [pool('worker', 3, 1, { updating: true })],
      now: NOW,
    });
    const text = formatUpgradeStatus(s, NOW);
    expect(text).toContain(
      '= Control Plane =\nAssessment:      Progressing\nTarget Version:  4.18.4 (from 4.18.3)\nCompletion:      50% (1 operators updated, 1 updating, 0 waiting)\nDuration:        45m\n',
    );
    expect(text).toContain(
      'Cluster Operators Not Yet Updated\nNAME   STATE      VERSION   SINCE   REASON          MESSAGE\netcd   Updating   4.18.3    5m      NodeInstaller   installing revision 7\n',
    );
    expect(text).toContain(
      'Waiting On\nKIND                NAME     FOR   WHY\nMachineConfigPool   worker   15m   1 of 3 machines updated\nClusterOperator     etcd     5m    is updating\n',
    );
    expect(text).toContain(
      '= Node Pools =\nPOOL     ASSESSMENT    COMPLETION   STATUS\nworker   Progressing   33% (1/3)    1 Ready, 1 Unavailable, 0 Degraded\n',
    );
  });

  it('shortDuration', () => {
    expect([5_000, 60_000, 190_000, 3_600_000, 7_500_000].map(shortDuration)).toEqual([
      '5s',
      '1m',
      '3m10s',
      '1h',
      '2h5m',
    ]);
  });
});
