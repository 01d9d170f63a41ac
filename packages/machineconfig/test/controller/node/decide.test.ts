/** The node controller's pure decisions (`src/controller/node/decide.ts`): which nodes of a pool get a new desiredConfig and when, and the labels and annotations it keeps on nodes. */
import { describe, expect, it } from 'vitest';
import type { MachineConfigPool, Node } from '@keelson/api';
import { decidePoolSync } from '../../../src/index.js';
import { A, node, mpool, now } from '../decide-fixtures.js';

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
