/** The operator's ClusterOperator status decisions (`src/controller/operator/status.ts`): conditions, versions and extension, Upgradeable, required pools. */
import { describe, expect, it } from 'vitest';
import {
  checkRequiredPools,
  computeClusterOperatorStatus,
  upgradeableCondition,
  machineConfigPoolStatus,
} from '../../../src/index.js';
import type { MachineConfig, MachineConfigPool } from '@keelson/api';

const A = 'machineconfiguration.openshift.io/';
const now = new Date('2026-02-01T00:00:00Z');

describe('operator decisions', () => {
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
