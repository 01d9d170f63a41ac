/** Error summaries of a sync (upstream pkg/payload/task_graph.go) and their interpretation over time (pkg/cvo/status.go). */
import { describe, expect, it } from 'vitest';
import { UpdateError } from '../src/errors.js';
import { interpretError, summarizeTaskGraphErrors, UPSTREAM_FAILURE_INTERVALS } from '../src/sync/summarize.js';

const MIN = 60_000;

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
