/**
 * The operator reads Infrastructure and DNS `cluster` from informers (upstream's infraLister / dnsLister), not by a GET
 * on every sync: a change of DNS reaches the ControllerConfig through the watch, and resyncs issue no GET of either.
 * Real operator on the embedded API server, its requests counted by a loopback proxy.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigMaps, ControllerConfigs, KubeConfig, nullLogger } from '@keelson/kube';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';

const NS = 'openshift-machine-config-operator';
const OS = `quay.io/test/rhcos@sha256:${'3'.repeat(64)}`;

/** A minimal cluster-scoped config.openshift.io CRD (schema open) for Infrastructure or DNS. */
function configCrd(kind: string, plural: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.config.openshift.io` },
    spec: {
      group: 'config.openshift.io',
      scope: 'Cluster',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

/** Forwards to `target`, counting `METHOD path` (query dropped). */
async function countingProxy(target: string): Promise<{ server: Server; url: string; counts: Map<string, number> }> {
  const t = new URL(target);
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const key = `${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const up = httpRequest(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        res.flushHeaders();
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts };
}

describe('operator cluster configuration (Infrastructure, DNS)', () => {
  let tc: TestCluster;
  let operator: Running | undefined;
  let proxy: Awaited<ReturnType<typeof countingProxy>> | undefined;
  beforeEach(async () => {
    tc = await startTestCluster();
  });
  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
    proxy?.server.closeAllConnections();
    proxy?.server.close();
    await tc.stop();
  });

  it('follows DNS changes through its informer and never GETs either object on a resync', async () => {
    for (const [kind, plural] of [
      ['Infrastructure', 'infrastructures'],
      ['DNS', 'dnses'],
    ] as const) {
      await tc.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: configCrd(kind, plural),
      });
      await waitFor(
        `${plural} served`,
        async () => (await tc.client.request('GET', `/apis/config.openshift.io/v1/${plural}`)) ?? undefined,
      );
    }
    await tc.client.request('POST', '/apis/config.openshift.io/v1/infrastructures', {
      body: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Infrastructure',
        metadata: { name: 'cluster' },
        spec: {},
        status: {
          platform: 'None',
          controlPlaneTopology: 'HighlyAvailable',
          infrastructureTopology: 'HighlyAvailable',
        },
      },
    });
    await tc.client.request('POST', '/apis/config.openshift.io/v1/dnses', {
      body: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'DNS',
        metadata: { name: 'cluster' },
        spec: { baseDomain: 'one.example.com' },
      },
    });
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: NS },
      data: { baseOSContainerImage: OS, baseOSExtensionsContainerImage: '', releaseVersion: '4.99.0' },
    });

    proxy = await countingProxy(tc.sandbox.url);
    const kc = new KubeConfig();
    kc.loadFromString(tc.sandbox.kubeconfigYaml().replace(/server: \S+/, `server: ${proxy.url}`));
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: kc,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 50,
      leaderElection: false,
      health: false,
    });
    const baseDomain = async (): Promise<unknown> => {
      const cc = await tc.client
        .resource(ControllerConfigs)
        .get('machine-config-controller')
        .catch(() => undefined);
      return (cc?.spec as { dns?: { spec?: { baseDomain?: string } } } | undefined)?.dns?.spec?.baseDomain;
    };
    await waitFor('ControllerConfig with the first base domain', async () =>
      (await baseDomain()) === 'one.example.com' ? true : undefined,
    );

    const dns = await tc.client.request<Record<string, unknown>>('GET', '/apis/config.openshift.io/v1/dnses/cluster');
    await tc.client.request('PUT', '/apis/config.openshift.io/v1/dnses/cluster', {
      body: { ...dns, spec: { baseDomain: 'two.example.com' } },
    });
    await waitFor('ControllerConfig with the new base domain', async () =>
      (await baseDomain()) === 'two.example.com' ? true : undefined,
    );
    // many resyncs (every 50 ms) later, still no GET of either object: the informers' list and watch only
    await new Promise((r) => setTimeout(r, 600));
    const gets = [...proxy.counts].filter(([k]) =>
      /^GET \/apis\/config\.openshift\.io\/v1\/(infrastructures|dnses)\/cluster$/.test(k),
    );
    expect(gets).toEqual([]);
    expect(proxy.counts.get('GET /apis/config.openshift.io/v1/dnses')).toBeGreaterThanOrEqual(1);
  });

  it('reads the ConfigMaps and the image-registry ClusterOperator of its syncs from informers (upstream listers)', async () => {
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: NS },
      data: { baseOSContainerImage: OS, baseOSExtensionsContainerImage: '', releaseVersion: '4.99.0' },
    });
    proxy = await countingProxy(tc.sandbox.url);
    const kc = new KubeConfig();
    kc.loadFromString(tc.sandbox.kubeconfigYaml().replace(/server: \S+/, `server: ${proxy.url}`));
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: kc,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 50,
      leaderElection: false,
      health: false,
    });
    const rootCA = async (): Promise<string | undefined> =>
      (
        await tc.client
          .resource(ControllerConfigs)
          .get('machine-config-controller')
          .catch(() => undefined)
      )?.spec.rootCAData;
    const first = await waitFor('ControllerConfig', rootCA);
    // machine-config-server-ca (in the operator's namespace) takes over from kube-system/root-ca through the watch
    const kubeSystemRoot = await tc.client.resource(ConfigMaps).get('root-ca', 'kube-system');
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-server-ca', namespace: NS },
      data: { 'ca-bundle.crt': `${kubeSystemRoot.data?.['ca.crt'] ?? ''}${kubeSystemRoot.data?.['ca.crt'] ?? ''}` },
    });
    await waitFor('ControllerConfig with the MCS CA', async () => ((await rootCA()) !== first ? true : undefined));
    // many resyncs (every 50 ms) later: the informers' lists and watches, no GET of a ConfigMap or ClusterOperator
    await new Promise((r) => setTimeout(r, 600));
    const gets = [...proxy.counts].filter(([k]) =>
      /^GET \/(api\/v1\/namespaces\/[^/]+\/configmaps|apis\/config\.openshift\.io\/v1\/clusteroperators)\/[^/]+$/.test(
        k,
      ),
    );
    expect(gets).toEqual([]);
    expect(proxy.counts.get(`GET /api/v1/namespaces/${NS}/configmaps`)).toBeGreaterThanOrEqual(1);
    expect(proxy.counts.get('GET /apis/config.openshift.io/v1/clusteroperators')).toBeGreaterThanOrEqual(2);
  });

  it('on a cluster without the Infrastructure and DNS types, GETs each once, not on every resync', async () => {
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: NS },
      data: { baseOSContainerImage: OS, baseOSExtensionsContainerImage: '', releaseVersion: '4.99.0' },
    });
    proxy = await countingProxy(tc.sandbox.url);
    const kc = new KubeConfig();
    kc.loadFromString(tc.sandbox.kubeconfigYaml().replace(/server: \S+/, `server: ${proxy.url}`));
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: kc,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 50,
      leaderElection: false,
      health: false,
    });
    const cc = await waitFor('ControllerConfig', () =>
      tc.client
        .resource(ControllerConfigs)
        .get('machine-config-controller')
        .catch(() => undefined),
    );
    expect((cc.spec as { dns?: { spec?: { baseDomain?: string } } }).dns?.spec?.baseDomain).toBe('');
    await new Promise((r) => setTimeout(r, 600));
    expect(proxy.counts.get('GET /apis/config.openshift.io/v1/infrastructures/cluster')).toBe(1);
    expect(proxy.counts.get('GET /apis/config.openshift.io/v1/dnses/cluster')).toBe(1);
  });
});
