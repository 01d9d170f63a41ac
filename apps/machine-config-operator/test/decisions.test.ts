import { describe, expect, it } from 'vitest';
import {
  checkRequiredPools,
  computeClusterOperatorStatus,
  controllerConfigGate,
  decideDrain,
  decideDrainFailure,
  decidePoolSync,
  decideRender,
  DEFAULT_DURATIONS,
  parseOSImageURLConfigMap,
  podsToEvict,
  upgradeableCondition,
  machineConfigPoolStatus,
  type ControllerConfig,
  type MachineConfig,
  type MachineConfigPool,
  type Node,
  type Pod,
} from '../src/index.js';
import { goDuration } from '../src/controllers/drain/decide.js';
import { scaleDurations } from '../src/controllers/context.js';
import { pendingSubConfig } from '../src/controllers/render/decide.js';
import { semanticallyContains, semanticEqual } from '../src/common/semantic.js';
import { completedByVersion, computeTemplateStatus } from '../src/controllers/template/status.js';

const A = 'machineconfiguration.openshift.io/';
const node = (
  name: string,
  labels: Record<string, string>,
  cur: string,
  des: string,
  state = 'Done',
  created = '2026-01-01T00:00:00Z',
): Node => ({
  metadata: {
    name,
    labels,
    creationTimestamp: created,
    annotations: { [`${A}currentConfig`]: cur, [`${A}desiredConfig`]: des, [`${A}state`]: state },
  },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});
const mpool = (name: string, target: string, spec: Partial<MachineConfigPool['spec']> = {}): MachineConfigPool => ({
  metadata: { name, generation: 1 },
  spec: {
    nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    configuration: { name: target },
    ...spec,
  },
});
const now = new Date('2026-02-01T00:00:00Z');

describe('decidePoolSync', () => {
  const M = { 'node-role.kubernetes.io/master': '' };
  const masters = [
    node('m0', { ...M, 'topology.kubernetes.io/zone': 'a' }, 'v1', 'v1'),
    node('m1', { ...M, 'topology.kubernetes.io/zone': 'b' }, 'v1', 'v1'),
    node('m2', { ...M, 'topology.kubernetes.io/zone': 'c' }, 'v1', 'v1'),
  ];
  it('defers the node running the operator in the master pool and picks by zone', () => {
    const p = mpool('master', 'v2');
    const d = decidePoolSync({ pool: p, pools: [p], nodes: masters, operatorNodeName: 'm0', now });
    expect(d.setDesired).toEqual(['m1']);
    expect(d.deferredOperatorNode).toBe('m0');
    expect(d.addTaint.sort()).toEqual(['m0', 'm1', 'm2']);
    expect(d.status.unavailableMachineCount).toBe(1);
    expect(d.status.conditions?.find((c) => c.type === 'Updating')?.message).toBe(
      'All nodes are updating to MachineConfig v2',
    );
  });
  it('a new target: the status (Updated=False, Updating=True, observedGeneration) is written before the first node is targeted', () => {
    const done = decidePoolSync({ pool: mpool('master', 'v1'), pools: [], nodes: masters, now });
    const p: MachineConfigPool = {
      ...mpool('master', 'v2'),
      metadata: { name: 'master', generation: 2 },
      status: done.status,
    };
    expect(done.status.conditions?.find((c) => c.type === 'Updated')?.status).toBe('True');
    const d = decidePoolSync({ pool: p, pools: [p], nodes: masters, now });
    expect(d.setDesired).toEqual(['m0']);
    expect(d.statusFirst?.observedGeneration).toBe(2);
    expect(d.statusFirst?.unavailableMachineCount).toBe(0);
    expect(d.statusFirst?.conditions?.find((c) => c.type === 'Updated')?.status).toBe('False');
    expect(d.statusFirst?.conditions?.find((c) => c.type === 'Updating')).toMatchObject({
      status: 'True',
      message: 'All nodes are updating to MachineConfig v2',
    });
    expect(d.status.unavailableMachineCount).toBe(1);
    expect(d.statusChanged).toBe(true);
    // once observed, later passes write the status once, after the nodes
    const later = decidePoolSync({ pool: { ...p, status: d.status }, pools: [p], nodes: masters, now });
    expect(later.statusFirst).toBeUndefined();
  });
  it('the operator node goes last when it is the only candidate left', () => {
    const p = mpool('master', 'v2');
    const nodes = [masters[0] as Node, node('m1', M, 'v2', 'v2'), node('m2', M, 'v2', 'v2')];
    expect(decidePoolSync({ pool: p, pools: [p], nodes, operatorNodeName: 'm0', now }).setDesired).toEqual(['m0']);
  });
  it('a paused pool gets no desiredConfig but its status says why', () => {
    const p = mpool('master', 'v2', { paused: true });
    const d = decidePoolSync({ pool: p, pools: [p], nodes: masters, now });
    expect(d.setDesired).toEqual([]);
    expect(d.status.conditions?.find((c) => c.type === 'Updating')).toMatchObject({
      status: 'False',
      message: 'Pool is paused; will not update to MachineConfig v2',
    });
  });
  it('an invalid maxUnavailable stops updates but still syncs status', () => {
    const p = mpool('master', 'v2', { maxUnavailable: '50 percent' });
    const d = decidePoolSync({ pool: p, pools: [p], nodes: masters, now });
    expect(d.error?.code).toBe('POOL_MAX_UNAVAILABLE_INVALID');
    expect(d.setDesired).toEqual([]);
    expect(d.status.machineCount).toBe(3);
  });
  it('a pool without a rendered target decides nothing', () => {
    const p = mpool('master', '');
    expect(decidePoolSync({ pool: p, pools: [p], nodes: masters, now })).toMatchObject({
      hasTarget: false,
      setDesired: [],
    });
  });
  it('completes: status.configuration follows spec once all nodes are updated', () => {
    const p = mpool('master', 'v1');
    const d = decidePoolSync({ pool: p, pools: [p], nodes: masters, now });
    expect(d.completed).toBe(true);
    expect(d.status.configuration?.name).toBe('v1');
    expect(d.status.conditions?.find((c) => c.type === 'Updated')?.message).toBe(
      'All nodes are updated with MachineConfig v1',
    );
  });
  it('reports degraded nodes with their reason (NodeDegraded and Degraded)', () => {
    const p = mpool('master', 'v1');
    const bad = node('m0', M, 'v1', 'v1', 'Degraded');
    (bad.metadata.annotations ?? {})[`${A}reason`] = 'boom';
    const d = decidePoolSync({ pool: p, pools: [p], nodes: [bad, masters[1] as Node], now });
    expect(d.status.conditions?.find((c) => c.type === 'NodeDegraded')).toMatchObject({
      status: 'True',
      reason: '1 nodes are reporting degraded status on sync',
      message: 'Node m0 is reporting: "boom"',
    });
    expect(d.status.conditions?.find((c) => c.type === 'Degraded')?.message).toBe('Node m0 is reporting: "boom"');
  });
});

describe('drain decisions', () => {
  const n = (dd: string, la: string, unschedulable = false): Node => ({
    metadata: { name: 'w', annotations: { [`${A}desiredDrain`]: dd, [`${A}lastAppliedDrain`]: la } },
    spec: { unschedulable },
  });
  it('acts only on a new request; re-cordons an uncordoned node in flight', () => {
    expect(decideDrain(n('drain-x', 'drain-x'), false)).toEqual({ kind: 'none' });
    expect(decideDrain(n('uncordon-x', 'drain-x'), false)).toEqual({ kind: 'uncordon', desired: 'uncordon-x' });
    expect(decideDrain(n('drain-x', ''), false)).toEqual({ kind: 'drain', desired: 'drain-x', cordon: true });
    expect(decideDrain(n('drain-x', '', true), true)).toEqual({ kind: 'drain', desired: 'drain-x', cordon: false });
    expect(decideDrain(n('drain-x', '', false), true)).toEqual({ kind: 'drain', desired: 'drain-x', cordon: true });
    expect(decideDrain(n('evict-x', ''), false)).toEqual({
      kind: 'invalid',
      message: 'node w: non-recognized drain verb detected evict',
    });
  });
  it('slows retries after the threshold with the upstream message', () => {
    expect(decideDrainFailure(60_000, DEFAULT_DURATIONS, 'e')).toEqual({ requeueAfterMs: 60_000 });
    expect(decideDrainFailure(11 * 60_000, DEFAULT_DURATIONS, 'e')).toEqual({
      requeueAfterMs: 300_000,
      thresholdExceeded:
        'Drain failed. Drain has been failing for more than 10 minutes. Waiting 5 minutes then retrying. Error message from drain: e',
    });
  });
  it('names the upstream minutes on a compressed clock too', () => {
    for (const scale of [7, 60, 120]) {
      const d = scaleDurations(DEFAULT_DURATIONS, scale);
      expect(decideDrainFailure(d.drainThresholdMs + 1, d, 'e').thresholdExceeded, `time scale ${String(scale)}`).toBe(
        'Drain failed. Drain has been failing for more than 10 minutes. Waiting 5 minutes then retrying. Error message from drain: e',
      );
    }
  });
  it('evicts everything but DaemonSet pods, mirror pods and finished pods', () => {
    const p = (name: string, extra: Partial<Pod['metadata']> = {}, phase?: 'Succeeded'): Pod => ({
      metadata: { name, ...extra },
      ...(phase ? { status: { phase } } : {}),
    });
    const pods = [
      p('a'),
      p('ds', {
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'u', controller: true }],
      }),
      p('mirror', { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
      p('done', {}, 'Succeeded'),
      p('rs', {
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u', controller: true }],
      }),
    ];
    expect(podsToEvict(pods).map((x) => x.metadata.name)).toEqual(['a', 'rs']);
  });
  it('prints durations like Go', () => {
    expect([500, 5_000, 90_000, 3_600_000].map(goDuration)).toEqual(['500ms', '5s', '1m30s', '1h0m0s']);
  });
});

describe('render decisions', () => {
  const cc = (
    extra: Partial<ControllerConfig['metadata']> = {},
    status: ControllerConfig['status'] = {
      observedGeneration: 1,
      conditions: [{ type: 'TemplateControllerCompleted', status: 'True', lastTransitionTime: null }],
    },
  ): ControllerConfig => ({
    metadata: {
      name: 'machine-config-controller',
      generation: 1,
      annotations: { [`${A}generated-by-version`]: '0.1.0', [`${A}release-image-version`]: '4.99.0' },
      ...extra,
    },
    spec: { baseOSContainerImage: 'os@sha256:1' } as ControllerConfig['spec'],
    status,
  });
  const mc = (name: string, role: string): MachineConfig => ({
    metadata: { name, labels: { [`${A}role`]: role } },
    spec: { kernelArguments: [name] },
  });
  const worker: MachineConfigPool = {
    metadata: { name: 'worker', uid: 'u' },
    spec: { machineConfigSelector: { matchLabels: { [`${A}role`]: 'worker' } } },
  };
  const base = { controllerVersion: 'h', operatorVersion: '0.1.0' };
  it('gates on the ControllerConfig', () => {
    expect(controllerConfigGate(undefined)).toBe('ControllerConfig machine-config-controller does not exist yet');
    expect(controllerConfigGate(cc({}, { observedGeneration: 1, conditions: [] }))).toBe(
      'ControllerConfig has not completed: completed(false) running(false) failing(false)',
    );
    expect(controllerConfigGate(cc())).toBeUndefined();
    expect(controllerConfigGate(cc({ generation: 2 }))).toBe(
      'status for ControllerConfig machine-config-controller is being reported for 1, expecting it for 2',
    );
  });
  it('waits for the ControllerConfig to be completed by this controller version (a controller upgrade renders once)', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const fresh = cc({ generation: 2 }, { observedGeneration: 1, conditions: [] });
    const byOld = { ...fresh, status: computeTemplateStatus(fresh, 'ctrl-1', { state: 'completed' }, now) };
    expect(controllerConfigGate(byOld)).toBeUndefined();
    expect(controllerConfigGate(byOld, 'ctrl-1')).toBeUndefined();
    expect(controllerConfigGate(byOld, 'ctrl-2')).toBe(
      'ControllerConfig has not completed for controller version ctrl-2 yet',
    );
    const running = { ...byOld, status: computeTemplateStatus(byOld, 'ctrl-2', { state: 'running' }, now) };
    expect(completedByVersion(running, 'ctrl-2')).toBe(false);
    expect(controllerConfigGate(running, 'ctrl-2')).toBe(
      'ControllerConfig has not completed: completed(true) running(true) failing(false)',
    );
    const done = { ...running, status: computeTemplateStatus(running, 'ctrl-2', { state: 'completed' }, now) };
    expect(controllerConfigGate(done, 'ctrl-2')).toBeUndefined();
    expect(completedByVersion(done, 'ctrl-2')).toBe(true);
    // a new generation: Running=True and Completed reset until the sync is done
    const gen3 = { ...done, metadata: { ...done.metadata, generation: 3 } };
    const s3 = computeTemplateStatus(gen3, 'ctrl-2', { state: 'running' }, now);
    expect(s3.observedGeneration).toBe(3);
    expect(s3.conditions?.find((c) => c.type === 'TemplateControllerCompleted')).toMatchObject({
      status: 'False',
      message: 'syncing towards (3) generation using controller version ctrl-2 due to change in Generation',
    });
    expect(controllerConfigGate({ ...gen3, status: s3 }, 'ctrl-2')).toBe(
      'ControllerConfig has not completed: completed(false) running(true) failing(false)',
    );
    const failing = computeTemplateStatus(gen3, 'ctrl-2', { state: 'failing', error: 'boom' }, now);
    expect(failing.conditions?.find((c) => c.type === 'TemplateControllerFailing')?.message).toBe(
      'failed to syncing towards (3) generation using controller version ctrl-2: boom',
    );
  });
  it('compares stored objects semantically: key order and server defaults are no change', () => {
    expect(semanticEqual({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(semanticEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(semanticEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(
      semanticallyContains(
        { infra: { status: { cpuPartitioning: 'None', platform: 'None' } }, proxy: null },
        { proxy: null, infra: { status: { platform: 'None' } } },
      ),
    ).toBe(true);
    expect(semanticallyContains({ infra: {} }, { infra: {}, proxy: null })).toBe(true);
    expect(semanticallyContains({ images: { a: 'x' } }, { images: { a: 'y' } })).toBe(false);
    expect(semanticallyContains({ list: [1, 2, 3] }, { list: [1, 2] })).toBe(false);
  });
  it('waits for KubeletConfigs selecting the pool', () => {
    const labelled = {
      ...worker,
      metadata: { ...worker.metadata, labels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } },
    };
    const kc = {
      kind: 'KubeletConfig',
      metadata: { name: 'k', generation: 2 },
      spec: {
        machineConfigPoolSelector: { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } },
      },
      status: { observedGeneration: 1, conditions: [] },
    };
    expect(pendingSubConfig(labelled, [kc])).toBe('KubeletConfig k is not completed');
  });
  it('renders, names the sources and reports no change on a second pass', () => {
    const d = decideRender({
      pool: worker,
      machineConfigs: [mc('10-w', 'worker'), mc('00-m', 'master'), mc('00-w', 'worker')],
      controllerConfig: cc(),
      ...base,
    });
    if (d.kind !== 'rendered') throw new Error(d.kind);
    expect(d.spec.source?.map((s) => s.name)).toEqual(['00-w', '10-w']);
    expect(d.result.machineConfig.metadata.annotations).toEqual({
      [`${A}generated-by-controller-version`]: 'h',
      [`${A}release-image-version`]: '4.99.0',
    });
    const again = decideRender({
      pool: { ...worker, spec: { ...worker.spec, configuration: d.spec } },
      machineConfigs: [mc('10-w', 'worker'), mc('00-w', 'worker'), d.result.machineConfig as MachineConfig],
      controllerConfig: cc(),
      ...base,
    });
    expect(again.kind === 'rendered' && again.specChanged).toBe(false);
  });
  it('RenderDegraded messages', () => {
    expect(
      decideRender({ pool: worker, machineConfigs: [mc('00-m', 'master')], controllerConfig: cc(), ...base }),
    ).toEqual({
      kind: 'failed',
      message:
        'Failed to render configuration for pool worker: no MachineConfigs found matching selector machineconfiguration.openshift.io/role=worker',
    });
    expect(
      decideRender({
        pool: worker,
        machineConfigs: [mc('00-w', 'worker')],
        controllerConfig: cc(),
        controllerVersion: 'h',
        operatorVersion: '0.2.0',
      }),
    ).toEqual({
      kind: 'failed',
      message:
        'Failed to render configuration for pool worker: could not generate rendered MachineConfig: ignoring controller config generated from 0.1.0 (my version: 0.2.0)',
    });
    const bad: MachineConfig = {
      metadata: { name: '50-w', labels: { [`${A}role`]: 'worker' } },
      spec: { kernelType: 'lowlatency' },
    };
    expect(decideRender({ pool: worker, machineConfigs: [bad], controllerConfig: cc(), ...base })).toEqual({
      kind: 'failed',
      message:
        'Failed to render configuration for pool worker: could not generate rendered MachineConfig: kernelType=lowlatency is invalid',
    });
    expect(
      decideRender({
        pool: { ...worker, spec: { machineConfigSelector: {} } },
        machineConfigs: [],
        controllerConfig: cc(),
        ...base,
      }),
    ).toEqual({ kind: 'selectingAll' });
  });
});

describe('operator decisions', () => {
  it('reads the osimageurl ConfigMap of its own release only', () => {
    const cm = {
      metadata: { name: 'machine-config-osimageurl' },
      data: { baseOSContainerImage: 'os', baseOSExtensionsContainerImage: 'ext', releaseVersion: '4.1' },
    };
    expect(parseOSImageURLConfigMap(cm, '4.1')).toEqual({
      baseOSContainerImage: 'os',
      baseOSExtensionsContainerImage: 'ext',
      releaseVersion: '4.1',
    });
    expect(() => parseOSImageURLConfigMap(cm, '4.2')).toThrow(
      'refusing to read osImageURL version "4.1", operator version "4.2"',
    );
    expect(() => parseOSImageURLConfigMap(undefined, '4.2')).toThrow('configmap "machine-config-osimageurl" not found');
  });
  const wanted = [{ name: 'operator', version: '4.99.0' }];
  const st = (
    s: ReturnType<typeof computeClusterOperatorStatus>['status'],
    t: string,
  ): { status?: string; message?: string; reason?: string } | undefined => s.conditions?.find((c) => c.type === t);
  it('reports the version only after a complete pass', () => {
    const pending = computeClusterOperatorStatus({
      previous: { versions: [{ name: 'operator', version: '4.98.0' }] },
      wanted,
      syncError: undefined,
      pending: 'waiting',
      pools: [],
      now,
    });
    expect(pending.status.versions).toEqual([{ name: 'operator', version: '4.98.0' }]);
    expect(st(pending.status, 'Progressing')).toMatchObject({ status: 'True', message: 'Working towards 4.99.0' });
    expect(st(pending.status, 'Available')?.message).toBe('Cluster has deployed [{operator 4.98.0}]');
    const done = computeClusterOperatorStatus({
      previous: pending.status,
      wanted,
      syncError: undefined,
      pools: [],
      now,
    });
    expect(done.status.versions).toEqual(wanted);
    expect(st(done.status, 'Progressing')).toMatchObject({ status: 'False', message: 'Cluster version is 4.99.0' });
    expect(done.events.map((e) => e.reason)).toContain('OperatorVersionChanged');
  });
  it('Degraded with the task reason; Available stays True/AsExpected whatever task fails (release-4.20)', () => {
    const r = computeClusterOperatorStatus({
      previous: {},
      wanted,
      syncError: { task: 'RenderConfig', message: 'x' },
      pools: [],
      now,
    });
    expect(st(r.status, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'RenderConfigFailed',
      message: 'Unable to apply 4.99.0: x',
    });
    expect(st(r.status, 'Available')).toMatchObject({
      status: 'True',
      reason: 'AsExpected',
      message: 'Cluster has deployed []',
    });
    const resync = computeClusterOperatorStatus({
      previous: { versions: wanted },
      wanted,
      syncError: { task: 'MachineConfigController', message: 'z' },
      pools: [],
      now,
    });
    expect(st(resync.status, 'Degraded')).toMatchObject({
      reason: 'MachineConfigControllerFailed',
      message: 'Failed to resync 4.99.0 because: z',
    });
    expect(st(resync.status, 'Available')).toMatchObject({
      status: 'True',
      reason: 'AsExpected',
      message: 'Cluster has deployed [{operator 4.99.0}]',
    });
    expect(resync.status.extension).toEqual({ lastSyncError: 'z' });
    const rp = computeClusterOperatorStatus({
      previous: { versions: wanted },
      wanted,
      syncError: { task: 'RequiredPools', message: 'y' },
      pools: [],
      now,
    });
    expect(st(rp.status, 'Degraded')).toMatchObject({
      reason: 'RequiredPoolsFailed',
      message: 'Failed to resync 4.99.0 because: y',
    });
    expect(st(rp.status, 'Available')?.status).toBe('True');
  });
  it('Upgradeable follows pool conditions', () => {
    const p = (t: string): MachineConfigPool => ({
      metadata: { name: 'p' },
      spec: {},
      status: { conditions: [{ type: t, status: 'True' }] },
    });
    expect(upgradeableCondition([p('Updating')])).toEqual({
      type: 'Upgradeable',
      status: 'True',
      reason: 'AsExpected',
    });
    expect(upgradeableCondition([p('Updating'), p('Degraded')])).toMatchObject({
      status: 'False',
      reason: 'DegradedPool',
    });
    expect(upgradeableCondition([p('BuildInterrupted'), p('Degraded')])).toMatchObject({
      status: 'False',
      reason: 'InterruptedBuild',
      message:
        "One or more machine config pools' builds have been interrupted, please see `oc get mcp` for further details and resolve before upgrading",
    });
    expect(upgradeableCondition([])).toEqual({ type: 'Upgradeable', status: 'True', reason: 'AsExpected' });
  });
  it('extension lines as machineConfigPoolStatus writes them', () => {
    const pool = (
      conditions: NonNullable<NonNullable<MachineConfigPool['status']>['conditions']>,
    ): MachineConfigPool => ({
      metadata: { name: 'worker' },
      spec: { configuration: { name: 'rendered-worker-b' } },
      status: {
        machineCount: 3,
        updatedMachineCount: 1,
        readyMachineCount: 2,
        configuration: { name: 'rendered-worker-a' },
        conditions,
      },
    });
    expect(
      machineConfigPoolStatus(
        pool([
          {
            type: 'NodeDegraded',
            status: 'True',
            reason: '1 nodes are reporting degraded status on sync',
            message: 'Node worker-0 is reporting: "boom"',
          },
        ]),
      ),
    ).toBe(
      'pool is degraded because nodes fail with "1 nodes are reporting degraded status on sync": "Node worker-0 is reporting: \\"boom\\""',
    );
    expect(
      machineConfigPoolStatus(
        pool([
          { type: 'RenderDegraded', status: 'True', reason: 'r', message: 'm' },
          { type: 'NodeDegraded', status: 'True' },
        ]),
      ),
    ).toBe('pool is degraded because rendering fails with "r": "m"');
    expect(machineConfigPoolStatus(pool([{ type: 'Updated', status: 'True' }]))).toBe(
      'all 3 nodes are at latest configuration rendered-worker-a',
    );
    expect(machineConfigPoolStatus(pool([{ type: 'Updating', status: 'True' }]))).toBe(
      '1 (ready 2) out of 3 nodes are updating to latest configuration rendered-worker-b',
    );
    expect(machineConfigPoolStatus(pool([]))).toBe('<unknown>');
  });
  it('required pools must run this release', () => {
    const master: MachineConfigPool = {
      metadata: {
        name: 'master',
        generation: 1,
        labels: { 'operator.machineconfiguration.openshift.io/required-for-upgrade': '' },
      },
      spec: { configuration: { name: 'r2' } },
      status: {
        observedGeneration: 1,
        configuration: { name: 'r1' },
        machineCount: 3,
        readyMachineCount: 3,
        updatedMachineCount: 3,
        unavailableMachineCount: 0,
        degradedMachineCount: 0,
        conditions: [{ type: 'Updated', status: 'True' }],
      },
    };
    const mcs: Record<string, MachineConfig> = {
      r1: {
        metadata: {
          name: 'r1',
          annotations: { [`${A}generated-by-controller-version`]: 'h', [`${A}release-image-version`]: '4.98.0' },
        },
      },
      r2: {
        metadata: {
          name: 'r2',
          annotations: { [`${A}generated-by-controller-version`]: 'h', [`${A}release-image-version`]: '4.99.0' },
        },
      },
    };
    expect(checkRequiredPools([master], (n) => mcs[n], '4.99.0', 'h')?.message).toBe(
      'MachineConfigPool master has not progressed to latest configuration: release image version mismatch for master in r1 expected: 4.99.0 got: 4.98.0, retrying',
    );
    const moved = { ...master, status: { ...master.status, configuration: { name: 'r2' } } };
    expect(checkRequiredPools([moved], (n) => mcs[n], '4.99.0', 'h')).toBeUndefined();
    const degradedWorker: MachineConfigPool = {
      metadata: { name: 'worker' },
      spec: {},
      status: {
        machineCount: 2,
        readyMachineCount: 1,
        updatedMachineCount: 1,
        unavailableMachineCount: 1,
        conditions: [{ type: 'Degraded', status: 'True' }],
      },
    };
    expect(checkRequiredPools([degradedWorker, moved], (n) => mcs[n], '4.99.0', 'h')?.message).toBe(
      'error MachineConfigPool worker is not ready, retrying. Status: (pool degraded: true total: 2, ready 1, updated: 1, unavailable: 1)',
    );
    const paused = {
      ...master,
      spec: { ...master.spec, paused: true },
      status: {
        ...master.status,
        configuration: { name: 'r2' },
        conditions: [{ type: 'Updated', status: 'False' as const }],
      },
    };
    expect(checkRequiredPools([paused], (n) => mcs[n], '4.99.0', 'h')).toEqual({
      hard: true,
      message: 'error required MachineConfigPool master is paused and cannot sync until it is unpaused',
    });
  });
});

describe('node metadata decisions', () => {
  const W = { 'node-role.kubernetes.io/worker': '' };
  const infra: MachineConfigPool = {
    metadata: { name: 'infra' },
    spec: {
      nodeSelector: { matchLabels: { 'node-role.kubernetes.io/infra': '' } },
      configuration: { name: 'rendered-infra-v1' },
    },
  };
  const worker: MachineConfigPool = {
    metadata: { name: 'worker' },
    spec: { nodeSelector: { matchLabels: W }, configuration: { name: 'rendered-worker-v2' } },
  };
  it('copies custom-pool labels onto a node born into it, once, and holds it back as a candidate', () => {
    const born = node('w9', W, 'rendered-infra-v1', 'rendered-infra-v1');
    (born.metadata.annotations ?? {})[`${A}firstPivotConfig`] = 'rendered-infra-v1';
    const d = decidePoolSync({
      pool: worker,
      pools: [worker, infra],
      nodes: [born],
      now,
      renderedOwnerPool: () => 'infra',
    });
    expect(d.customPoolLabels).toEqual([
      { node: 'w9', pool: 'infra', labels: { 'node-role.kubernetes.io/infra': '' } },
    ]);
    expect(d.setDesired).toEqual([]);
    (born.metadata.annotations ?? {})[`${A}customPoolLabelsApplied`] = '';
    expect(decidePoolSync({ pool: worker, pools: [worker, infra], nodes: [born], now }).customPoolLabels).toEqual([]);
  });
  it('annotates the control plane topology on nodes that lack it', () => {
    const n1 = node('w1', W, 'rendered-worker-v2', 'rendered-worker-v2');
    (n1.metadata.annotations ?? {})[`${A}controlPlaneTopology`] = 'HighlyAvailable';
    const d = decidePoolSync({
      pool: worker,
      pools: [worker],
      nodes: [n1, node('w2', W, 'rendered-worker-v2', 'rendered-worker-v2')],
      now,
      controlPlaneTopology: 'HighlyAvailable',
    });
    expect(d.annotateTopology).toEqual(['w2']);
  });
});
