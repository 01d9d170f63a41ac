/**
 * Issue 22 §1: the CVO reads FeatureGate `cluster` at start and filters manifests by `release.openshift.io/feature-set`
 * and `release.openshift.io/feature-gate` (`,`-list, `-` negation) as upstream's `Manifest.Include`, skips
 * `exclude.release.openshift.io/<EXCLUDE_MANIFESTS>`, reloads the payload when the enabled gates change and stops when
 * the feature set changes (upstream's feature-change stopper). The FeatureGate CRD is upstream's (openshift/api).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type CvoEvent, type RunningCvo } from '../src/index.js';
import { extractEnabledGates, type FeatureGate } from '../src/operator/featuregates.js';
import { FIXTURES, OperatorReporterDouble, startCluster, waitFor, writeFixturePayload } from './helpers.js';

const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
const FG_PATH = '/apis/config.openshift.io/v1/featuregates/cluster';
const CM_PATH = '/api/v1/namespaces/openshift-cluster-version/configmaps';

/** Test ConfigMaps and the annotations that include or exclude them. */
const GATED: [name: string, annotations: Record<string, string>][] = [
  ['fg-techpreview', { 'release.openshift.io/feature-set': 'TechPreviewNoUpgrade' }],
  ['fg-default-only', { 'release.openshift.io/feature-set': 'Default' }],
  ['fg-default-or-techpreview', { 'release.openshift.io/feature-set': 'Default,TechPreviewNoUpgrade' }],
  ['fg-gate-a', { 'release.openshift.io/feature-gate': 'GateA' }],
  ['fg-gate-a-and-b', { 'release.openshift.io/feature-gate': 'GateA,GateB' }],
  ['fg-not-b', { 'release.openshift.io/feature-gate': '-GateB' }],
  ['fg-excluded', { 'exclude.release.openshift.io/hosted': 'true' }],
];

function gatedManifests(): string {
  return GATED.map(([name, annotations]) =>
    toYaml({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: 'openshift-cluster-version',
        annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true', ...annotations },
      },
      data: { k: 'v' },
    }),
  ).join('---\n');
}

function featureGate(featureSet: string, enabled: string[], disabled: string[]): Record<string, unknown> {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'FeatureGate',
    metadata: { name: 'cluster' },
    spec: { featureSet },
    status: {
      featureGates: [
        { version: '4.18.0', enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) },
        { version: '4.17.0', enabled: [{ name: 'OldGate' }], disabled: [] },
      ],
    },
  };
}

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let cvo: RunningCvo;
let reporter: OperatorReporterDouble;
const events: CvoEvent[] = [];

async function configMaps(): Promise<string[]> {
  const list = await client.request<{ items: { metadata: { name: string } }[] }>('GET', CM_PATH);
  return list.items
    .map((c) => c.metadata.name)
    .filter((n) => n.startsWith('fg-'))
    .sort();
}

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  const crd = parseYaml(
    await readFile(join(FIXTURES, 'upstream', '0000_10_config-operator_01_featuregates.crd.yaml'), 'utf8'),
  ) as Record<string, unknown>;
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  await waitFor(
    () => client.request('GET', '/apis/config.openshift.io/v1/featuregates').then(() => true),
    10_000,
    'the FeatureGate API',
  );
  const fg = featureGate('TechPreviewNoUpgrade', ['GateA'], ['GateB']);
  const created = await client.request<Record<string, unknown>>('POST', '/apis/config.openshift.io/v1/featuregates', {
    body: fg,
  });
  await client.request('PUT', `${FG_PATH}/status`, { body: { ...created, status: fg['status'] } });
  const payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0');
  await writeFile(join(payloadA, 'release-manifests', '0000_05_fg-test_01_configmaps.yaml'), gatedManifests());
  reporter = new OperatorReporterDouble(client);
  reporter.start();
  cvo = await startClusterVersionOperator({
    kubeconfig: await sandbox.writeKubeconfig(join(dir, 'kc')),
    payloadDir: payloadA,
    releaseImage: IMAGE_A,
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    updateService: 'http://127.0.0.1:9/graph',
    timeScale: 0.002,
    excludeManifests: 'hosted',
    intervals: { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 },
    logger: nullLogger,
    onEvent: (e) => events.push(e),
  });
}, 60_000);

afterAll(async () => {
  reporter?.stop();
  await cvo?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('feature sets, feature gates and EXCLUDE_MANIFESTS (issue 22 §1)', () => {
  it('extracts the gates enabled for the current version only', () => {
    const fg = featureGate('', ['B', 'A'], ['C']) as unknown as FeatureGate;
    expect(extractEnabledGates(fg, '4.18.0')).toEqual(['A', 'B']);
    expect(extractEnabledGates(fg, '4.19.0')).toEqual([]);
    expect(extractEnabledGates(undefined, '4.18.0')).toEqual([]);
  });

  it('applies the manifests of the TechPreview feature set and of the enabled gates, not the excluded ones', async () => {
    await waitFor(
      async () =>
        (
          await client.request<{ status?: { history?: { state: string }[] } }>(
            'GET',
            '/apis/config.openshift.io/v1/clusterversions/version',
          )
        ).status?.history?.[0]?.state === 'Completed',
      30_000,
      'install Completed',
    );
    expect(await configMaps()).toEqual(['fg-default-or-techpreview', 'fg-gate-a', 'fg-not-b', 'fg-techpreview']);
  });

  it('reloads the payload when the enabled gates change', async () => {
    const fg = await client.request<Record<string, unknown>>('GET', FG_PATH);
    await client.request('PUT', `${FG_PATH}/status`, {
      body: { ...fg, status: featureGate('TechPreviewNoUpgrade', ['GateA', 'GateB'], [])['status'] },
    });
    await waitFor(
      async () => (await configMaps()).includes('fg-gate-a-and-b'),
      20_000,
      'the GateA,GateB manifest applied',
    );
    // manifests a gate now excludes are no longer managed (not deleted), as upstream
    expect(await configMaps()).toEqual([
      'fg-default-or-techpreview',
      'fg-gate-a',
      'fg-gate-a-and-b',
      'fg-not-b',
      'fg-techpreview',
    ]);
    expect(events.some((e) => e.type === 'featureSetChanged')).toBe(false);
  });

  it('stops when the feature set changes (the pod restarts with the new set)', async () => {
    // TechPreviewNoUpgrade may not be changed (the CRD's validation rule); deleting the FeatureGate means Default
    await client.request('DELETE', FG_PATH);
    const changed = await waitFor(
      () => Promise.resolve(events.find((e) => e.type === 'featureSetChanged')),
      20_000,
      'featureSetChanged',
    );
    expect(changed).toEqual({ type: 'featureSetChanged', from: 'TechPreviewNoUpgrade', to: '' });
    await waitFor(() => Promise.resolve(!cvo.isLeader()), 20_000, 'the operator stopped');
  });
});
