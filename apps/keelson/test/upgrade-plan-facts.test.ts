/**
 * `keelson upgrade plan --feature-set/--feature-gates` (issue 22 §1): the plan filters manifests with the feature set
 * and gates the cluster's CVO uses, from the flags or from FeatureGate `cluster` of the live cluster.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTestRelease } from '@keelson/payload-gen';
import { openPayload, type ReleasePayload } from '@keelson/release-payload';
import type { ClusterVersion } from '@keelson/api';
import { planFacts, releaseAdminAcks } from '../src/commands/upgrade-plan.js';
import { computeRunLevels } from '@keelson/rehearsal';
import { computeUpgradePlan } from '../src/plan/compute-plan.js';
import { formatPlan } from '../src/plan/format.js';
import type { LiveCluster } from '../src/plan/cluster.js';

let dir = '';
let from: ReleasePayload;
let to: ReleasePayload;
let minor: ReleasePayload;

const gated = (name: string, annotations: Record<string, string>): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: openshift-config\n  annotations:\n${Object.entries(
    { 'include.release.openshift.io/self-managed-high-availability': 'true', ...annotations },
  )
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join('\n')}\n`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plan-facts-'));
  const a = await writeTestRelease(join(dir, 'a'), { version: '4.18.0' });
  const b = await writeTestRelease(join(dir, 'b'), { version: '4.18.1' });
  await writeFile(
    join(b, 'release-manifests', '0000_95_gated_01_configmaps.yaml'),
    [
      gated('tp', { 'release.openshift.io/feature-set': 'TechPreviewNoUpgrade' }),
      gated('gate-x', { 'release.openshift.io/feature-gate': 'GateX' }),
      gated('not-x', { 'release.openshift.io/feature-gate': '-GateX' }),
    ].join('---\n'),
  );
  await writeFile(
    join(a, 'release-manifests', '0000_00_admin-gates.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: admin-gates\n  namespace: openshift-config-managed\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\ndata:\n  ack-4.18-kube-1.32-api-removals-in-4.19: "Kubernetes 1.32 removes APIs."\n  ack-4.17-old-in-4.18: "an older gate"\n',
  );
  const c = await writeTestRelease(join(dir, 'c'), { version: '4.19.0' });
  [from, to, minor] = await Promise.all([openPayload(a), openPayload(b), openPayload(c)]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const level95 = (facts: ReturnType<typeof planFacts>): number =>
  computeRunLevels(from, to, facts).find((l) => l.level === '95')?.manifests ?? 0;

describe('upgrade plan feature set and gates', () => {
  it('filters manifests with --feature-set and --feature-gates as the CVO does', () => {
    expect(level95(planFacts({}, undefined, '4.18.0'))).toBe(1); // Default, no gates: only -GateX
    expect(level95(planFacts({ featureSet: 'TechPreviewNoUpgrade', featureGates: 'GateX' }, undefined, '4.18.0'))).toBe(
      2,
    ); // tp + gate-x
    expect(level95(planFacts({ featureSet: 'Default', featureGates: 'GateX' }, undefined, '4.18.0'))).toBe(1); // gate-x only
  });

  it('reads FeatureGate cluster of the live cluster (gates of the current version); flags win', () => {
    const live = {
      clusterVersion: { spec: {} } as ClusterVersion,
      operators: [],
      pools: [],
      machineConfigs: [],
      signatureConfigMaps: [],
      featureGate: {
        spec: { featureSet: 'TechPreviewNoUpgrade' },
        status: {
          featureGates: [
            { version: '4.18.0', enabled: [{ name: 'GateX' }] },
            { version: '4.17.0', enabled: [{ name: 'Old' }] },
          ],
        },
      },
    } satisfies LiveCluster;
    expect(planFacts({}, live, '4.18.0')).toEqual({
      featureSet: 'TechPreviewNoUpgrade',
      enabledFeatureGates: ['GateX'],
    });
    expect(planFacts({}, live, '4.19.0')).toEqual({ featureSet: 'TechPreviewNoUpgrade', enabledFeatureGates: [] });
    expect(planFacts({ featureGates: 'A,B' }, live, '4.18.0')).toEqual({
      featureSet: 'TechPreviewNoUpgrade',
      enabledFeatureGates: ['A', 'B'],
    });
    expect(() => planFacts({ featureSet: 'Bogus' }, live, '4.18.0')).toThrow(/--feature-set must be one of/);
  });
});

describe('upgrade plan admin acks (issue 22 §2)', () => {
  it("a minor update lists release A's gates of the current minor and the oc patch that acknowledges them", () => {
    const acks = releaseAdminAcks(from);
    expect(acks?.gates).toEqual({
      'ack-4.18-kube-1.32-api-removals-in-4.19': 'Kubernetes 1.32 removes APIs.',
      'ack-4.17-old-in-4.18': 'an older gate',
    });
    const plan = computeUpgradePlan({ from, to: minor, ...(acks ? { adminAcks: acks } : {}) });
    expect(plan.adminAcks).toEqual({
      pending: [{ gate: 'ack-4.18-kube-1.32-api-removals-in-4.19', description: 'Kubernetes 1.32 removes APIs.' }],
      patch: `oc -n openshift-config patch cm admin-acks --patch '{"data":{"ack-4.18-kube-1.32-api-removals-in-4.19":"true"}}' --type=merge`,
    });
    expect(formatPlan(plan)).toContain(
      `  oc -n openshift-config patch cm admin-acks --patch '{"data":{"ack-4.18-kube-1.32-api-removals-in-4.19":"true"}}' --type=merge`,
    );
    // a patch update needs no ack; an acknowledged gate is not listed
    expect(computeUpgradePlan({ from, to, ...(acks ? { adminAcks: acks } : {}) }).adminAcks).toBeUndefined();
    expect(
      computeUpgradePlan({
        from,
        to: minor,
        adminAcks: {
          history: [{ state: 'Completed', version: '4.18.0' }],
          gates: acks?.gates ?? {},
          acks: { 'ack-4.18-kube-1.32-api-removals-in-4.19': 'true' },
        },
      }).adminAcks,
    ).toBeUndefined();
  });
});
