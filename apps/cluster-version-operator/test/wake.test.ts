/** Sync-loop wake-ups: which ClusterVersion and ClusterOperator events wake the loop (upstream pkg/cvo/cvo.go). */
import { describe, expect, it } from 'vitest';
import type { ClusterOperator, ClusterVersion, ClusterVersionStatus } from '../src/api-types.js';
import { clusterOperatorActivity, specChanged } from '../src/operator/wake.js';

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

describe('sync loop wake-up on ClusterVersion events', () => {
  const spec: ClusterVersion['spec'] = { clusterID: 'c1', channel: 'stable-4.18' };
  const cv = (generation: number, s: ClusterVersion['spec'], status?: ClusterVersionStatus): ClusterVersion => ({
    metadata: { name: 'version', generation, resourceVersion: String(generation) },
    spec: s,
    ...(status ? { status } : {}),
  });
  it("a status-only change (the operator's own status write) does not wake the loop", () => {
    const status = { desired: { version: '4.18.3' } } as unknown as ClusterVersionStatus;
    expect(specChanged(cv(3, spec), cv(3, { ...spec }, status))).toBe(false);
  });
  it('a new desiredUpdate or generation wakes it', () => {
    expect(
      specChanged(cv(3, spec), cv(3, { ...spec, desiredUpdate: { version: '4.18.4', image: 'r@sha256:1' } })),
    ).toBe(true);
    expect(specChanged(cv(3, spec), cv(4, spec))).toBe(true);
  });
});

describe('sync loop wake-up on ClusterOperator activity (upstream NotifyAboutManagedResourceActivity)', () => {
  it('an operator version change wakes the loop with the upstream message', () => {
    expect(clusterOperatorActivity(co('4.18.2'), co('4.18.3'))).toBe(
      'Cluster operator etcd changed versions[name="operator"] from "4.18.2" to "4.18.3"',
    );
  });
  it('an Available or Degraded change wakes it; anything else does not', () => {
    expect(clusterOperatorActivity(co('4.18.3'), co('4.18.3', 'False'))).toBe(
      'Cluster operator etcd changed Available from "True" to "False"',
    );
    expect(clusterOperatorActivity(co('4.18.3'), co('4.18.3', 'True', 'True'))).toBe(
      'Cluster operator etcd changed Degraded from "False" to "True"',
    );
    expect(
      clusterOperatorActivity(co('4.18.3'), { ...co('4.18.3'), metadata: { name: 'etcd', resourceVersion: '9' } }),
    ).toBeUndefined();
  });
});
