/** The drain controller's pure decisions (`src/controller/drain/decide.ts`): when to cordon, drain and uncordon, what to evict, how retries slow down. */
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '@keelson/api';
import { decideDrain, decideDrainFailure, DEFAULT_DURATIONS, podsToEvict, scaleDurations } from '../../../src/index.js';
import { goDuration } from '../../../src/controller/drain/decide.js';
import { A } from '../decide-fixtures.js';

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
