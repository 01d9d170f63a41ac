/**
 * Issue 22 §4/§5 against the embedded API server with upstream's CRDs (openshift/api): the CVO reads Infrastructure
 * `cluster` for single-node leader-election timings and its own Deployment's internal load balancer, Proxy `cluster`
 * for `config.openshift.io/inject-proxy`, the PromQL Service's ClusterIP, and `openshift-config/openshift-install`
 * for `cluster_installer`.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type RunningCvo } from '../src/index.js';
import { DEFAULT_PROMQL_TARGET, promqlOptions } from '../src/cluster/promql.js';
import { FIXTURES, OperatorReporterDouble, startCluster, waitFor, writeFixturePayload } from './helpers.js';

const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
const CONFIG = '/apis/config.openshift.io/v1';

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let cvo: RunningCvo;
let reporter: OperatorReporterDouble;

async function installCrd(file: string, plural: string): Promise<void> {
  const crd = parseYaml(await readFile(join(FIXTURES, 'upstream', file), 'utf8')) as Record<string, unknown>;
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  await waitFor(() => client.request('GET', `${CONFIG}/${plural}`).then(() => true), 10_000, `the ${plural} API`);
}

/** Creates a cluster-scoped config object and writes its status through `/status`, as the operators owning it do. */
async function createWithStatus(plural: string, kind: string, spec: unknown, status: unknown): Promise<void> {
  const created = await client.request<Record<string, unknown>>('POST', `${CONFIG}/${plural}`, {
    body: { apiVersion: 'config.openshift.io/v1', kind, metadata: { name: 'cluster' }, spec },
  });
  await client.request('PUT', `${CONFIG}/${plural}/cluster/status`, { body: { ...created, status } });
}

const proxied = toYaml({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'proxied',
    namespace: 'openshift-cluster-version',
    annotations: {
      'include.release.openshift.io/self-managed-high-availability': 'true',
      'config.openshift.io/inject-proxy': 'app',
    },
  },
  spec: {
    selector: { matchLabels: { app: 'proxied' } },
    template: {
      metadata: { labels: { app: 'proxied' } },
      spec: { containers: [{ name: 'app', image: 'quay.io/x/app@sha256:' + 'b'.repeat(64) }] },
    },
  },
});

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  await installCrd('0000_10_config-operator_01_infrastructures-Default.crd.yaml', 'infrastructures');
  await installCrd('0000_03_config-operator_01_proxies.crd.yaml', 'proxies');
  await createWithStatus(
    'infrastructures',
    'Infrastructure',
    { platformSpec: { type: 'None' } },
    {
      controlPlaneTopology: 'SingleReplica',
      infrastructureTopology: 'SingleReplica',
      apiServerInternalURI: 'https://api-int.sno.example:6443',
      apiServerURL: 'https://api.sno.example:6443',
      infrastructureName: 'sno-x1',
      platform: 'None',
      cpuPartitioning: 'None',
    },
  );
  await createWithStatus(
    'proxies',
    'Proxy',
    { httpProxy: 'http://proxy.example:3128' },
    { httpProxy: 'http://proxy.example:3128', httpsProxy: '', noProxy: '.cluster.local,.svc' },
  );
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-config' } },
  });
  await client.request('POST', '/api/v1/namespaces/openshift-config/configmaps', {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'openshift-install', namespace: 'openshift-config' },
      data: { version: 'v4.20.0', invoker: 'user' },
    },
  });
  const payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0');
  await writeFile(join(payloadA, 'release-manifests', '0000_05_proxied_01_deployment.yaml'), proxied);
  reporter = new OperatorReporterDouble(client);
  reporter.start();
  cvo = await startClusterVersionOperator({
    kubeconfig: await sandbox.writeKubeconfig(join(dir, 'kc')),
    payloadDir: payloadA,
    releaseImage: IMAGE_A,
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    updateService: 'http://127.0.0.1:9/graph',
    timeScale: 0.1,
    logger: nullLogger,
  });
}, 60_000);

afterAll(async () => {
  reporter?.stop();
  await cvo?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the cluster configuration the CVO reads (issue 22 §4, §5)', () => {
  it('takes single-node leader-election timings on a SingleReplica control plane (270 s / 240 s / 60 s scaled)', async () => {
    const lease = await waitFor(
      () =>
        client
          .request<{ spec?: { leaseDurationSeconds?: number; holderIdentity?: string } }>(
            'GET',
            '/apis/coordination.k8s.io/v1/namespaces/openshift-cluster-version/leases/version',
          )
          .then((l) => (l.spec?.holderIdentity ? l : undefined))
          .catch(() => undefined),
      20_000,
      'the Lease',
    );
    expect(lease.spec?.leaseDurationSeconds).toBe(27);
  });

  it('applies the proxy to inject-proxy containers and the internal load balancer to its own Deployment', async () => {
    type Dep = { spec: { template: { spec: { containers: Array<{ name: string; env?: unknown[] }> } } } };
    const dep = await waitFor(
      () =>
        client
          .request<Dep>('GET', '/apis/apps/v1/namespaces/openshift-cluster-version/deployments/proxied')
          .catch(() => undefined),
      30_000,
      'Deployment proxied',
    );
    expect(dep.spec.template.spec.containers[0]?.env).toEqual([
      { name: 'HTTP_PROXY', value: 'http://proxy.example:3128' },
      { name: 'HTTPS_PROXY' },
      { name: 'NO_PROXY', value: '.cluster.local,.svc' },
    ]);
    const own = await waitFor(
      () =>
        client
          .request<Dep>(
            'GET',
            '/apis/apps/v1/namespaces/openshift-cluster-version/deployments/cluster-version-operator',
          )
          .catch(() => undefined),
      30_000,
      'Deployment cluster-version-operator',
    );
    const env = own.spec.template.spec.containers[0]?.env ?? [];
    expect(env).toContainEqual({ name: 'KUBERNETES_SERVICE_HOST', value: 'api-int.sno.example' });
    expect(env).toContainEqual({ name: 'KUBERNETES_SERVICE_PORT', value: '6443' });
  });

  it('reports cluster_installer from openshift-config/openshift-install', async () => {
    const m = await waitFor(
      async () => {
        const text = await (await fetch(`${cvo.metricsUrl}/metrics`)).text();
        return text.includes('cluster_installer{type="openshift-install"') ? text : undefined;
      },
      20_000,
      'cluster_installer',
    );
    expect(m).toContain('cluster_installer{type="openshift-install",version="v4.20.0",invoker="user"} 1');
  });

  it("queries PromQL at the thanos-querier Service's ClusterIP unless DNS is used", async () => {
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-monitoring' } },
    });
    const svc = await client.request<{ spec: { clusterIP: string } }>(
      'POST',
      '/api/v1/namespaces/openshift-monitoring/services',
      {
        body: {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'thanos-querier', namespace: 'openshift-monitoring' },
          spec: { ports: [{ name: 'web', port: 9091 }] },
        },
      },
    );
    const opts = promqlOptions(DEFAULT_PROMQL_TARGET, client);
    expect(opts).toMatchObject({
      url: 'https://thanos-querier.openshift-monitoring.svc.cluster.local:9091',
      tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
      caFile: '/etc/tls/service-ca/service-ca.crt',
    });
    expect(await opts.resolveHost?.()).toBe(`${svc.spec.clusterIP}:9091`);
    expect(promqlOptions({ ...DEFAULT_PROMQL_TARGET, useDNS: true }, client).resolveHost).toBeUndefined();
    const missing = promqlOptions({ ...DEFAULT_PROMQL_TARGET, service: { namespace: 'x', name: 'y' } }, client);
    await expect(missing.resolveHost?.()).rejects.toThrow(/not found/);
  });
});
