/** The ClusterOperator gate (upstream pkg/cvo/internal/operatorstatus.go `checkOperatorHealth`), a pure decision. */
import { describe, expect, it } from 'vitest';
import type { ClusterOperator } from '@keelson/api';
import { decideOperatorHealth } from '../src/resources/clusteroperator.js';

const co = (version: string, available = 'True', degraded = 'False'): ClusterOperator => ({
  metadata: { name: 'etcd' },
  spec: {},
  status: {
    versions: [{ name: 'operator', version }],
    conditions: [
      { type: 'Available', status: available as 'True', lastTransitionTime: 't' },
      { type: 'Degraded', status: degraded as 'False', lastTransitionTime: 't' },
    ],
  },
});
const want = [{ name: 'operator', version: '4.18.3' }];

describe('ClusterOperator gate', () => {
  it('versions not reached: ClusterOperatorUpdating (effect None) when updating, success when initializing', () => {
    const e = decideOperatorHealth('etcd', want, co('4.18.2'), 'updating');
    expect(e).toMatchObject({
      reason: 'ClusterOperatorUpdating',
      effect: 'None',
      message: 'Cluster operator etcd is updating versions',
    });
    expect(decideOperatorHealth('etcd', want, co('4.18.2'), 'initializing')).toBeNull();
    expect(decideOperatorHealth('etcd', want, co('4.18.3'), 'updating')).toBeNull();
  });
  it('no declared versions, not available, degraded', () => {
    expect(decideOperatorHealth('etcd', [], co('4.18.3'), 'updating')).toMatchObject({
      reason: 'ClusterOperatorNoVersions',
      message: 'Cluster operator etcd does not declare expected versions',
    });
    expect(decideOperatorHealth('etcd', want, co('4.18.3', 'False'), 'updating')).toMatchObject({
      reason: 'ClusterOperatorNotAvailable',
      effect: 'Fail',
      message: 'Cluster operator etcd is not available',
    });
    expect(decideOperatorHealth('etcd', want, co('4.18.3', 'True', 'True'), 'updating')).toMatchObject({
      reason: 'ClusterOperatorDegraded',
      effect: 'FailAfterInterval',
    });
    expect(decideOperatorHealth('etcd', want, co('4.18.3', 'True', 'True'), 'initializing')).toMatchObject({
      reason: 'ClusterOperatorDegraded',
      effect: 'Report',
    });
  });
});
