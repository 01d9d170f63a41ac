/**
 * `keelson payload manifests --kubeconfig` (issue 22 §1) as a real child process against the embedded API server with
 * the upstream CRDs: the manifests are filtered with what the cluster's CVO uses (FeatureGate `cluster` for the version
 * it runs, the capabilities of ClusterVersion's status, its overrides); flags replace the cluster's values. And
 * `upgrade plan`'s facts take the same capabilities and overrides from a live cluster.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '@keelson/api';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { writeTestRelease } from '@keelson/payload-gen';
import { parse } from 'yaml';
import { planFacts } from '../src/commands/upgrade-plan.js';
import type { LiveCluster } from '../src/plan/cluster.js';
import { cli } from './cli-helpers.js';

const FEATUREGATE_CRD = fileURLToPath(
  new URL('./fixtures/upstream/crds/0000_10_config-operator_01_featuregates.crd.yaml', import.meta.url),
);
const T = '2026-01-01T00:00:00Z';

let dir = '';
let release = '';
let kubeconfig = '';
let sb: Sandbox;

const cm = (name: string, annotations: Record<string, string>): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: openshift-config\n  annotations:\n${Object.entries(
    { 'include.release.openshift.io/self-managed-high-availability': 'true', ...annotations },
  )
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join('\n')}\n`;

async function req(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sb.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const out = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${String(res.status)} ${JSON.stringify(out)}`);
  return out;
}

/** Creates a cluster-scoped object, then writes its status through /status. */
async function create(base: string, obj: { metadata: { name: string }; status?: unknown }): Promise<void> {
  const { status, ...rest } = obj;
  const created = await req('POST', base, rest);
  if (status !== undefined) await req('PUT', `${base}/${obj.metadata.name}/status`, { ...created, status });
}

const CAPABILITIES = { knownCapabilities: ['Console', 'Insights'], enabledCapabilities: ['Console'] };
const OVERRIDE = {
  kind: 'ConfigMap',
  group: '',
  namespace: 'openshift-config',
  name: 'facts-unmanaged',
  unmanaged: true,
};

function clusterVersion(): ClusterVersion {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version' },
    spec: { clusterID: '6d8a2a5e-4a8b-4c39-9d64-2a1b4b9f3c11', overrides: [OVERRIDE] },
    status: {
      desired: { version: '4.18.0', image: 'quay.io/example/release@sha256:' + 'a'.repeat(64) },
      history: [
        { state: 'Completed', startedTime: T, completionTime: T, version: '4.18.0', image: '', verified: false },
      ],
      observedGeneration: 1,
      versionHash: 'h',
      availableUpdates: null,
      capabilities: CAPABILITIES,
    },
  } as unknown as ClusterVersion;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payload-manifests-cluster-'));
  release = await writeTestRelease(join(dir, 'release'), { version: '4.18.0' });
  await writeFile(
    join(release, 'release-manifests', '0000_95_cluster-facts_01_configmaps.yaml'),
    [
      cm('facts-gate-x', { 'release.openshift.io/feature-gate': 'GateX' }),
      cm('facts-tech-preview', { 'release.openshift.io/feature-set': 'TechPreviewNoUpgrade' }),
      cm('facts-console', { 'capability.openshift.io/name': 'Console' }),
      cm('facts-insights', { 'capability.openshift.io/name': 'Insights' }),
      cm('facts-unmanaged', {}),
    ].join('---\n'),
  );
  sb = await startSandbox({ openshiftCrds: ['ClusterVersion'] });
  await req(
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    parse(await readFile(FEATUREGATE_CRD, 'utf8')),
  );
  await create('/apis/config.openshift.io/v1/clusterversions', clusterVersion() as never);
  await create('/apis/config.openshift.io/v1/featuregates', {
    apiVersion: 'config.openshift.io/v1',
    kind: 'FeatureGate',
    metadata: { name: 'cluster' },
    spec: { featureSet: 'TechPreviewNoUpgrade' },
    status: {
      featureGates: [
        { version: '4.18.0', enabled: [{ name: 'GateX' }], disabled: [] },
        { version: '4.17.0', enabled: [{ name: 'Old' }], disabled: [] },
      ],
    },
  } as never);
  kubeconfig = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
}, 60_000);

afterAll(async () => {
  await sb.stop();
  await rm(dir, { recursive: true, force: true });
});

type Listing = { included: { name: string }[]; excluded: { id: string; rule: string; reason: string }[] };
const ours = (names: string[]): string[] => names.filter((n) => n.startsWith('facts-')).sort();

describe('payload manifests --kubeconfig', () => {
  it("filters with the cluster's feature set, gates, capabilities and overrides", async () => {
    const offline = await cli('payload', 'manifests', '-o', 'json', '--explain', release);
    expect(offline.code, offline.stderr).toBe(0);
    expect(ours((JSON.parse(offline.stdout) as Listing).included.map((m) => m.name))).toEqual([
      'facts-console',
      'facts-insights',
      'facts-unmanaged',
    ]);
    const live = await cli('payload', 'manifests', '-o', 'json', '--explain', '--kubeconfig', kubeconfig, release);
    expect(live.code, live.stderr).toBe(0);
    const l = JSON.parse(live.stdout) as Listing;
    expect(ours(l.included.map((m) => m.name))).toEqual(['facts-console', 'facts-gate-x', 'facts-tech-preview']);
    const why = Object.fromEntries(l.excluded.map((e) => [e.id.split('/').at(-1) ?? '', e.rule]));
    expect(why['facts-insights']).toBe('capability');
    expect(why['facts-unmanaged']).toBe('override');
  });

  it('flags replace what the cluster says', async () => {
    const r = await cli(
      'payload',
      'manifests',
      '-o',
      'json',
      '--kubeconfig',
      kubeconfig,
      '--feature-set',
      'Default',
      '--feature-gates',
      '',
      '--capabilities',
      'Insights',
      release,
    );
    expect(r.code, r.stderr).toBe(0);
    // the override still comes from the cluster: no flag says otherwise
    expect(ours((JSON.parse(r.stdout) as Listing).included.map((m) => m.name))).toEqual(['facts-insights']);
  });

  it('says so when the cluster cannot be read', async () => {
    const r = await cli('payload', 'manifests', '--kubeconfig', join(dir, 'missing'), release);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--kubeconfig: cannot read the cluster: cannot load kubeconfig');
  });
});

describe('upgrade plan --kubeconfig facts', () => {
  it("carry the cluster's capabilities and overrides with its feature set and gates", () => {
    const live = {
      clusterVersion: clusterVersion(),
      operators: [],
      pools: [],
      machineConfigs: [],
      signatureConfigMaps: [],
      featureGate: {
        spec: { featureSet: 'TechPreviewNoUpgrade' },
        status: { featureGates: [{ version: '4.18.0', enabled: [{ name: 'GateX' }] }] },
      },
    } satisfies LiveCluster;
    expect(planFacts({}, live, '4.18.0')).toEqual({
      featureSet: 'TechPreviewNoUpgrade',
      enabledFeatureGates: ['GateX'],
      capabilities: { known: ['Console', 'Insights'], enabled: ['Console'] },
      overrides: [OVERRIDE],
    });
  });
});
