/** The CVO's update preconditions (openshift/cluster-version-operator pkg/payload/precondition/clusterversion) and Upgradeable. */
import { describe, expect, it } from 'vitest';
import {
  adminAckPatchCommand,
  checkAdminAcks,
  computeUpgradeable,
  computeUpgradeableConditions,
  pendingAdminAcks,
  runPreconditions,
  summarizePreconditions,
  updateType,
  currentCompletedVersion,
  type PreconditionClusterVersion,
  type PreconditionCondition,
} from '../src/index.js';
import { parseSemver } from '@keelson/update-graph';

type Status = NonNullable<PreconditionClusterVersion['status']>;
const done = (version: string): { version: string; image: string; state: string } => ({
  version,
  image: `img-${version}`,
  state: 'Completed',
});
function cv(
  version: string,
  status: Partial<Status> = {},
  spec: PreconditionClusterVersion['spec'] = { channel: 'stable-4.18' },
): PreconditionClusterVersion {
  return {
    spec,
    status: {
      desired: { version, image: `img-${version}` },
      history: [done(version)],
      availableUpdates: [],
      ...status,
    },
  };
}
const up = (status: string, reason = 'R', message = 'm'): PreconditionCondition => ({
  type: 'Upgradeable',
  status,
  reason,
  message,
});
const names = (errs: ReturnType<typeof runPreconditions>): string[] =>
  errs.map((e) => `${e.name}/${e.reason}/${e.nonBlockingWarning ? 'warn' : 'block'}`);

describe('ClusterVersionRollback', () => {
  it('z-stream rollback to the previous entry passes; other rollbacks are LowDesiredVersion', () => {
    const c = cv('4.18.5', {
      history: [done('4.18.5'), done('4.18.3')],
      availableUpdates: [{ version: '4.18.3' }, { version: '4.18.2' }, { version: '4.17.9' }],
    });
    expect(runPreconditions(c, '4.18.3')).toEqual([]);
    expect(runPreconditions(c, '4.18.2')[0]?.message).toBe(
      "4.18.2 is less than the current target 4.18.5, and the only supported rollback is to the cluster's previous version 4.18.3 (img-4.18.3)",
    );
    const minor = cv('4.18.1', {
      history: [done('4.18.1'), done('4.17.9')],
      availableUpdates: [{ version: '4.17.9' }],
    });
    expect(runPreconditions(minor, '4.17.9')[0]?.message).toBe(
      "4.17.9 is less than the current target 4.18.1 and matches the cluster's previous version, but rollbacks that change major or minor versions are not recommended",
    );
    expect(runPreconditions(cv('4.18.5', { availableUpdates: [{ version: '4.18.1' }] }), '4.18.1')).toEqual([
      {
        name: 'ClusterVersionRollback',
        reason: 'LowDesiredVersion',
        message: '4.18.1 is less than the current target 4.18.5, and the cluster has no previous Semantic Version',
        nonBlockingWarning: false,
      },
    ]);
  });
  it('unparsable versions: current warns, target blocks, in each version-reading precondition', () => {
    expect(names(runPreconditions(cv('latest'), '4.18.1'))).toEqual([
      'ClusterVersionRollback/InvalidCurrentVersion/warn',
      'ClusterVersionGiantHop/InvalidCurrentVersion/warn',
      'ClusterVersionRecommendedUpdate/UnknownUpdate/warn',
    ]);
    const bad = runPreconditions(cv('4.18.1', { availableUpdates: [{ version: 'v4.19' }] }), 'v4.19');
    expect(names(bad)).toEqual([
      'ClusterVersionRollback/InvalidDesiredVersion/block',
      'ClusterVersionGiantHop/InvalidDesiredVersion/block',
    ]);
    expect(bad[0]?.message).toBe('No Major.Minor.Patch elements found');
  });
});

describe('ClusterVersionGiantHop', () => {
  it('one minor forward passes, two is MultipleMinorVersionsUpdate, majors only 4 -> 5.0', () => {
    const avail = {
      availableUpdates: [
        { version: '4.19.0' },
        { version: '4.20.0' },
        { version: '5.0.0' },
        { version: '5.1.0' },
        { version: '6.0.0' },
      ],
    };
    expect(runPreconditions(cv('4.18.5', avail), '4.19.0')).toEqual([]);
    expect(runPreconditions(cv('4.18.5', avail), '4.20.0')[0]?.message).toBe(
      '4.20.0 is more than one minor version beyond the current target 4.18.5 (4.20 > 4.(18+1)), and only updates within the current minor version or to the next minor version are supported.',
    );
    expect(runPreconditions(cv('4.22.1', avail), '5.0.0')).toEqual([]);
    expect(runPreconditions(cv('4.22.1', avail), '5.1.0')[0]?.message).toBe(
      '5.1.0 has a larger major version than the current target 4.22.1 (5 > 4), and only updates within the current major version or to 5.0 are supported.',
    );
    expect(runPreconditions(cv('5.0.1', avail), '6.0.0')[0]?.message).toBe(
      '6.0.0 has a larger major version than the current target 5.0.1 (6 > 5), and only updates within the current major version are supported.',
    );
  });
});

describe('ClusterVersionUpgradeable', () => {
  it('Upgradeable=False blocks minor updates with its reason and message; patch updates pass', () => {
    const c = cv('4.18.5', {
      conditions: [up('False', 'AdminAckRequired', 'ack it')],
      availableUpdates: [{ version: '4.19.0' }, { version: '4.18.6' }],
    });
    expect(runPreconditions(c, '4.19.0')).toEqual([
      { name: 'ClusterVersionUpgradeable', reason: 'AdminAckRequired', message: 'ack it', nonBlockingWarning: false },
    ]);
    expect(runPreconditions(c, '4.18.6')).toEqual([]);
    expect(
      runPreconditions({ ...c, status: { ...(c.status ?? { desired: {} }), conditions: [up('True')] } }, '4.19.0'),
    ).toEqual([]);
  });
  it('a patch update with overrides set warns', () => {
    const c = cv(
      '4.18.5',
      { conditions: [up('False', 'ClusterVersionOverridesSet')], availableUpdates: [{ version: '4.18.6' }] },
      { channel: 'c', overrides: [{ unmanaged: true }] },
    );
    const [e] = runPreconditions(c, '4.18.6');
    expect(e).toMatchObject({
      name: 'ClusterVersionUpgradeable',
      reason: 'ClusterVersionOverridesSet',
      nonBlockingWarning: true,
    });
    expect(e?.message).toMatch(
      /^Retarget from 4\.18\.5 to 4\.18\.6 is not blocked by ClusterVersionOverridesSet\. But the cluster-version operator is not managing these resources/,
    );
  });
  it('retargeting a patch while a minor update is in progress warns', () => {
    const c = cv('4.19.0', {
      history: [{ version: '4.19.0', image: 'i', state: 'Partial' }, done('4.18.5')],
      conditions: [up('False'), { type: 'Progressing', status: 'True' }],
      availableUpdates: [{ version: '4.19.1' }],
    });
    expect(runPreconditions(c, '4.19.1')).toEqual([
      {
        name: 'ClusterVersionUpgradeable',
        reason: 'MinorVersionClusterUpdateInProgress',
        message: 'Retarget to 4.19.1 while a minor version update from 4.18.5 to 4.19.0 is in progress',
        nonBlockingWarning: true,
      },
    ]);
  });
});

describe('ClusterVersionRecommendedUpdate', () => {
  it('warns with the upstream reasons', () => {
    const cond = (status: string): PreconditionClusterVersion =>
      cv('4.18.5', {
        conditionalUpdates: [
          {
            release: { version: '4.18.6' },
            conditions: [{ type: 'Recommended', status, reason: 'RiskA', message: 'bad https://x' }],
          },
        ],
      });
    expect(runPreconditions(cond('True'), '4.18.6')).toEqual([]);
    expect(runPreconditions(cond('False'), '4.18.6')[0]).toMatchObject({
      reason: 'RiskA',
      message: 'Update from 4.18.5 to 4.18.6 is not recommended:\n\nbad https://x',
      nonBlockingWarning: true,
    });
    expect(runPreconditions(cond('Unknown'), '4.18.6')[0]?.message).toBe(
      'Update from 4.18.5 to 4.18.6 is Recommended=Unknown: RiskA: bad https://x',
    );
    expect(
      runPreconditions(cv('4.18.5', { conditionalUpdates: [{ release: { version: '4.18.6' } }] }), '4.18.6')[0]?.reason,
    ).toBe('UnknownConditionType');
    expect(runPreconditions(cv('4.18.5', {}, { channel: '' }), '4.18.6')[0]?.reason).toBe('NoChannel');
    expect(runPreconditions(cv('4.18.5'), '4.18.6')[0]?.message).toBe(
      'No RetrievedUpdates, so the recommended status of updating from 4.18.5 to 4.18.6 is unknown.',
    );
    const retrieved = cv('4.18.5', { conditions: [{ type: 'RetrievedUpdates', status: 'True', reason: '' }] });
    expect(runPreconditions(retrieved, '4.18.6')[0]?.message).toBe(
      'RetrievedUpdates=True (), so the update from 4.18.5 to 4.18.6 is probably neither recommended nor supported.',
    );
  });
});

describe('summary and helpers', () => {
  it('summarizes like precondition.Summarize', () => {
    const errs = runPreconditions(
      cv('4.17.5', { conditions: [{ type: 'RetrievedUpdates', status: 'False', reason: 'NoChannel' }] }),
      '4.19.0',
    );
    const s = summarizePreconditions(errs, false);
    expect(s.blocking).toBe(true);
    expect(s.message).toBe(
      'Multiple precondition checks failed:\n* Precondition "ClusterVersionGiantHop" failed because of "MultipleMinorVersionsUpdate": 4.19.0 is more than one minor version beyond the current target 4.17.5 (4.19 > 4.(17+1)), and only updates within the current minor version or to the next minor version are supported.\n* Precondition "ClusterVersionRecommendedUpdate" failed because of "UnknownUpdate": RetrievedUpdates=False (NoChannel), so the recommended status of updating from 4.17.5 to 4.19.0 is unknown.',
    );
    expect(summarizePreconditions(errs, true)).toMatchObject({
      blocking: false,
      message: expect.stringMatching(/^Forced through blocking failures: Multiple/) as unknown,
    });
    expect(summarizePreconditions(errs.slice(1), false).blocking).toBe(false);
    expect(summarizePreconditions([], false)).toEqual({ blocking: false, message: null });
    expect(runPreconditions(undefined, '4.19.0')).toEqual([]);
  });
  it('update type and the completed version', () => {
    expect(updateType(parseSemver('4.18.1'), parseSemver('5.0.0'))).toBe('Major');
    expect(updateType(parseSemver('4.18.1'), parseSemver('4.19.0'))).toBe('Minor');
    expect(updateType(parseSemver('4.18.1'), parseSemver('4.18.2'))).toBe('Patch');
    expect(updateType(parseSemver('4.18.2'), parseSemver('4.18.2'))).toBe('Unknown');
    expect(
      currentCompletedVersion([
        { version: '4.19.0', state: 'Partial' },
        { version: '4.18.1', state: 'Completed' },
      ]),
    ).toBe('4.18.1');
    expect(
      currentCompletedVersion([
        { version: '4.19.0', state: 'Partial' },
        { version: '4.18.0', state: 'Partial' },
      ]),
    ).toBe('4.18.0');
    expect(currentCompletedVersion(undefined)).toBe('');
  });
});

describe('computeUpgradeable', () => {
  const co = (
    name: string,
    c?: PreconditionCondition,
  ): { metadata: { name: string }; status: { conditions: PreconditionCondition[] } } => ({
    metadata: { name },
    status: { conditions: c === undefined ? [] : [c] },
  });
  it('aggregates ClusterOperators, overrides and deletions', () => {
    expect(computeUpgradeable([co('etcd', up('True'))], [], [])).toBeNull();
    expect(computeUpgradeable([co('etcd', up('False', 'Backup', 'no backup'))], undefined, [])).toEqual({
      type: 'Upgradeable',
      status: 'False',
      reason: 'Backup',
      message: 'Cluster operator etcd should not be upgraded between minor versions: no backup',
    });
    const many = computeUpgradeable(
      [co('kube-apiserver', up('False', 'B', 'b')), co('etcd', up('False', 'A', 'a'))],
      [{ unmanaged: true }],
      ['ConfigMap ns/x'],
    );
    expect(many?.reason).toBe('MultipleReasons');
    // upstream release-4.20 order: overrides, admin acks, ClusterOperators, deletes
    expect(many?.message).toBe(
      'Cluster should not be upgraded between minor versions for multiple reasons: ClusterVersionOverridesSet,ClusterOperatorsNotUpgradeable,ResourceDeletesInProgress\n* Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.\n* Multiple cluster operators should not be upgraded between minor versions:\n* Cluster operator etcd should not be upgraded between minor versions: A: a\n* Cluster operator kube-apiserver should not be upgraded between minor versions: B: b\n* Cluster minor level upgrades are not allowed while resource deletions are in progress; resources=ConfigMap ns/x',
    );
  });
});

describe('admin acks and Upgradeable sub-conditions (upstream release-4.20 pkg/cvo/upgradeable.go)', () => {
  const history = [done('4.18.3'), { version: '4.17.9', image: 'i', state: 'Completed' }];
  const gates = {
    'ack-4.18-kube-1.32-api-removals-in-4.19': 'Kubernetes 1.32 removes APIs; see https://access.redhat.com/articles/x',
    'ack-4.17-old': 'older',
    'ack-4.18-other-in-4.19': 'Another thing',
  };
  it('a gate of the current minor needs its ack; gates of other minors do not apply', () => {
    expect(checkAdminAcks({ history, gates, acks: {} })).toEqual({
      reason: 'AdminAckRequired',
      message: 'Another thing Kubernetes 1.32 removes APIs; see https://access.redhat.com/articles/x',
    });
    expect(checkAdminAcks({ history, gates, acks: { 'ack-4.18-kube-1.32-api-removals-in-4.19': 'true' } })).toEqual({
      reason: 'AdminAckRequired',
      message: 'Another thing',
    });
    expect(
      checkAdminAcks({
        history,
        gates,
        acks: { 'ack-4.18-kube-1.32-api-removals-in-4.19': 'true', 'ack-4.18-other-in-4.19': 'true' },
      }),
    ).toBeUndefined();
    expect(
      checkAdminAcks({
        history,
        gates,
        acks: { 'ack-4.18-other-in-4.19': 'yes', 'ack-4.18-kube-1.32-api-removals-in-4.19': 'true' },
      })?.reason,
    ).toBe('AdminAckRequired');
  });
  it('missing ConfigMaps, malformed gate names and empty values, as upstream', () => {
    expect(checkAdminAcks({ history, gates: null, acks: {} })).toEqual({
      reason: 'UnableToAccessAdminGatesConfigMap',
      message: 'admin-gates configmap not found.',
    });
    expect(checkAdminAcks({ history, gates: {}, acks: null })).toEqual({
      reason: 'UnableToAccessAdminAcksConfigMap',
      message: 'admin-acks configmap not found.',
    });
    expect(checkAdminAcks({ history: [], gates: null, acks: null })).toBeUndefined();
    expect(checkAdminAcks({ history, gates: { 'ack-4.18-x': '' }, acks: {} })).toEqual({
      reason: 'AdminAckConfigMapGateValueError',
      message: 'admin-gates configmap gate ack-4.18-x must contain a non-empty value.',
    });
    expect(checkAdminAcks({ history, gates: { bogus: 'v', 'ack-4.18-x': '' }, acks: {} })).toEqual({
      reason: 'MultipleReasons',
      message:
        'admin-gates configmap gate ack-4.18-x must contain a non-empty value. admin-gates configmap gate name bogus has invalid format; must comply with "^ack-[4-5][.]([0-9]{1,})-[^-]".',
    });
  });
  it('pending acks and the oc patch that gives them', () => {
    const pending = pendingAdminAcks({ history, gates, acks: {} });
    expect(pending.map((p) => p.gate)).toEqual(['ack-4.18-kube-1.32-api-removals-in-4.19', 'ack-4.18-other-in-4.19']);
    expect(adminAckPatchCommand(['ack-4.18-other-in-4.19'])).toBe(
      `oc -n openshift-config patch cm admin-acks --patch '{"data":{"ack-4.18-other-in-4.19":"true"}}' --type=merge`,
    );
  });
  it('one reason: Upgradeable alone; several: the sub-conditions too, sorted by type', () => {
    const co = { metadata: { name: 'etcd' }, status: { conditions: [up('False', 'Backup', 'no backup')] } };
    expect(
      computeUpgradeableConditions({
        operators: [],
        overrides: [],
        deletesInProgress: [],
        adminAcks: { history, gates, acks: {} },
      }),
    ).toEqual([
      {
        type: 'Upgradeable',
        status: 'False',
        reason: 'AdminAckRequired',
        message: 'Another thing Kubernetes 1.32 removes APIs; see https://access.redhat.com/articles/x',
      },
    ]);
    const all = computeUpgradeableConditions({
      operators: [co],
      overrides: [{ unmanaged: true }],
      deletesInProgress: [],
      adminAcks: { history, gates: { 'ack-4.18-a': 'ack A' }, acks: {} },
      updateInProgress: true,
    });
    expect(all.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'Upgradeable=False/MultipleReasons',
      'UpgradeableAdminAckRequired=False/AdminAckRequired',
      'UpgradeableClusterOperators=False/Backup',
      'UpgradeableClusterVersionOverrides=False/ClusterVersionOverridesSet',
      'UpgradeableUpgradeInProgress=True/UpdateInProgress',
    ]);
    expect(all[0]?.message).toBe(
      'Cluster should not be upgraded between minor versions for multiple reasons: ClusterVersionOverridesSet,AdminAckRequired,Backup,UpdateInProgress\n* Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.\n* ack A\n* Cluster operator etcd should not be upgraded between minor versions: no backup\n* An update is already in progress and the details are in the Progressing condition',
    );
  });
});
