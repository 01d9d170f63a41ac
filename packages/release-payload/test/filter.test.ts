import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  clusterCapabilities,
  DEFAULT_CLUSTER_PROFILE,
  filterManifests,
  implicitlyEnabledCapabilities,
  includeManifest,
  openPayload,
  parseManifestFile,
  type Manifest,
  type PayloadIssue,
} from '../src/index.js';

const DATA = fileURLToPath(new URL('./fixtures/upstream/payload/', import.meta.url));
const LOAD = { excludeIdentifier: '', featureSet: '', profile: DEFAULT_CLUSTER_PROFILE };

async function readManifests(dir: string): Promise<Manifest[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const issues: PayloadIssue[] = [];
  const out: Manifest[] = [];
  for (const n of names.sort())
    out.push(...parseManifestFile(await readFile(join(dir, n), 'utf8'), n, 'release-manifests', issues));
  expect(issues).toEqual([]);
  return out;
}

function mk(annotations: Record<string, string> | null, kind = 'ConfigMap', apiVersion = 'v1'): Manifest {
  const meta: Record<string, unknown> = { name: 'x' };
  if (annotations) meta['annotations'] = annotations;
  const issues: PayloadIssue[] = [];
  const [m] = parseManifestFile(
    JSON.stringify({ kind, apiVersion, metadata: meta }),
    'f.json',
    'release-manifests',
    issues,
  );
  return m!;
}

describe('feature gates (upstream TestCVO_FeatureGateManifestInclusion)', () => {
  const cases: [string[], string[]][] = [
    [[], ['always-included', 'legacy-excluded']],
    [['ExperimentalFeature'], ['always-included', 'experimental-feature', 'legacy-excluded']],
    [
      ['ExperimentalFeature', 'LegacyFeature'],
      ['always-included', 'experimental-feature'],
    ],
  ];
  for (const [gates, want] of cases) {
    it(`gates [${gates.join(',')}]`, async () => {
      const p = await openPayload(join(DATA, 'featuregatetest'));
      const r = filterManifests(p, { ...LOAD, enabledFeatureGates: gates });
      expect(r.included.map((m) => m.name)).toEqual(want);
      for (const e of r.excluded) expect(e.reason.rule).toBe('feature-gate');
    });
  }
});

describe('major version (upstream TestCVO_MajorVersionManifestFiltering)', () => {
  it('filters by the payload major version 5', async () => {
    const p = await openPayload(join(DATA, 'majorversiontest-v5'));
    const r = filterManifests(p, { ...LOAD, enabledFeatureGates: [] });
    expect(r.included.map((m) => m.name)).toEqual(['noversion', 'version5only', 'version4or5', 'excludeversion3']);
    expect(r.excluded.map((e) => [e.manifest.name, e.reason.message])).toEqual([
      ['version4only', 'major version 5 does not match any required versions'],
    ]);
    // an explicit major version overrides the payload's
    const r4 = filterManifests(p, { ...LOAD, majorVersion: 4 });
    expect(r4.included.map((m) => m.name)).toEqual(['noversion', 'version4only', 'version4or5', 'excludeversion3']);
    const r3 = filterManifests(p, { ...LOAD, majorVersion: 3 });
    expect(r3.excluded.map((e) => e.manifest.name)).toEqual([
      'version4only',
      'version5only',
      'version4or5',
      'excludeversion3',
    ]);
  });
  it('refuses the annotation on other kinds and overlapping requirements', () => {
    expect(includeManifest(mk({ 'release.openshift.io/major-version': '4' }), { majorVersion: 4 })?.rule).toBe(
      'major-version',
    );
    const crd = mk(
      { 'release.openshift.io/major-version': '4,-4' },
      'CustomResourceDefinition',
      'apiextensions.k8s.io/v1',
    );
    expect(includeManifest(crd, { majorVersion: 4 })?.message).toMatch(/overlap/);
    const fg = mk({ 'release.openshift.io/major-version': 'x' }, 'FeatureGate', 'config.openshift.io/v1');
    expect(includeManifest(fg, { majorVersion: 4 })?.message).toMatch(/invalid included major version/);
  });
});

describe('paralleltest loads all three files', () => {
  it('includes every manifest for the default profile', async () => {
    const p = await openPayload(join(DATA, 'paralleltest'));
    expect(filterManifests(p, LOAD).included.map((m) => m.filename)).toEqual([
      '0000_10_a_file.yaml',
      '0000_20_a_file.yaml',
      '0000_20_b_file.yaml',
    ]);
  });
});

describe('Manifest.Include rules', () => {
  it('excludes manifests without annotations', () => {
    expect(includeManifest(mk(null), {})).toEqual({ rule: 'no-annotations', message: 'no annotations' });
  });
  it('profile: unset and non-true values', () => {
    expect(includeManifest(mk({}), { profile: 'hypershift' })?.message).toBe(
      'include.release.openshift.io/hypershift unset',
    );
    expect(
      includeManifest(mk({ 'include.release.openshift.io/hypershift': 'false' }), { profile: 'hypershift' })?.message,
    ).toBe('unrecognized value include.release.openshift.io/hypershift=false');
    expect(
      includeManifest(mk({ 'include.release.openshift.io/hypershift': 'true' }), { profile: 'hypershift' }),
    ).toBeNull();
  });
  it('exclude identifier only for "true"', () => {
    expect(
      includeManifest(mk({ 'exclude.release.openshift.io/internal-openshift-hosted': 'true' }), {
        excludeIdentifier: 'internal-openshift-hosted',
      })?.rule,
    ).toBe('exclude-identifier');
    expect(
      includeManifest(mk({ 'exclude.release.openshift.io/internal-openshift-hosted': 'yes' }), {
        excludeIdentifier: 'internal-openshift-hosted',
      }),
    ).toBeNull();
  });
  it('feature sets', () => {
    const tp = mk({ 'release.openshift.io/feature-set': 'TechPreviewNoUpgrade,DevPreviewNoUpgrade' });
    expect(includeManifest(tp, { featureSet: '' })?.message).toBe(
      '"Default" is required, and release.openshift.io/feature-set=DevPreviewNoUpgrade,TechPreviewNoUpgrade',
    );
    expect(includeManifest(tp, { featureSet: 'TechPreviewNoUpgrade' })).toBeNull();
    expect(
      includeManifest(mk({ 'release.openshift.io/feature-set': 'Bogus' }), { featureSet: 'Bogus' })?.message,
    ).toMatch(/unrecognized value "Bogus"/);
    const both = mk({ 'release.openshift.io/feature-set': 'Default', 'release.openshift.io/feature-gate': 'X' });
    expect(includeManifest(both, { featureSet: '', enabledFeatureGates: ['X'] })?.rule).toBe('feature-set-and-gate');
    expect(includeManifest(both, { featureSet: '' })).toBeNull();
  });
  it('capabilities: unknown, disabled, all required', () => {
    const caps = clusterCapabilities({ baselineCapabilitySet: 'None', additionalEnabledCapabilities: ['Console'] });
    expect(
      includeManifest(mk({ 'capability.openshift.io/name': 'Console+Insights' }), { capabilities: caps })?.message,
    ).toBe('disabled capabilities: Insights');
    expect(includeManifest(mk({ 'capability.openshift.io/name': 'Nope' }), { capabilities: caps })?.message).toBe(
      'unrecognized capability names: Nope',
    );
    expect(includeManifest(mk({ 'capability.openshift.io/name': 'Console' }), { capabilities: caps })).toBeNull();
  });
  it('baseline capability sets and gated capabilities', () => {
    expect(clusterCapabilities({ baselineCapabilitySet: 'v4.11' }).enabled).toEqual([
      'MachineAPI',
      'baremetal',
      'marketplace',
      'openshift-samples',
    ]);
    expect(clusterCapabilities().known).not.toContain('ClusterAPI');
    expect(clusterCapabilities({ enabledFeatureGates: ['ClusterAPIMachineManagement'] }).enabled).toContain(
      'ClusterAPI',
    );
    expect(clusterCapabilities({ baselineCapabilitySet: 'v4.18' }).enabled).toContain('OperatorLifecycleManagerV1');
    expect(() => clusterCapabilities({ baselineCapabilitySet: 'v9' })).toThrow(/unknown baselineCapabilitySet/);
  });
  it('overrides and delete annotation', async () => {
    const m = mk({ 'release.openshift.io/delete': 'true' });
    expect(
      includeManifest(m, {
        overrides: [{ group: '', kind: 'ConfigMap', namespace: 'ignored', name: 'x', unmanaged: true }],
      })?.rule,
    ).toBe('override');
    expect(
      includeManifest(m, { overrides: [{ group: '', kind: 'ConfigMap', namespace: '', name: 'x', unmanaged: false }] }),
    ).toBeNull();
    const r = filterManifests({
      manifests: [m, mk({ 'release.openshift.io/delete': 'maybe' })],
      metadata: (await openPayload(join(DATA, 'paralleltest'))).metadata,
    });
    expect(r.deletions).toHaveLength(1);
    expect(r.invalidDeleteAnnotations).toHaveLength(1);
  });
});

describe('implicitly enabled capabilities (upstream TestGetImplicitlyEnabledCapabilities)', () => {
  const many = (p: string, a: number[]) => a.map((n) => `${p}${n}`);
  const cases: {
    name: string;
    dir: string;
    known?: string[];
    enabled?: string[];
    implicit?: string[];
    want: string[];
  }[] = [
    { name: 'basic', dir: 'test1', known: ['cap1', 'cap2'], enabled: ['cap1'], want: ['cap2'] },
    { name: 'basic with unknown cap', dir: 'test1', known: ['cap1'], enabled: ['cap1'], want: ['cap2'] },
    { name: 'different manifest', dir: 'test2', want: [] },
    { name: 'current manifest not enabled', dir: 'test3', known: ['cap2'], enabled: ['cap2'], want: [] },
    { name: 'new cap already enabled', dir: 'test4', known: ['cap1', 'cap2'], enabled: ['cap1', 'cap2'], want: [] },
    {
      name: 'already implicitly enabled',
      dir: 'test5',
      known: ['cap1', 'cap2'],
      enabled: ['cap1'],
      implicit: ['cap2'],
      want: ['cap2'],
    },
    { name: 'only add cap once', dir: 'test6', known: ['cap1', 'cap2'], enabled: ['cap1'], want: ['cap2'] },
    {
      name: 'complex',
      dir: 'test7',
      known: [
        ...many('cap', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]),
        ...many('cap', [111, 112, 113, 114, 115, 116, 117, 118, 119, 1111, 1113, 1115, 1110, 1112, 1114, 1116]),
      ],
      enabled: many('cap', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]),
      implicit: ['cap000', 'cap111', 'cap112', 'cap113', 'cap114'],
      want: many('cap', [0, 111, 112, 113, 114, 115, 116, 117, 118, 119, 1110, 1111, 1112, 1113, 1114, 1115, 1116]).map(
        (c) => (c === 'cap0' ? 'cap000' : c),
      ),
    },
    {
      name: 'no update manifests',
      dir: 'test8',
      known: ['cap1'],
      enabled: ['cap1'],
      implicit: ['cap1'],
      want: ['cap1'],
    },
    {
      name: 'no current manifests',
      dir: 'test9',
      known: ['cap1'],
      enabled: ['cap1'],
      implicit: ['cap1'],
      want: ['cap1'],
    },
    { name: 'duplicate manifests', dir: 'test10', known: ['cap1', 'cap2'], enabled: ['cap1'], want: ['cap2'] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const base = join(DATA, 'payloadcapabilitytest', c.dir);
      const current = await readManifests(join(base, 'current'));
      let update = await readManifests(join(base, 'update'));
      if (c.dir === 'test10') update = [...update, update[0]!];
      const got = implicitlyEnabledCapabilities(
        update,
        current,
        { known: c.known ?? [], enabled: c.enabled ?? [], implicitlyEnabled: c.implicit ?? [] },
        { enabledFeatureGates: [] },
      );
      expect(got).toEqual([...c.want].sort());
    });
  }
});
