/** Table tests of `keelson upgrade`'s target choice and validation (oc adm upgrade's rules and texts). */
import { describe, expect, it } from 'vitest';
import { parseDockerImageReference } from '../../src/upgrade/image-ref.js';
import {
  checkForUpgrade,
  desiredUpdatePatch,
  FORCE_WARNING,
  planUpgrade,
  UpgradeRequestError,
  validateUpgradeOptions,
  type UpgradeRequestOptions,
} from '../../src/upgrade/request.js';
import { cond, idleCluster, IMG, DIGEST } from './fixtures.js';

describe('parseDockerImageReference', () => {
  const cases: { in: string; want?: Partial<ReturnType<typeof parseDockerImageReference>>; err?: string }[] = [
    {
      in: `quay.io/openshift-release-dev/ocp-release@${DIGEST(1)}`,
      want: { registry: 'quay.io', namespace: 'openshift-release-dev', name: 'ocp-release', tag: '', id: DIGEST(1) },
    },
    {
      in: 'localhost:5000/ocp/release:4.18.3',
      want: { registry: 'localhost:5000', namespace: 'ocp', name: 'release', tag: '4.18.3', id: '' },
    },
    { in: 'ocp/release:4.18.3', want: { registry: '', namespace: 'ocp', name: 'release', tag: '4.18.3' } },
    { in: '4.0.1', want: { registry: '', namespace: '', name: '4.0.1', tag: '' } },
    { in: 'Quay.io/Ocp/Release', err: 'repository name must be lowercase' },
    { in: 'quay.io/ocp/release@sha256:abc', err: 'invalid reference format' },
    { in: `quay.io/ocp/release@sha256:${'a'.repeat(63)}b0`, err: 'invalid checksum digest length' },
    { in: 'quay.io/ocp//release', err: 'invalid reference format' },
  ];
  for (const c of cases) {
    it(c.in, () => {
      if (c.err !== undefined) expect(() => parseDockerImageReference(c.in)).toThrow(c.err);
      else expect(parseDockerImageReference(c.in)).toMatchObject(c.want ?? {});
    });
  }
});

describe('validateUpgradeOptions (oc Complete)', () => {
  const cases: { name: string; o: UpgradeRequestOptions; err?: string; warn?: string }[] = [
    { name: '--clear alone', o: { clear: true } },
    {
      name: '--clear with --to',
      o: { clear: true, to: '4.18.4' },
      err: '--clear may not be specified with any other flags',
    },
    {
      name: '--to-multi-arch with --to-latest',
      o: { toMultiArch: true, toLatest: true },
      err: '--to-multi-arch may not be used with --to, --to-image, or --to-latest',
    },
    {
      name: '--to and --to-image',
      o: { to: '4.18.4', toImage: IMG(4) },
      err: 'only one of --to or --to-image may be provided',
    },
    {
      name: '--to not SemVer',
      o: { to: '4.18' },
      err: '--to must be a semantic version (e.g. 4.0.1 or 4.1.0-nightly-20181104): No Major.Minor.Patch elements found',
    },
    {
      name: '--to-image a version',
      o: { toImage: '4.0.1' },
      err: '--to-image must be a valid image pull spec: no registry or repository specified',
    },
    {
      name: '--to-image bad grammar',
      o: { toImage: 'quay.io/A/B' },
      err: '--to-image must be a valid image pull spec: repository name must be lowercase',
    },
    {
      name: '--to-image by tag without --force',
      o: { toImage: 'quay.io/ocp/release:4.18.4' },
      err: '--to-image must be a by-digest pull spec, unless --force is also set',
    },
    {
      name: '--to-image by tag with --force warns',
      o: { toImage: 'quay.io/ocp/release:4.18.4', force: true },
      warn: 'warning: Using by-tag pull specs is dangerous',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.err !== undefined) {
        let caught: unknown;
        try {
          validateUpgradeOptions(c.o);
        } catch (e) {
          caught = e;
        }
        expect(caught).toBeInstanceOf(UpgradeRequestError);
        expect((caught as UpgradeRequestError).message).toContain(c.err);
        expect((caught as UpgradeRequestError).usage).toBe(true);
      } else {
        const w = validateUpgradeOptions(c.o);
        if (c.warn !== undefined) expect(w.join('\n')).toContain(c.warn);
        else expect(w).toEqual([]);
      }
    });
  }
});

describe('planUpgrade (oc Run)', () => {
  const failing = idleCluster({
    conditions: [
      cond('Failing', 'True', 'ClusterOperatorDegraded', 'Cluster operator etcd is degraded'),
      cond(
        'Progressing',
        'True',
        'ClusterOperatorDegraded',
        'Unable to apply 4.18.3: wait has exceeded 40 minutes for these operators: etcd',
      ),
    ],
  });
  const noRetrieval = idleCluster({
    conditions: [cond('RetrievedUpdates', 'False', 'NoChannel', 'The update channel has not been configured.')],
  });
  const cases: {
    name: string;
    cv?: ReturnType<typeof idleCluster>;
    o: UpgradeRequestOptions;
    update?: unknown;
    out?: string[];
    err?: string;
    warn?: string;
    noWrite?: boolean;
  }[] = [
    {
      name: '--to an available version',
      o: { to: '4.18.4' },
      update: { version: '4.18.4', image: IMG(4) },
      out: ['Requested update to 4.18.4'],
    },
    {
      name: '--to the current version',
      o: { to: '4.18.3' },
      out: ['info: Cluster is already at version 4.18.3'],
      noWrite: true,
    },
    {
      name: '--to-image by digest keeps the given pull spec',
      o: { toImage: `mirror.local/ocp/release@${DIGEST(4)}` },
      update: { version: '4.18.4', image: `mirror.local/ocp/release@${DIGEST(4)}` },
    },
    {
      name: '--to-image of the current image',
      o: { toImage: IMG(3) },
      out: [`info: Cluster is already at ${IMG(3)}`],
      noWrite: true,
    },
    {
      name: '--to-latest picks the highest SemVer',
      o: { toLatest: true },
      update: { version: '4.18.10', image: IMG(7) },
      out: ['Requested update to 4.18.10'],
    },
    {
      name: '--to a not-recommended version',
      o: { to: '4.18.5' },
      err: 'the update 4.18.5 is not one of the recommended updates, but is available as a conditional update. To accept the Recommended=False risk and to proceed with update use --allow-not-recommended.\n  Reason: SomeBug\n  Message: Clusters on AWS hit a bug.\n  See https://bugs/1\n',
    },
    {
      name: '--to a not-recommended version with --allow-not-recommended',
      o: { to: '4.18.5', allowNotRecommended: true },
      update: { version: '4.18.5', image: IMG(5) },
      warn: 'warning: with --allow-not-recommended you have accepted the risks with 4.18.5 and bypassed Recommended=False SomeBug',
    },
    {
      name: '--to an unknown version',
      o: { to: '4.19.0' },
      err: 'the update is not one of the possible targets: 4.18.10, 4.18.4. specify --to-image to continue with the update.',
    },
    {
      name: '--to-image unknown needs --allow-explicit-upgrade',
      o: { toImage: IMG(9) },
      err: 'the update is not one of the possible targets: 4.18.10, 4.18.4. specify --allow-explicit-upgrade to continue with the update.',
    },
    {
      name: '--to-image unknown with --allow-explicit-upgrade',
      o: { toImage: IMG(9), allowExplicitUpgrade: true },
      update: { version: '', image: IMG(9) },
      out: [`Requested update to release image ${IMG(9)}`],
      warn: 'warning: The requested upgrade image is not one of the available updates. You have used --allow-explicit-upgrade for the update to proceed anyway',
    },
    {
      name: '--force sets force and warns',
      o: { to: '4.18.4', force: true },
      update: { version: '4.18.4', image: IMG(4), force: true },
      warn: FORCE_WARNING,
    },
    {
      name: 'client-side guard: failing cluster',
      cv: failing,
      o: { to: '4.18.4' },
      err: 'the cluster is experiencing an error reconciling "4.18.3":\n\n  Reason: ClusterOperatorDegraded\n  Message: Cluster operator etcd is degraded\n\nthe cluster is already upgrading:\n\n  Reason: ClusterOperatorDegraded\n  Message: Unable to apply 4.18.3: wait has exceeded 40 minutes for these operators: etcd\n\nIf you want to upgrade anyway, use --allow-upgrade-with-warnings.',
    },
    {
      name: 'client-side guard bypassed',
      cv: failing,
      o: { to: '4.18.4', allowUpgradeWithWarnings: true },
      update: { version: '4.18.4', image: IMG(4) },
      warn: 'warning: --allow-upgrade-with-warnings is bypassing: the cluster is experiencing an error reconciling "4.18.3"',
    },
    {
      name: 'no retrieval',
      cv: noRetrieval,
      o: { to: '4.18.9' },
      err: 'cannot refresh available updates:\n  Reason: NoChannel\n  Message: The update channel has not been configured.\n\nspecify --to-image to continue with the update.',
    },
    { name: '--clear without a request', o: { clear: true }, out: ['info: No update in progress'], noWrite: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cv = c.cv ?? idleCluster();
      if (c.err !== undefined) {
        expect(() => planUpgrade(cv, c.o)).toThrow(UpgradeRequestError);
        try {
          planUpgrade(cv, c.o);
        } catch (e) {
          expect((e as Error).message).toBe(c.err);
        }
        return;
      }
      const p = planUpgrade(cv, c.o);
      if (!p) throw new Error('expected a plan');
      if (c.noWrite) expect(p.desiredUpdate).toBeUndefined();
      if (c.update !== undefined) expect(p.desiredUpdate).toEqual(c.update);
      if (c.out !== undefined) expect(p.out).toEqual(c.out);
      if (c.warn !== undefined) expect(p.err.join('\n')).toContain(c.warn);
    });
  }

  it('keeps accepted risks and --clear keeps only them', () => {
    const cv = idleCluster();
    cv.spec.desiredUpdate = { version: '4.18.3', image: IMG(3), acceptRisks: [{ name: 'SomeBug' }] };
    expect(planUpgrade(cv, { to: '4.18.4' })?.desiredUpdate).toEqual({
      version: '4.18.4',
      image: IMG(4),
      acceptRisks: [{ name: 'SomeBug' }],
    });
    expect(planUpgrade(cv, { clear: true })?.desiredUpdate).toEqual({ acceptRisks: [{ name: 'SomeBug' }] });
    cv.spec.desiredUpdate = { version: '4.18.4', image: IMG(4) };
    expect(planUpgrade(cv, { clear: true })?.desiredUpdate).toBeNull();
  });

  it('--to-latest with nothing available', () => {
    const cv = idleCluster();
    if (cv.status) cv.status.availableUpdates = null;
    expect(planUpgrade(cv, { toLatest: true })?.out).toEqual([
      'info: Cluster is already at the latest available version 4.18.3',
    ]);
    expect(() => planUpgrade(cv, { toLatest: true, allowNotRecommended: true })).not.toThrow();
    expect(planUpgrade(cv, { toLatest: true, allowNotRecommended: true })?.desiredUpdate).toEqual({
      version: '4.18.5',
      image: IMG(5),
    });
  });

  it('--to-multi-arch migrates the current version, once', () => {
    const cv = idleCluster();
    expect(planUpgrade(cv, { toMultiArch: true })).toEqual({
      desiredUpdate: { architecture: 'Multi', version: '4.18.3' },
      out: ['Requested update to multi cluster architecture'],
      err: [],
    });
    cv.spec.desiredUpdate = { architecture: 'Multi', version: '4.18.3' };
    expect(() => planUpgrade(cv, { toMultiArch: true })).toThrow(
      'info: Update to multi cluster architecture has already been requested',
    );
  });

  it('no flags: nothing to plan', () => {
    expect(planUpgrade(idleCluster(), {})).toBeUndefined();
  });
});

describe('checkForUpgrade and desiredUpdatePatch', () => {
  it('reports Invalid=True first', () => {
    const cv = idleCluster({
      conditions: [
        cond(
          'Invalid',
          'True',
          'InvalidClusterVersion',
          'The cluster version is invalid: spec.desiredUpdate.version: Invalid value',
        ),
      ],
    });
    expect(checkForUpgrade(cv)).toBe(
      'the cluster version object is invalid, you must correct the invalid state first:\n\n  Reason: InvalidClusterVersion\n  Message: The cluster version is invalid: spec.desiredUpdate.version: Invalid value',
    );
    expect(checkForUpgrade(idleCluster())).toBeUndefined();
  });

  it('serialises Update like Go (all fields, acceptRisks only when set)', () => {
    expect(JSON.stringify(desiredUpdatePatch({ version: '4.18.4', image: IMG(4) }))).toBe(
      `{"spec":{"desiredUpdate":{"architecture":"","version":"4.18.4","image":"${IMG(4)}","force":false}}}`,
    );
    expect(desiredUpdatePatch({ acceptRisks: [{ name: 'A' }] })).toEqual({
      spec: { desiredUpdate: { architecture: '', version: '', image: '', force: false, acceptRisks: [{ name: 'A' }] } },
    });
    expect(JSON.stringify(desiredUpdatePatch(null))).toBe('{"spec":{"desiredUpdate":null}}');
  });
});
