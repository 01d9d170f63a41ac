/** The plan's pure decisions over a live cluster's objects (no I/O). */
import type { ClusterOperator, ClusterVersion, MachineConfigPool } from '@keelson/api';
import type { MachineConfig } from '@keelson/machineconfig';
import { describe, expect, it } from 'vitest';
import {
  computeClusterMachineConfigs,
  computeClusterPools,
  computeJudgedClusterVersion,
  notUpgradeableOperators,
} from '../src/plan/cluster-facts.js';

const T = '2026-01-01T00:00:00Z';
const co = (name: string, status: 'True' | 'False', reason = 'R', message = 'm'): ClusterOperator => ({
  metadata: { name },
  spec: {},
  status: { conditions: [{ type: 'Upgradeable', status, reason, message, lastTransitionTime: T }] },
});
function cv(
  conditions: NonNullable<ClusterVersion['status']>['conditions'],
  overrides?: ClusterVersion['spec']['overrides'],
): ClusterVersion {
  return {
    metadata: { name: 'version' },
    spec: { clusterID: 'c', ...(overrides !== undefined ? { overrides } : {}) },
    status: {
      desired: { version: '4.18.1', image: 'i' },
      history: [],
      observedGeneration: 1,
      versionHash: '',
      availableUpdates: null,
      ...(conditions !== undefined ? { conditions } : {}),
    },
  };
}
const upgradeable = (c: ClusterVersion): unknown => c.status?.conditions?.find((x) => x.type === 'Upgradeable');

describe('computeJudgedClusterVersion', () => {
  it('sets Upgradeable as the CVO computes it from the operators and the overrides', () => {
    const judged = computeJudgedClusterVersion(cv([{ type: 'Available', status: 'True', lastTransitionTime: T }]), [
      co('etcd', 'False', 'Backup', 'no backup'),
      co('dns', 'True'),
    ]);
    expect(upgradeable(judged)).toMatchObject({
      status: 'False',
      reason: 'Backup',
      message: 'Cluster operator etcd should not be upgraded between minor versions: no backup',
    });
    expect(judged.status?.conditions?.map((c) => c.type)).toEqual(['Available', 'Upgradeable']);
    const overridden = computeJudgedClusterVersion(
      cv([], [{ kind: 'Deployment', group: 'apps', namespace: 'ns', name: 'x', unmanaged: true }]),
      [],
    );
    expect(upgradeable(overridden)).toMatchObject({ reason: 'ClusterVersionOverridesSet' });
  });
  it('keeps a cluster Upgradeable=False the operators do not explain (deletions only the CVO knows); recomputes otherwise', () => {
    const stale = cv([
      { type: 'Upgradeable', status: 'False', reason: 'Backup', message: 'old', lastTransitionTime: T },
    ]);
    expect(upgradeable(computeJudgedClusterVersion(stale, [co('etcd', 'True')]))).toMatchObject({
      reason: 'Backup',
      message: 'old',
    });
    const recomputed = computeJudgedClusterVersion(stale, [co('dns', 'False', 'DNSBusy', 'busy')]);
    expect(upgradeable(recomputed)).toMatchObject({ reason: 'DNSBusy' });
    expect(upgradeable(computeJudgedClusterVersion(cv([]), [co('etcd', 'True')]))).toBeUndefined();
  });
  it('lists the operators that are not upgradeable, by name', () => {
    expect(
      notUpgradeableOperators([
        co('kube-apiserver', 'False', 'B', 'b'),
        co('dns', 'True'),
        co('etcd', 'False', 'A', 'a'),
      ]),
    ).toEqual([
      { name: 'etcd', reason: 'A', message: 'a' },
      { name: 'kube-apiserver', reason: 'B', message: 'b' },
    ]);
  });
});

describe('computeClusterPools', () => {
  it('takes sizes, maxUnavailable, paused, selector and the targeted rendered config from the pools', () => {
    const pool: MachineConfigPool = {
      metadata: { name: 'worker' },
      spec: {
        maxUnavailable: '20%',
        paused: true,
        machineConfigSelector: { matchLabels: { role: 'worker' } },
        configuration: { name: 'rendered-worker-a' },
      },
      status: {
        machineCount: 10,
        updatedMachineCount: 7,
        readyMachineCount: 9,
        unavailableMachineCount: 1,
        degradedMachineCount: 0,
        configuration: { name: 'rendered-worker-old' },
      },
    };
    expect(computeClusterPools([pool, { metadata: { name: 'infra' }, spec: {} }])).toEqual([
      { name: 'infra', nodes: 0, machines: { updated: 0, ready: 0, unavailable: 0, degraded: 0 } },
      {
        name: 'worker',
        nodes: 10,
        maxUnavailable: '20%',
        paused: true,
        machineConfigSelector: { matchLabels: { role: 'worker' } },
        current: 'rendered-worker-a',
        machines: { updated: 7, ready: 9, unavailable: 1, degraded: 0 },
      },
    ]);
  });
});

describe('computeClusterMachineConfigs', () => {
  const mc = (name: string, owner?: string): MachineConfig => ({
    metadata: {
      name,
      ...(owner !== undefined ? { ownerReferences: [{ apiVersion: 'v1', kind: owner, name: 'x', uid: 'u' }] } : {}),
    },
    spec: {},
  });
  it('keeps the cluster’s own MachineConfigs: not rendered, not owned by a pool, not shipped by a release', () => {
    const live = [
      mc('00-worker'),
      mc('99-worker-custom'),
      mc('rendered-worker-abc'),
      mc('custom-render', 'MachineConfigPool'),
      mc('50-kubelet', 'KubeletConfig'),
    ];
    expect(computeClusterMachineConfigs(live, new Set(['00-worker'])).map((m) => m.metadata.name)).toEqual([
      '99-worker-custom',
      '50-kubelet',
    ]);
  });
});
