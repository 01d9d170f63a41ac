/** Preconditions, history, desiredUpdate validation and the computed ClusterVersion status. */
import { describe, expect, it } from 'vitest';
import type { ClusterVersion, UpdateHistory } from '@keelson/api';
import { runPreconditions } from '../src/preconditions/preconditions.js';
import { preconditionsUpdateError as summarizePreconditions } from '../src/preconditions/update-error.js';
import { computeStatus } from '../src/status/compute.js';
import { resolveDesired } from '../src/status/desired.js';
import { mergeHistory, pruneHistory } from '../src/status/history.js';
import { computeUpgradeable } from '../src/status/upgradeable.js';

const h = (version: string, state: 'Completed' | 'Partial' = 'Completed'): UpdateHistory => ({
  state,
  version,
  image: `img-${version}`,
  startedTime: 't',
  completionTime: state === 'Completed' ? 't' : null,
  verified: false,
});
function cv(
  version: string,
  extra: Partial<NonNullable<ClusterVersion['status']>> = {},
  spec: Partial<ClusterVersion['spec']> = {},
): ClusterVersion {
  return {
    metadata: { name: 'version', generation: 1 },
    spec: { clusterID: 'c0ffee00-1234-4abc-8def-0123456789ab', channel: 'stable-4.17', ...spec },
    status: {
      desired: { version, image: `img-${version}` },
      history: [h(version)],
      observedGeneration: 1,
      versionHash: '',
      capabilities: {},
      availableUpdates: null,
      ...extra,
    },
  };
}

describe('preconditions', () => {
  it('4.17.5 -> 4.19.0 is a blocking MultipleMinorVersionsUpdate; forced it is an accepted risk', () => {
    const errs = runPreconditions(cv('4.17.5'), '4.19.0');
    expect(errs.map((e) => `${e.name}/${e.reason}`)).toEqual([
      'ClusterVersionGiantHop/MultipleMinorVersionsUpdate',
      'ClusterVersionRecommendedUpdate/UnknownUpdate',
    ]);
    const blocked = summarizePreconditions(errs, false);
    expect(blocked.blocking).toBe(true);
    expect(blocked.error?.reason).toBe('UpgradePreconditionCheckFailed');
    expect(
      blocked.error?.message.startsWith(
        'Multiple precondition checks failed:\n* Precondition "ClusterVersionGiantHop" failed because of "MultipleMinorVersionsUpdate": 4.19.0 is more than one minor version beyond the current target 4.17.5 (4.19 > 4.(17+1))',
      ),
    ).toBe(true);
    const forced = summarizePreconditions(errs, true);
    expect(forced.blocking).toBe(false);
    expect(forced.error?.message).toMatch(/^Forced through blocking failures: Multiple precondition checks failed:/);
  });
  it('z-stream rollback to the previous version is allowed; to an older minor is LowDesiredVersion', () => {
    const c = cv('4.17.5', { history: [h('4.17.5'), h('4.17.3')] });
    expect(runPreconditions(c, '4.17.3').map((e) => e.reason)).toEqual(['UnknownUpdate']);
    const low = runPreconditions(cv('4.17.5'), '4.16.9');
    expect(low[0]).toMatchObject({
      reason: 'LowDesiredVersion',
      message: '4.16.9 is less than the current target 4.17.5, and the cluster has no previous Semantic Version',
      nonBlockingWarning: false,
    });
  });
  it('4.20.1 -> 5.0.0 allowed, -> 5.1.0 MajorVersionUpdate', () => {
    expect(runPreconditions(cv('4.20.1'), '5.0.0').filter((e) => !e.nonBlockingWarning)).toEqual([]);
    expect(runPreconditions(cv('4.20.1'), '5.1.0')[0]?.reason).toBe('MajorVersionUpdate');
  });
  it('Upgradeable=False blocks minor updates but not patch updates; recommended targets pass', () => {
    const c = cv('4.17.5', {
      conditions: [
        {
          type: 'Upgradeable',
          status: 'False',
          reason: 'AdminAckRequired',
          message: 'ack it',
          lastTransitionTime: 't',
        },
      ],
      availableUpdates: [
        { version: '4.18.0', image: 'x' },
        { version: '4.17.6', image: 'y' },
      ],
    });
    expect(runPreconditions(c, '4.18.0')).toEqual([
      { name: 'ClusterVersionUpgradeable', reason: 'AdminAckRequired', message: 'ack it', nonBlockingWarning: false },
    ]);
    expect(runPreconditions(c, '4.17.6')).toEqual([]);
  });
  it('a not-recommended conditional update is a warning with the risk text', () => {
    const c = cv('4.17.5', {
      conditionalUpdates: [
        {
          release: { version: '4.18.0', image: 'x' },
          risks: [],
          conditions: [
            {
              type: 'Recommended',
              status: 'False',
              reason: 'RiskA',
              message: 'bad thing https://x',
              lastTransitionTime: 't',
            },
          ],
        },
      ],
    });
    expect(runPreconditions(c, '4.18.0')).toEqual([
      {
        name: 'ClusterVersionRecommendedUpdate',
        reason: 'RiskA',
        message: 'Update from 4.17.5 to 4.18.0 is not recommended:\n\nbad thing https://x',
        nonBlockingWarning: true,
      },
    ]);
  });
});

describe('history', () => {
  it('same image updates history[0]; a new image closes it and prepends Partial', () => {
    const a = mergeHistory([], { version: '4.18.0', image: 'A', verified: false, completed: false }, 'T1');
    expect(a).toEqual([
      { state: 'Partial', startedTime: 'T1', completionTime: null, version: '4.18.0', image: 'A', verified: false },
    ]);
    const done = mergeHistory(a, { version: '4.18.0', image: 'A', verified: false, completed: true }, 'T2');
    expect(done[0]).toMatchObject({ state: 'Completed', completionTime: 'T2' });
    const b = mergeHistory(
      done,
      { version: '4.18.1', image: 'B', verified: true, completed: false, acceptedRisks: 'r' },
      'T3',
    );
    expect(b.map((x) => `${x.version}/${x.state}/${x.completionTime ?? 'null'}`)).toEqual([
      '4.18.1/Partial/null',
      '4.18.0/Completed/T2',
    ]);
    expect(b[0]).toMatchObject({ verified: true, acceptedRisks: 'r' });
    expect(mergeHistory(b, { version: '', image: '', verified: false, completed: false }, 'T4')).toEqual(b);
  });
  it('pruning keeps 100 entries, the initial one and the newest', () => {
    const many = Array.from({ length: 130 }, (_, i) =>
      h(`4.${Math.floor(i / 10)}.${i % 10}`, i % 3 === 0 ? 'Completed' : 'Partial'),
    ).reverse();
    const pruned = pruneHistory(many);
    expect(pruned).toHaveLength(100);
    expect(pruned[pruned.length - 1]).toBe(many[many.length - 1]);
    expect(pruned.slice(0, 5)).toEqual(many.slice(0, 5));
  });
});

describe('desiredUpdate validation (5.1)', () => {
  it('image used as is; version only looked up in availableUpdates; errors reported', () => {
    expect(resolveDesired(cv('4.17.5', {}, { desiredUpdate: { image: 'q@sha256:1' } })).desired).toEqual({
      version: '',
      image: 'q@sha256:1',
    });
    const c = cv(
      '4.17.5',
      { availableUpdates: [{ version: '4.17.6', image: 'img6' }] },
      { desiredUpdate: { version: '4.17.6' } },
    );
    expect(resolveDesired(c).desired).toEqual({ version: '4.17.6', image: 'img6' });
    expect(resolveDesired(cv('4.17.5', {}, { desiredUpdate: { version: '4.17.9' } })).invalid).toEqual([
      'spec.desiredUpdate.version: Invalid value: when image is empty the update must be an available update',
    ]);
    expect(resolveDesired(cv('4.17.5', {}, { desiredUpdate: { version: 'banana' } })).invalid[0]).toContain(
      'must be a semantic version (1.2.3[-...])',
    );
    expect(resolveDesired(cv('4.17.5', {}, { clusterID: 'nope' })).invalid[0]).toContain(
      'must be an RFC4122-variant UUID',
    );
  });
});

describe('computeStatus', () => {
  const caps = { enabled: ['Console'], known: ['Console', 'Insights'], implicit: [] };
  it('updating with a waiting operator: Progressing True with progress and waiting on, Failing False', () => {
    const s = computeStatus({
      cv: cv('4.18.2'),
      now: new Date('2026-01-01T00:00:00Z'),
      worker: {
        mode: 'updating',
        desired: { version: '4.18.3', image: 'img-4.18.3' },
        verified: true,
        local: false,
        done: 7,
        total: 20,
        completed: false,
        failure: { failing: 'false', reason: 'ClusterOperatorUpdating', message: 'm', waitingOn: 'waiting on etcd' },
        generation: 2,
        versionHash: 'h',
      },
      capabilities: caps,
      invalid: [],
    });
    const c = (t: string) => s.conditions?.find((x) => x.type === t);
    expect(c('Progressing')).toMatchObject({
      status: 'True',
      reason: 'ClusterOperatorUpdating',
      message: 'Working towards 4.18.3: 7 of 20 done (35% complete), waiting on etcd',
    });
    expect(c('Failing')?.status).toBe('False');
    expect(s.history?.map((x) => `${x.version}/${x.state}`)).toEqual(['4.18.3/Partial', '4.18.2/Completed']);
    expect(s.observedGeneration).toBe(2);
    expect(c('ImplicitlyEnabledCapabilities')).toMatchObject({
      status: 'False',
      reason: 'AsExpected',
      message: 'Capabilities match configured spec',
    });
  });
  it('failure: Progressing Unable to apply with the summary, Failing True; implicit capabilities reported', () => {
    const s = computeStatus({
      cv: cv('4.18.2'),
      now: new Date(),
      worker: {
        mode: 'updating',
        desired: { version: '4.18.3', image: 'i' },
        verified: false,
        local: false,
        done: 1,
        total: 2,
        completed: false,
        failure: {
          failing: 'true',
          reason: 'ClusterOperatorDegraded',
          message: 'wait has exceeded 40 minutes for these operators: etcd',
          name: 'etcd',
        },
        generation: 1,
        versionHash: '',
      },
      capabilities: { ...caps, implicit: ['Insights', 'Console'] },
      invalid: [],
    });
    const c = (t: string) => s.conditions?.find((x) => x.type === t);
    expect(c('Failing')).toMatchObject({
      status: 'True',
      reason: 'ClusterOperatorDegraded',
      message: 'wait has exceeded 40 minutes for these operators: etcd',
    });
    expect(c('Progressing')).toMatchObject({
      status: 'True',
      message: 'Unable to apply 4.18.3: the cluster operator etcd is degraded',
    });
    expect(c('ImplicitlyEnabledCapabilities')?.message).toBe(
      'The following capabilities could not be disabled: Console, Insights',
    );
  });
  it('Upgradeable from ClusterOperators and overrides', () => {
    const co = {
      metadata: { name: 'etcd' },
      spec: {},
      status: {
        conditions: [
          {
            type: 'Upgradeable',
            status: 'False' as const,
            reason: 'Backup',
            message: 'take a backup',
            lastTransitionTime: 't',
          },
        ],
      },
    };
    expect(computeUpgradeable([co], [], [])).toEqual({
      type: 'Upgradeable',
      status: 'False',
      reason: 'Backup',
      message: 'Cluster operator etcd should not be upgraded between minor versions: take a backup',
    });
    const override = { kind: 'Deployment', group: 'apps', namespace: 'n', name: 'd', unmanaged: true };
    const both = computeUpgradeable([co], [override], []);
    expect(both?.reason).toBe('MultipleReasons');
    expect(
      both?.message?.startsWith(
        'Cluster should not be upgraded between minor versions for multiple reasons: ClusterVersionOverridesSet,Backup\n* ',
      ),
    ).toBe(true);
    expect(computeUpgradeable([], [], [])).toBeNull();
  });
});
