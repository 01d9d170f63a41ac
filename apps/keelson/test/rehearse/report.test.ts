/** Pure pieces of the rehearsal: faults, timeline diffs, report, live view. */
import { describe, expect, it } from 'vitest';
import {
  leaderElectionIntervals,
  cvoArgs,
  describeFaults,
  FaultSpecError,
  parseFaults,
  computeReport,
  EXIT_CODES,
  formatReport,
  withinMaxUnavailable,
  clusterOperatorEvents,
  clusterVersionEvents,
  nodeView,
  poolOfNode,
  poolView,
  decideUpdateVerdict,
  explainStall,
  nodeInventory,
} from '@keelson/rehearsal';
import { applyEvent, initialState, plainLine, renderLive } from '../../src/rehearse/live-view.js';
import { API, RUN_LEVELS, sampleTimeline } from './timeline-fixture.js';

describe('parseFaults', () => {
  it('parses every fault kind', () => {
    const p = parseFaults(
      [
        'degraded-operator=ingress',
        'operator-never-updates=dns',
        'node-fails-boot=worker-1',
        'pdb-blocks-drain',
        'on-disk-drift=worker-0:/etc/chrony.conf',
        'api-errors=0.05',
      ],
      ['cvo@50%', 'daemon@worker-2'],
      ['worker'],
    );
    expect(p).toEqual({
      degradedOperators: ['ingress'],
      neverUpdates: ['dns'],
      nodeFailsBoot: ['worker-1'],
      pdbBlocksDrain: true,
      onDiskDrift: [{ node: 'worker-0', path: '/etc/chrony.conf' }],
      apiErrorRate: 0.05,
      killCvoAt: 0.5,
      killDaemons: ['worker-2'],
      pausePools: ['worker'],
    });
    expect(describeFaults(p)).toContain('kill cvo@50%');
  });
  it('refuses what it does not know', () => {
    expect(() => parseFaults(['explode'], [], [])).toThrow(FaultSpecError);
    expect(() => parseFaults(['api-errors=2'], [], [])).toThrow(/\[0, 1\)/);
    expect(() => parseFaults(['on-disk-drift=worker-0:etc/x'], [], [])).toThrow(/NODE:\/absolute/);
    expect(() => parseFaults(['on-disk-drift=worker-0:/etc/../x'], [], [])).toThrow(FaultSpecError);
    expect(() => parseFaults([], ['cvo@150%'], [])).toThrow(/1\.\.99/);
    expect(() => parseFaults([], ['etcd@1'], [])).toThrow(/cvo@N%/);
    expect(() => parseFaults(['degraded-operator=Bad Name'], [], [])).toThrow(/not a valid/);
  });
});

describe('timeline diffs', () => {
  const cv = (msg: string, failing: string, state: string) => ({
    metadata: { name: 'version' },
    status: {
      desired: { version: '4.18.8' },
      history: [{ version: '4.18.8', state }],
      conditions: [
        { type: 'Progressing', status: 'True', message: msg },
        { type: 'Failing', status: failing },
      ],
    },
  });
  it('turns ClusterVersion changes into condition, progress and history events', () => {
    const e = clusterVersionEvents(
      cv('Working towards 4.18.8: 10 of 100 done (10% complete)', 'False', 'Partial'),
      cv('Working towards 4.18.8: 55 of 100 done (55% complete)', 'False', 'Partial'),
      5,
    );
    expect(e).toContainEqual({ t: 5, type: 'progress', done: 55, total: 100, version: '4.18.8' });
    expect(e.filter((x) => x.type === 'condition')).toHaveLength(1);
    const done = clusterVersionEvents(cv('x', 'False', 'Partial'), cv('x', 'False', 'Completed'), 6);
    expect(done).toEqual([{ t: 6, type: 'history', version: '4.18.8', state: 'Completed' }]);
    expect(clusterVersionEvents(cv('x', 'False', 'Partial'), cv('x', 'False', 'Partial'), 7)).toEqual([]);
  });
  it('reports an operator version once', () => {
    const co = (v: string) => ({
      metadata: { name: 'dns' },
      status: { versions: [{ name: 'operator', version: v }], conditions: [] },
    });
    expect(clusterOperatorEvents(co('4.18.7'), co('4.18.8'), 1)).toEqual([
      { t: 1, type: 'operator', name: 'dns', version: '4.18.8' },
    ]);
    expect(clusterOperatorEvents(co('4.18.8'), co('4.18.8'), 2)).toEqual([]);
  });
  it('derives node phases from the MCO annotations, cordon and Ready', () => {
    const n = (ann: Record<string, string>, ready: boolean, unschedulable = false) => ({
      metadata: {
        name: 'worker-0',
        labels: { 'node-role.kubernetes.io/worker': '' },
        annotations: Object.fromEntries(
          Object.entries(ann).map(([k, v]) => [`machineconfiguration.openshift.io/${k}`, v]),
        ),
      },
      spec: { unschedulable },
      status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
    });
    expect(nodeView(n({ currentConfig: 'a', desiredConfig: 'a', state: 'Done' }, true), 'worker').phase).toBe('done');
    expect(
      nodeView(
        n(
          {
            currentConfig: 'a',
            desiredConfig: 'b',
            state: 'Working',
            desiredDrain: 'drain-b',
            lastAppliedDrain: 'uncordon-a',
          },
          true,
          true,
        ),
        'worker',
      ).phase,
    ).toBe('draining');
    expect(
      nodeView(
        n(
          {
            currentConfig: 'a',
            desiredConfig: 'b',
            state: 'Working',
            desiredDrain: 'drain-b',
            lastAppliedDrain: 'drain-b',
          },
          false,
          true,
        ),
        'worker',
      ),
    ).toMatchObject({ phase: 'rebooting', unavailable: true });
    expect(
      nodeView(
        n({ currentConfig: 'a', desiredConfig: 'b', state: 'Degraded', reason: 'unexpected on-disk state' }, true),
        'worker',
      ),
    ).toMatchObject({ phase: 'degraded', reason: 'unexpected on-disk state' });
    const pools = [
      {
        metadata: { name: 'worker' },
        spec: { nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } } },
      },
      { metadata: { name: 'infra' }, spec: { nodeSelector: { matchLabels: { 'node-role.kubernetes.io/infra': '' } } } },
    ];
    expect(
      poolOfNode(
        { metadata: { labels: { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/infra': '' } } },
        pools,
      ),
    ).toBe('infra');
    expect(poolOfNode({ metadata: { labels: { 'node-role.kubernetes.io/worker': '' } } }, pools)).toBe('worker');
    expect(
      poolView({ metadata: { name: 'worker' }, spec: { maxUnavailable: '50%' }, status: { machineCount: 6 } })
        .maxUnavailable,
    ).toBe(3);
  });
  it('names nodes and their roles', () => {
    expect(nodeInventory(1, 2, { infra: 1 })).toEqual([
      { name: 'master-0', roles: ['master'] },
      { name: 'worker-0', roles: ['worker'] },
      { name: 'worker-1', roles: ['worker'] },
      { name: 'infra-0', roles: ['worker', 'infra'] },
    ]);
  });
});

describe('computeReport', () => {
  it('computes times, rollout order, max unavailable, reboots and conditions from the timeline', () => {
    const r = computeReport(sampleTimeline(), {
      from: '4.18.7',
      to: '4.18.8',
      outcome: 'Completed',
      message: 'ok',
      timeScale: 60,
      api: API,
      runLevels: RUN_LEVELS,
      faults: [],
    });
    expect(r.exitCode).toBe(0);
    expect(r.installMs).toBe(900);
    expect(r.upgradeMs).toBe(1300);
    expect(r.simulatedUpgradeSeconds).toBe(78);
    expect(r.operators).toEqual([
      { name: 'etcd', reachedMs: 200 },
      { name: 'ingress', reachedMs: 500 },
    ]);
    expect(r.runLevels).toEqual([
      { level: '12', startMs: 0, endMs: 200, ms: 200, laterStartsMs: [] },
      { level: '50', startMs: 200, endMs: 500, ms: 300, laterStartsMs: [] },
    ]);
    expect(r.pools).toEqual([
      {
        name: 'worker',
        nodes: 2,
        maxUnavailable: 1,
        maxUnavailableSeen: 1,
        rolloutOrder: ['worker-0', 'worker-1'],
        config: 'rendered-worker-b',
        updated: 2,
        paused: false,
      },
    ]);
    expect(withinMaxUnavailable(r)).toBe(true);
    expect(r.reboots).toEqual([
      { node: 'worker-0', count: 1 },
      { node: 'worker-1', count: 1 },
    ]);
    expect(r.conditions.map((c) => `${c.object} ${c.condition.type}`)).toEqual(['clusteroperator/ingress Degraded']);
    const text = formatReport(r);
    expect(text).toContain('Rehearsal 4.18.7 -> 4.18.8: Completed (exit 0)');
    expect(text).toContain('rollout order: worker-0, worker-1');
    expect(text).toContain('evictions 3; PDB refusals 1');
  });
  it('catches two nodes of a maxUnavailable-1 pool down at once', () => {
    const ev = sampleTimeline();
    const i = ev.findIndex((e) => e.type === 'node' && e.node.name === 'worker-1' && e.node.phase === 'draining');
    const moved = ev.splice(i, 1)[0];
    if (moved === undefined) throw new Error('fixture changed');
    ev.splice(
      ev.findIndex((e) => e.type === 'node' && e.node.name === 'worker-0' && e.node.phase === 'rebooting'),
      0,
      { ...moved, t: 1650 },
    );
    const r = computeReport(ev, {
      from: 'a',
      to: '4.18.8',
      outcome: 'Completed',
      message: '',
      timeScale: 1,
      api: API,
      runLevels: [],
      faults: [],
    });
    expect(r.pools[0]?.maxUnavailableSeen).toBe(2);
    expect(withinMaxUnavailable(r)).toBe(false);
  });
  it('ignores what happens after the verdict (components being stopped)', () => {
    const ev = sampleTimeline();
    const lastPool = ev.filter((e) => e.type === 'pool').at(-1);
    if (lastPool?.type !== 'pool') throw new Error('fixture changed');
    const end = ev.at(-1)?.t ?? 0;
    if (!ev.some((e) => e.type === 'phase' && e.phase === 'finished'))
      ev.push({ t: end + 1, type: 'phase', phase: 'finished', detail: 'Completed' });
    ev.push({ ...lastPool, t: end + 2, pool: { ...lastPool.pool, updated: 0 } });
    const r = computeReport(ev, {
      from: '4.18.7',
      to: '4.18.8',
      outcome: 'Completed',
      message: '',
      timeScale: 1,
      api: API,
      runLevels: [],
      faults: [],
    });
    expect(r.pools.find((p) => p.name === lastPool.pool.name)?.updated).toBe(lastPool.pool.updated);
  });
  it('gives each outcome its exit code', () => {
    expect(EXIT_CODES).toEqual({
      Completed: 0,
      NotRunnable: 3,
      Failed: 4,
      Stalled: 5,
      NodeRolloutFailed: 6,
      PoolPaused: 7,
      InvariantViolated: 8,
    });
  });
});

describe('live view', () => {
  it('folds events into the dashboard and prints one line per change', () => {
    const s = initialState('4.18.7', '4.18.8');
    for (const e of sampleTimeline().slice(0, 13)) applyEvent(s, e);
    const lines = renderLive(s, 120);
    expect(lines[0]).toContain('keelson rehearse 4.18.7 -> 4.18.8');
    expect(lines.some((l) => l.includes('10/100'))).toBe(true);
    expect(lines).toContain('operators at 4.18.8: 2/2');
    expect(lines.some((l) => l.startsWith('pool worker'))).toBe(true);
    expect(lines.at(-1)).toBe('nodes: worker-0 rebooting');
    const node = sampleTimeline()[12];
    expect(node !== undefined && plainLine(node)).toMatch(/node\/worker-0 \(worker\) draining -> rebooting/);
    expect(renderLive(s, 40).every((l) => l.length <= 40)).toBe(true);
  });
});

describe('live view on a TTY (the CLI starts it before the releases are open)', () => {
  it('shows the versions once known, counts operators at the target and never lets progress go back', () => {
    const s = initialState('release A', 'release B');
    applyEvent(s, {
      t: 10,
      type: 'phase',
      phase: 'setup',
      detail: 'releases 4.18.7 -> 4.18.8',
      from: '4.18.7',
      to: '4.18.8',
    });
    applyEvent(s, { t: 20, type: 'phase', phase: 'install', detail: 'installing 4.18.7' });
    applyEvent(s, { t: 30, type: 'operator', name: 'dns', version: '4.18.7' });
    applyEvent(s, { t: 31, type: 'operator', name: 'etcd', version: '4.18.7' });
    expect(renderLive(s, 120)).toContain('operators at 4.18.7: 2/2');
    applyEvent(s, { t: 40, type: 'phase', phase: 'upgrade', detail: 'keelson upgrade --to 4.18.8' });
    applyEvent(s, { t: 50, type: 'operator', name: 'dns', version: '4.18.8' });
    for (const [t, done] of [
      [60, 75],
      [70, 120],
      [80, 10],
      [90, 169],
    ] as const) {
      applyEvent(s, { t, type: 'progress', done, total: 207, version: '4.18.8' });
      if (t === 80) expect(renderLive(s, 120).some((l) => l.includes(' 120/207 (4.18.8)'))).toBe(true);
    }
    applyEvent(s, { t: 100, type: 'phase', phase: 'finished', detail: 'Completed' });
    const lines = renderLive(s, 120);
    expect(lines[0]).toContain('keelson rehearse 4.18.7 -> 4.18.8');
    expect(lines.some((l) => l.includes(' 169/207 (4.18.8)'))).toBe(true);
    expect(lines).toContain('operators at 4.18.8: 1/2');
  });
});

describe('decideUpdateVerdict', () => {
  const cv = (state: string, failing = 'False', version = '4.18.8') => ({
    metadata: { name: 'version' },
    status: {
      history: [{ version, state }],
      conditions: [
        { type: 'Failing', status: failing, message: 'Cluster operator dns is degraded' },
        { type: 'Progressing', status: 'True', message: 'Working towards 4.18.8: 80 of 191 done (41% complete)' },
      ],
    },
  });
  const pool = (name: string, config: string, opts: { paused?: boolean; degraded?: string } = {}) => ({
    metadata: { name },
    spec: { paused: opts.paused ?? false },
    status: {
      machineCount: 3,
      updatedMachineCount: opts.degraded === undefined ? 3 : 1,
      configuration: { name: config },
      conditions: [
        { type: 'Updated', status: opts.degraded === undefined ? 'True' : 'False' },
        ...(opts.degraded !== undefined ? [{ type: 'NodeDegraded', status: 'True', message: opts.degraded }] : []),
      ],
    },
  });
  const installed = new Map([
    ['master', 'rendered-master-a'],
    ['worker', 'rendered-worker-a'],
  ]);
  const base = {
    target: '4.18.8',
    installedConfigs: installed,
    pausedPools: [] as string[],
    now: 10_000,
    failingSince: undefined,
    startedAt: 0,
    deadline: 60_000,
  };
  it('completes only when history[0] is the target, Completed, and every pool moved to a new config', () => {
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Completed'),
        pools: [pool('master', 'rendered-master-b'), pool('worker', 'rendered-worker-b')],
      })?.outcome,
    ).toBe('Completed');
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Completed'),
        pools: [pool('master', 'rendered-master-b'), pool('worker', 'rendered-worker-a')],
      }),
    ).toBeUndefined();
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Partial'),
        pools: [pool('master', 'rendered-master-b'), pool('worker', 'rendered-worker-b')],
      }),
    ).toBeUndefined();
  });
  it('is not fooled by a pool whose target moved on before its status did', () => {
    const retargeted = {
      ...pool('master', 'rendered-master-b'),
      spec: { paused: false, configuration: { name: 'rendered-master-c' } },
    };
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Completed'),
        pools: [retargeted, pool('worker', 'rendered-worker-b')],
      }),
    ).toBeUndefined();
    const unobserved = {
      ...pool('master', 'rendered-master-b'),
      metadata: { name: 'master', generation: 5 },
      status: { ...pool('master', 'rendered-master-b').status, observedGeneration: 4 },
    };
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Completed'),
        pools: [unobserved, pool('worker', 'rendered-worker-b')],
      }),
    ).toBeUndefined();
    const current = { ...unobserved, status: { ...unobserved.status, observedGeneration: 5 } };
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Completed'),
        pools: [current, pool('worker', 'rendered-worker-b')],
      })?.outcome,
    ).toBe('Completed');
  });
  it('reports a paused pool holding its update', () => {
    const v = decideUpdateVerdict({
      ...base,
      pausedPools: ['worker'],
      clusterVersion: cv('Completed'),
      pools: [pool('master', 'rendered-master-b'), pool('worker', 'rendered-worker-a', { paused: true })],
    });
    expect(v).toEqual({
      outcome: 'PoolPaused',
      message: 'ClusterVersion is at 4.18.8; paused pool(s) worker hold the node update until unpaused',
    });
  });
  it('reports Failing or a degraded pool held for a quarter of the time, and the deadline', () => {
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Partial', 'True'),
        pools: [],
        failingSince: 1_000,
        now: 20_000,
      }),
    ).toEqual({ outcome: 'Failed', message: 'ClusterVersion Failing=True: Cluster operator dns is degraded' });
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Partial', 'True'),
        pools: [],
        failingSince: 9_000,
        now: 10_000,
      }),
    ).toBeUndefined();
    const degraded = [
      pool('worker', 'rendered-worker-a', { degraded: 'Node worker-1 is reporting: "unexpected on-disk state"' }),
    ];
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Partial'),
        pools: degraded,
        degradedSince: 1_000,
        now: 10_000,
      }),
    ).toBeUndefined();
    expect(
      decideUpdateVerdict({
        ...base,
        clusterVersion: cv('Partial'),
        pools: degraded,
        degradedSince: 1_000,
        now: 16_000,
      })?.outcome,
    ).toBe('NodeRolloutFailed');
    expect(decideUpdateVerdict({ ...base, clusterVersion: cv('Partial'), pools: [], now: 61_000 })?.message).toMatch(
      /did not complete in 60s: Working towards 4.18.8: 80 of 191/,
    );
  });
});

describe('leaderElectionIntervals', () => {
  it('keeps Lease durations whole seconds, lease > renew > retry and at least 15 s / 10 s / 2 s on any clock', () => {
    expect(leaderElectionIntervals(1)).toEqual({
      leaseDurationMs: 137_000,
      renewDeadlineMs: 107_000,
      retryPeriodMs: 26_000,
    });
    expect(leaderElectionIntervals(5)).toEqual({
      leaseDurationMs: 28_000,
      renewDeadlineMs: 22_000,
      retryPeriodMs: 6_000,
    });
    expect(leaderElectionIntervals(60)).toEqual({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    for (const s of [2, 7, 33, 500, 10_000]) {
      const i = leaderElectionIntervals(s);
      expect(i.leaseDurationMs % 1000).toBe(0);
      expect(i.leaseDurationMs).toBeGreaterThan(i.renewDeadlineMs);
      expect(i.renewDeadlineMs).toBeGreaterThan(i.retryPeriodMs);
      expect(i.renewDeadlineMs).toBeGreaterThanOrEqual(10_000);
    }
  });
});

describe('explainStall', () => {
  it('names the pools behind and the evictions a PodDisruptionBudget refused', () => {
    const pools = [
      {
        metadata: { name: 'master' },
        status: {
          machineCount: 1,
          updatedMachineCount: 1,
          unavailableMachineCount: 0,
          conditions: [{ type: 'Updated', status: 'True' }],
        },
      },
      {
        metadata: { name: 'worker' },
        status: {
          machineCount: 2,
          updatedMachineCount: 1,
          unavailableMachineCount: 1,
          conditions: [{ type: 'Updated', status: 'False' }],
        },
      },
    ];
    expect(explainStall('did not complete', pools, 7)).toBe(
      "did not complete; machineconfigpool/worker 1/2 updated, 1 unavailable; drain blocked: 7 evictions refused (Cannot evict pod as it would violate the pod's disruption budget.)",
    );
    expect(explainStall('did not complete', pools.slice(0, 1), 0)).toBe('did not complete');
  });
});

describe('cvoArgs', () => {
  it('builds the `cluster-version-operator start` command line with upstream flag names', () => {
    const args = cvoArgs({
      kubeconfig: '/k',
      payloadDir: '/p',
      releaseImage: 'r@sha256:1',
      payloadCache: '/c',
      servingCert: { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' },
      updateService: 'http://u',
      promqlTarget: 'http://q',
      timeScale: 0.01,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(args[0]).toBe('start');
    expect(args.slice(1).join(' ')).toBe(
      '--kubeconfig /k --payload-dir /p --release-image r@sha256:1 --payload-cache /c --listen 127.0.0.1:0 --serving-cert-file /tls/tls.crt --serving-key-file /tls/tls.key --update-service http://u --promql-target http://q --time-scale 0.01 --lease-duration 15000ms --renew-deadline 10000ms --retry-period 2000ms',
    );
    // without a serving pair: no metrics endpoint (upstream refuses --listen without --serving-cert-file)
    const plain = cvoArgs({
      kubeconfig: '/k',
      payloadDir: '/p',
      releaseImage: 'r@sha256:1',
      payloadCache: '/c',
      updateService: 'http://u',
      promqlTarget: 'http://q',
      timeScale: 0.01,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(plain).toContain('--listen=');
    expect(plain).not.toContain('--serving-cert-file');
  });
});
