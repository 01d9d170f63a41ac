/**
 * `keelson upgrade plan --kubeconfig` with the cluster's capabilities (issue 22 §1): B's manifests are filtered with
 * the capabilities the CVO enables implicitly when it loads B (upstream `GetImplicitlyEnabledCapabilities`): a
 * resource A manages under an enabled capability that B files under a disabled one keeps being applied, and so is
 * everything else of that capability.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTestRelease } from '@keelson/payload-gen';
import { openPayload, type ClusterFacts, type ReleasePayload } from '@keelson/release-payload';
import { computeUpgradePlan, targetFacts } from '../src/plan/compute-plan.js';
import { formatPlan } from '../src/plan/format.js';

let dir = '';
let from: ReleasePayload;
let to: ReleasePayload;

const cm = (name: string, capability: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: openshift-config\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\n    capability.openshift.io/name: ${capability}\n`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plan-capabilities-'));
  const a = await writeTestRelease(join(dir, 'a'), { version: '4.18.0' });
  const b = await writeTestRelease(join(dir, 'b'), { version: '4.18.1' });
  await writeFile(join(a, 'release-manifests', '0000_96_caps_01_configmaps.yaml'), cm('moved', 'Console'));
  await writeFile(
    join(b, 'release-manifests', '0000_96_caps_01_configmaps.yaml'),
    [cm('moved', 'Insights'), cm('insights-only', 'Insights'), cm('storage-only', 'Storage')].join('---\n'),
  );
  [from, to] = await Promise.all([openPayload(a), openPayload(b)]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const facts: ClusterFacts = {
  featureSet: '',
  enabledFeatureGates: [],
  capabilities: { known: ['Console', 'Insights', 'Storage'], enabled: ['Console'] },
};
const level96 = (plan: ReturnType<typeof computeUpgradePlan>): number =>
  plan.runLevels.find((l) => l.level === '96')?.manifests ?? 0;

describe('upgrade plan implicitly enabled capabilities', () => {
  it('B is filtered with the capabilities the CVO enables when it loads B', () => {
    expect(targetFacts({ from, to, facts }).implicit).toEqual(['Insights']);
    const plan = computeUpgradePlan({ from, to, facts });
    expect(plan.implicitlyEnabledCapabilities).toEqual(['Insights']);
    expect(level96(plan)).toBe(2); // moved + insights-only; storage-only stays disabled
    expect(formatPlan(plan)).toContain(
      'Capabilities enabled implicitly by 4.18.1 (ClusterVersion ImplicitlyEnabledCapabilities=True CapabilitiesImplicitlyEnabled):\n  The following capabilities could not be disabled: Insights\n',
    );
  });

  it('nothing is implicit without a cluster (no capabilities) or when the capability is enabled', () => {
    expect(computeUpgradePlan({ from, to }).implicitlyEnabledCapabilities).toBeUndefined();
    const enabled = { ...facts, capabilities: { known: ['Console', 'Insights'], enabled: ['Console', 'Insights'] } };
    const plan = computeUpgradePlan({ from, to, facts: enabled });
    expect(plan.implicitlyEnabledCapabilities).toBeUndefined();
    expect(level96(plan)).toBe(2);
  });
});
