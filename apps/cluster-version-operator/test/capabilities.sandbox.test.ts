/**
 * Issue 22 §1: capabilities on a cluster with the `None` baseline. `--always-enable-capabilities` makes a capability
 * implicitly enabled; an update whose payload moves a resource the cluster manages under a capability it has not
 * enabled makes that capability implicitly enabled (upstream `GetImplicitlyEnabledCapabilities` when a payload
 * loads), so the resource stays managed, and the ImplicitlyEnabledCapabilities condition says so.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type RunningCvo } from '../src/index.js';
import {
  OperatorReporterDouble,
  Signer,
  startCluster,
  waitFor,
  writeFixturePayload,
  writeOciLayout,
} from './helpers.js';

const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
const CV_PATH = '/apis/config.openshift.io/v1/clusterversions/version';
const NS = 'openshift-cluster-version';

interface CV {
  status?: {
    history?: { state: string; version: string }[];
    capabilities?: { enabledCapabilities?: string[] };
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

function configMap(name: string, value: string, capability?: string): string {
  const annotations: Record<string, string> = { 'include.release.openshift.io/self-managed-high-availability': 'true' };
  if (capability) annotations['capability.openshift.io/name'] = capability;
  return toYaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, annotations },
    data: { release: value },
  });
}

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let cvo: RunningCvo;
let reporter: OperatorReporterDouble;
let imageB = '';

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  await client.request('PATCH', CV_PATH, {
    body: { spec: { capabilities: { baselineCapabilitySet: 'None' } } },
    contentType: 'application/merge-patch+json',
  });
  const signer = await Signer.create();
  const store = join(dir, 'signatures');
  const verification = { publicKey: signer.publicKey(), store: `file://${store}` };
  const payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0', { verification });
  const payloadB = await writeFixturePayload(join(dir, 'payload-b'), '4.18.1', { verification });
  // A: cap-console under Console (always enabled), cap-moved with no capability, cap-insights under Insights (disabled)
  await writeFile(
    join(payloadA, 'release-manifests', '0000_05_cap-test_01_configmaps.yaml'),
    [
      configMap('cap-console', 'a', 'Console'),
      configMap('cap-moved', 'a'),
      configMap('cap-insights', 'a', 'Insights'),
    ].join('---\n'),
  );
  // B moves cap-moved under Build, which this cluster has not enabled
  await writeFile(
    join(payloadB, 'release-manifests', '0000_05_cap-test_01_configmaps.yaml'),
    [
      configMap('cap-console', 'b', 'Console'),
      configMap('cap-moved', 'b', 'Build'),
      configMap('cap-insights', 'b', 'Insights'),
    ].join('---\n'),
  );
  const digestB = await writeOciLayout(payloadB, join(dir, 'layout-b'));
  await signer.sign(store, digestB, 'quay.io/keelson/release:4.18.1');
  imageB = `oci:${join(dir, 'layout-b')}@${digestB}`;
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
    alwaysEnableCapabilities: ['Console'],
    intervals: { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 },
    logger: nullLogger,
  });
}, 60_000);

afterAll(async () => {
  reporter?.stop();
  await cvo?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function capConfigMaps(): Promise<Record<string, string>> {
  const list = await client.request<{ items: { metadata: { name: string }; data?: { release?: string } }[] }>(
    'GET',
    `/api/v1/namespaces/${NS}/configmaps`,
  );
  return Object.fromEntries(
    list.items.filter((c) => c.metadata.name.startsWith('cap-')).map((c) => [c.metadata.name, c.data?.release ?? '']),
  );
}

describe('implicitly enabled capabilities (issue 22 §1)', () => {
  it('--always-enable-capabilities: Console is implicitly enabled on a None baseline; Insights stays disabled', async () => {
    const cv = await waitFor(
      async () => {
        const c = await client.request<CV>('GET', CV_PATH);
        return c.status?.history?.[0]?.state === 'Completed' ? c : undefined;
      },
      30_000,
      'install Completed',
    );
    expect(await capConfigMaps()).toEqual({ 'cap-console': 'a', 'cap-moved': 'a' });
    expect(cv.status?.capabilities?.enabledCapabilities).toEqual(['Console']);
    expect(cv.status?.conditions?.find((c) => c.type === 'ImplicitlyEnabledCapabilities')).toMatchObject({
      status: 'True',
      reason: 'CapabilitiesImplicitlyEnabled',
      message: 'The following capabilities could not be disabled: Console',
    });
  });

  it('an update that moves a managed resource under a disabled capability enables that capability implicitly', async () => {
    await client.request('PATCH', CV_PATH, {
      body: { spec: { desiredUpdate: { image: imageB, version: '4.18.1' } } },
      contentType: 'application/merge-patch+json',
    });
    const cv = await waitFor(
      async () => {
        const c = await client.request<CV>('GET', CV_PATH);
        return c.status?.history?.[0]?.version === '4.18.1' && c.status.history[0].state === 'Completed'
          ? c
          : undefined;
      },
      60_000,
      'update Completed',
    );
    expect(await capConfigMaps()).toEqual({ 'cap-console': 'b', 'cap-moved': 'b' });
    expect(cv.status?.capabilities?.enabledCapabilities).toEqual(['Build', 'Console']);
    expect(cv.status?.conditions?.find((c) => c.type === 'ImplicitlyEnabledCapabilities')?.message).toBe(
      'The following capabilities could not be disabled: Build, Console',
    );
  });
});
