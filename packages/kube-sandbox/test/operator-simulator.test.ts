/**
 * The cluster-operator SIMULATOR against the embedded sandbox over real HTTP: it watches ClusterOperators
 * created as the CVO creates them, waits for the pod simulator to roll the Deployments out, and reports through
 * the /status subresource of the upstream ClusterOperator CRD (served from @keelson/api).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  expectedVersionsFromManifests,
  startOperatorSimulator,
  startSandbox,
  type OperatorSimulator,
  type Sandbox,
} from '../src/index.js';

vi.setConfig({ testTimeout: 30_000 });

interface Cond {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Co {
  metadata: { resourceVersion: string };
  status?: { versions?: { name: string; version: string }[]; conditions?: Cond[] };
}

let sb: Sandbox | undefined;
let sim: OperatorSimulator | undefined;
afterEach(async () => {
  await sim?.stop();
  await sb?.stop();
  sim = undefined;
  sb = undefined;
});

async function req(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: unknown }> {
  if (!sb) throw new Error('no sandbox');
  const init: RequestInit = { method, headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': contentType } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${sb.url}${path}`, init);
  return { status: res.status, body: await res.json() };
}

/** Creates a ClusterOperator the way the CVO precreates one: the object, then relatedObjects through /status. */
async function createOperator(name: string, namespaces: string[] = []): Promise<void> {
  const r = await req('POST', '/apis/config.openshift.io/v1/clusteroperators', {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterOperator',
    metadata: { name },
    spec: {},
  });
  expect(r.status).toBe(201);
  if (namespaces.length > 0) {
    const s = await req(
      'PATCH',
      `/apis/config.openshift.io/v1/clusteroperators/${name}/status`,
      { status: { relatedObjects: namespaces.map((n) => ({ group: '', resource: 'namespaces', name: n })) } },
      'application/merge-patch+json',
    );
    expect(s.status).toBe(200);
  }
}

async function getOperator(name: string): Promise<Co> {
  return (await req('GET', `/apis/config.openshift.io/v1/clusteroperators/${name}`)).body as Co;
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function cond(co: Co, type: string): Cond | undefined {
  return co.status?.conditions?.find((c) => c.type === type);
}

async function deployment(ns: string, name: string, release: string): Promise<void> {
  const body = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name, image: 'quay.io/x/y@sha256:1', env: [{ name: 'RELEASE_VERSION', value: release }] }],
        },
      },
    },
  };
  const existing = await req('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${name}`);
  const r =
    existing.status === 404
      ? await req('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, body)
      : await req(
          'PATCH',
          `/apis/apps/v1/namespaces/${ns}/deployments/${name}`,
          { spec: body.spec },
          'application/merge-patch+json',
        );
  expect([200, 201]).toContain(r.status);
}

describe('cluster-operator simulator', () => {
  it('reports manifest versions and healthy conditions through /status, with faults per operator', async () => {
    sb = await startSandbox({ openshiftCrds: ['ClusterOperator', 'ClusterVersion'] });
    sim = await startOperatorSimulator({
      kubeconfig: sb.kubeconfigYaml(),
      delayMs: 50,
      waitForDeployments: false,
      versions: expectedVersionsFromManifests([
        {
          apiVersion: 'config.openshift.io/v1',
          kind: 'ClusterOperator',
          metadata: { name: 'etcd' },
          status: {
            versions: [
              { name: 'operator', version: '4.18.3' },
              { name: 'raw-internal', version: '4.18.3' },
            ],
          },
        },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'etcd' } },
      ]),
      faults: {
        dns: { kind: 'degraded', reason: 'DNSDegraded', message: 'dns is sad' },
        console: { kind: 'never' },
        ingress: { kind: 'not-upgradeable', message: 'ack the ingress change' },
      },
    });
    await sim.synced;
    for (const n of ['etcd', 'dns', 'console', 'ingress', 'machine-config']) await createOperator(n);

    const etcd = await eventually('etcd report', async () => {
      const co = await getOperator('etcd');
      return co.status?.versions ? co : undefined;
    });
    expect(etcd.status?.versions).toEqual([
      { name: 'operator', version: '4.18.3' },
      { name: 'raw-internal', version: '4.18.3' },
    ]);
    expect(cond(etcd, 'Available')).toMatchObject({ status: 'True', reason: 'AsExpected' });
    expect(cond(etcd, 'Progressing')).toMatchObject({ status: 'False' });
    expect(cond(etcd, 'Degraded')).toMatchObject({ status: 'False' });

    // dns and ingress have no manifest versions, no Deployments and there is no ClusterVersion yet: nothing to report
    await new Promise((r) => setTimeout(r, 200));
    expect((await getOperator('dns')).status).toBeUndefined();
    // once the ClusterVersion says which release is desired, they report it
    await req('POST', '/apis/config.openshift.io/v1/clusterversions', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '6d8a2a5e-4a8b-4c39-9d64-2a1b4b9f3c11' },
    });
    // status written as the CVO writes it: a PUT of /status (availableUpdates is required and nullable)
    const cv = (await req('GET', '/apis/config.openshift.io/v1/clusterversions/version')).body as Record<
      string,
      unknown
    >;
    const st = await req('PUT', '/apis/config.openshift.io/v1/clusterversions/version/status', {
      ...cv,
      status: {
        desired: { version: '4.18.3', image: 'quay.io/r@sha256:1' },
        availableUpdates: null,
        observedGeneration: 1,
        versionHash: 'x',
      },
    });
    expect(st.status).toBe(200);
    const dns = await eventually('dns report', async () => {
      const co = await getOperator('dns');
      return co.status?.conditions ? co : undefined;
    });
    expect(dns.status?.versions).toEqual([{ name: 'operator', version: '4.18.3' }]);
    expect(cond(dns, 'Degraded')).toMatchObject({ status: 'True', reason: 'DNSDegraded', message: 'dns is sad' });
    const ingress = await eventually('ingress report', async () => {
      const co = await getOperator('ingress');
      return co.status?.conditions ? co : undefined;
    });
    expect(cond(ingress, 'Upgradeable')).toMatchObject({
      status: 'False',
      reason: 'SimulatedFault',
      message: 'ack the ingress change',
    });
    expect(cond(ingress, 'Available')?.status).toBe('True');

    // "never" and the excluded machine-config stay untouched
    await new Promise((r) => setTimeout(r, 200));
    expect((await getOperator('console')).status).toBeUndefined();
    expect((await getOperator('machine-config')).status).toBeUndefined();

    // broken watches and a compacted history (410 Gone on resume): the informers relist and keep reporting
    sb.closeWatches();
    sb.compactHistory();
    await createOperator('network');
    const network = await eventually('network report after broken watches', async () => {
      const co = await getOperator('network');
      return co.status?.versions ? co : undefined;
    });
    expect(network.status?.versions).toEqual([{ name: 'operator', version: '4.18.3' }]);
    expect(sim.reports.map((r) => r.name)).not.toContain('console');
  });

  it('follows the ClusterVersion desired version, and reports only after the Deployments rolled out', async () => {
    sb = await startSandbox({
      openshiftCrds: ['ClusterOperator', 'ClusterVersion'],
      simulatePods: true,
      nodes: ['master-0'],
      simulateOperators: { delayMs: 20 },
    });
    sim = sb.operatorSimulator;
    expect(sim).toBeDefined();
    await req('POST', '/api/v1/namespaces', { metadata: { name: 'openshift-dns-operator' } });
    await createOperator('dns', ['openshift-dns-operator']);
    // no Deployment yet and no ClusterVersion: nothing to report
    await new Promise((r) => setTimeout(r, 200));
    expect((await getOperator('dns')).status?.versions).toBeUndefined();

    await deployment('openshift-dns-operator', 'dns-operator', '4.18.2');
    const first = await eventually('dns at 4.18.2', async () => {
      const co = await getOperator('dns');
      return co.status?.versions?.[0]?.version === '4.18.2' ? co : undefined;
    });
    expect(cond(first, 'Available')?.status).toBe('True');

    // the "CVO" rolls the operator Deployment to the new release: the report follows the rollout
    await deployment('openshift-dns-operator', 'dns-operator', '4.18.3');
    await eventually('dns at 4.18.3', async () =>
      (await getOperator('dns')).status?.versions?.[0]?.version === '4.18.3' ? true : undefined,
    );
    const dnsReports = sb.operatorSimulator?.reports.filter((r) => r.name === 'dns').map((r) => r.versions[0]?.version);
    expect(dnsReports).toEqual(['4.18.2', '4.18.3']);

    // a rollout that cannot finish (its only node is NotReady) holds the report back until it does
    sb.setNodeReady('master-0', false);
    await req('POST', '/api/v1/namespaces', { metadata: { name: 'openshift-ingress-operator' } });
    await createOperator('ingress', ['openshift-ingress-operator']);
    await deployment('openshift-ingress-operator', 'ingress-operator', '4.18.3');
    await new Promise((r) => setTimeout(r, 400));
    expect((await getOperator('ingress')).status?.versions).toBeUndefined();
    sb.setNodeReady('master-0', true);
    await eventually('ingress at 4.18.3', async () =>
      (await getOperator('ingress')).status?.versions?.[0]?.version === '4.18.3' ? true : undefined,
    );
  });
});
