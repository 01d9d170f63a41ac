/** Pure decisions: the ClusterOperator gate, error summaries and their interpretation over time. */
import { describe, expect, it } from 'vitest';
import type { ClusterOperator } from '@keelson/api';
import { UpdateError, classifyApiError } from '../src/errors.js';
import { decideOperatorHealth } from '../src/resources/clusteroperator.js';
import { interpretError, summarizeTaskGraphErrors, UPSTREAM_FAILURE_INTERVALS } from '../src/sync/summarize.js';
import { backoffDelays, failureBackoffMs, resolveIntervals } from '../src/sync/intervals.js';
import { KubeApiError } from '@keelson/kube';

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
const MIN = 60_000;

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

describe('summarizeTaskGraphErrors', () => {
  it('condenses operator errors of one reason into the plural form', () => {
    const e = summarizeTaskGraphErrors([
      new UpdateError({
        reason: 'ClusterOperatorNotAvailable',
        name: 'b',
        message: 'Cluster operator b is not available',
      }),
      new UpdateError({
        reason: 'ClusterOperatorNotAvailable',
        name: 'a',
        message: 'Cluster operator a is not available',
      }),
    ]);
    expect(e).toMatchObject({
      reason: 'ClusterOperatorsNotAvailable',
      message: 'Cluster operators a, b are not available',
    });
  });
  it('several different errors become MultipleErrors with sorted messages', () => {
    const e = summarizeTaskGraphErrors([
      new UpdateError({ reason: 'X', message: 'zeta' }),
      new UpdateError({ reason: 'Y', message: 'alpha' }),
      new Error('context canceled'),
    ]);
    expect(e).toMatchObject({
      reason: 'MultipleErrors',
      message: 'Multiple errors are preventing progress:\n* alpha\n* zeta',
    });
  });
});

describe('interpretError over time', () => {
  const updating = new UpdateError({
    reason: 'ClusterOperatorUpdating',
    name: 'etcd',
    message: 'Cluster operator etcd is updating versions',
    effect: 'None',
  });
  it('updating operator is progress, then SlowClusterOperator after 30 minutes', () => {
    const since = new Map([['etcd', 0]]);
    expect(interpretError(updating, false, 29 * MIN, since, UPSTREAM_FAILURE_INTERVALS)).toMatchObject({
      failing: 'false',
      waitingOn: 'waiting on etcd',
    });
    expect(interpretError(updating, false, 31 * MIN, since, UPSTREAM_FAILURE_INTERVALS)).toMatchObject({
      failing: 'unknown',
      reason: 'SlowClusterOperator',
      message: 'waiting on etcd over 30 minutes which is longer than expected',
    });
  });
  it('machine-config is slow only after 90 minutes', () => {
    const e = new UpdateError({
      reason: 'ClusterOperatorsUpdating',
      names: ['etcd', 'machine-config'],
      message: 'm',
      effect: 'None',
    });
    const since = new Map([
      ['etcd', 0],
      ['machine-config', 0],
    ]);
    expect(interpretError(e, false, 31 * MIN, since, UPSTREAM_FAILURE_INTERVALS).message).toBe(
      'waiting on etcd over 30 minutes which is longer than expected',
    );
    expect(interpretError(e, false, 91 * MIN, since, UPSTREAM_FAILURE_INTERVALS).message).toBe(
      'waiting on etcd over 30 minutes and machine-config over 90 minutes which is longer than expected',
    );
  });
  it('degraded operator tolerated for 40 minutes, then Failing', () => {
    const e = new UpdateError({
      reason: 'ClusterOperatorDegraded',
      name: 'etcd',
      message: 'Cluster operator etcd is degraded',
      effect: 'FailAfterInterval',
    });
    const since = new Map([['etcd', 0]]);
    expect(interpretError(e, false, 39 * MIN, since, UPSTREAM_FAILURE_INTERVALS)).toMatchObject({
      failing: 'false',
      waitingOn: 'waiting up to 40 minutes on etcd',
    });
    expect(interpretError(e, false, 41 * MIN, since, UPSTREAM_FAILURE_INTERVALS)).toMatchObject({
      failing: 'true',
      reason: 'ClusterOperatorDegraded',
      message: 'wait has exceeded 40 minutes for these operators: etcd',
    });
  });
  it('reconciling: every error fails at once', () => {
    expect(interpretError(updating, true, 0, new Map(), UPSTREAM_FAILURE_INTERVALS).failing).toBe('true');
  });
});

describe('API error classification', () => {
  const cases: [number, string | undefined, string][] = [
    [404, 'NotFound', 'UpdatePayloadResourceNotFound'],
    [409, 'Conflict', 'UpdatePayloadResourceConflict'],
    [409, 'AlreadyExists', 'UpdatePayloadResourceNotFound'],
    [500, 'InternalError', 'UpdatePayloadClusterError'],
    [503, 'ServiceUnavailable', 'UpdatePayloadClusterDown'],
    [422, 'Invalid', 'UpdatePayloadResourceInvalid'],
    [401, 'Unauthorized', 'UpdatePayloadClusterUnauthorized'],
    [403, 'Forbidden', 'UpdatePayloadResourceForbidden'],
    [429, 'TooManyRequests', 'UpdatePayloadClusterOverloaded'],
  ];
  for (const [status, reason, want] of cases) {
    it(`${status} ${reason ?? ''} -> ${want}`, () => {
      expect(classifyApiError(new KubeApiError('GET', '/x', status, reason ? { reason } : undefined)).reason).toBe(
        want,
      );
    });
  }
});

describe('intervals', () => {
  it('upstream task backoffs: 10 s then 13 s; Initializing 1, 2, 4 s', () => {
    const iv = resolveIntervals();
    expect(backoffDelays(iv.taskBackoff)).toEqual([10_000, 13_000]);
    expect(backoffDelays(iv.initializingTaskBackoff)).toEqual([1000, 2000, 4000]);
  });
  it('failure backoff interval/16 x 2^n up to the interval, +0..20 % jitter; timeScale compresses', () => {
    expect(failureBackoffMs(160_000, 0, () => 0)).toBe(10_000);
    expect(failureBackoffMs(160_000, 3, () => 0)).toBe(80_000);
    expect(failureBackoffMs(160_000, 5, () => 1)).toBe(192_000);
    expect(resolveIntervals(0.01).slowOperatorMs).toBe(18_000);
    expect(() => resolveIntervals(0)).toThrow(RangeError);
  });
});
