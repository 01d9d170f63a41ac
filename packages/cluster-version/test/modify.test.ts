/** Upstream lib/resourcebuilder modifyDeployment / modifyDaemonSet: inject-proxy and the CVO's internal LB rewrite. */
import { describe, expect, it } from 'vitest';
import {
  injectInternalLoadBalancer,
  modifyManifest,
  splitInternalURI,
  type ClusterConfigReader,
} from '../src/resources/modify.js';
import type { JsonObject } from '../src/resources/merge-core.js';

function workload(kind: string, ns: string, name: string, annotations: Record<string, string> = {}): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace: ns, annotations },
    spec: {
      template: {
        spec: {
          initContainers: [{ name: 'init', image: 'i' }],
          containers: [
            { name: 'main', image: 'm', env: [{ name: 'A', value: '1' }] },
            { name: 'side', image: 's' },
          ],
        },
      },
    },
  };
}

const env = (o: JsonObject, i: number, init = false): unknown =>
  (o as { spec: { template: { spec: Record<string, Array<{ env?: unknown }>> } } }).spec.template.spec[
    init ? 'initContainers' : 'containers'
  ]?.[i]?.env;

function reader(proxy?: Record<string, string>, uri?: string): ClusterConfigReader & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    proxyStatus: () => {
      calls.push('proxy');
      return Promise.resolve(proxy);
    },
    apiServerInternalURI: () => {
      calls.push('infra');
      return Promise.resolve(uri);
    },
  };
}

describe('builder manifest changes (upstream resourcebuilder)', () => {
  it('appends the cluster proxy to the named containers and init containers of Deployments and DaemonSets', async () => {
    const proxy = { httpProxy: 'http://p:3128', httpsProxy: 'http://p:3129', noProxy: '.cluster.local' };
    for (const kind of ['Deployment', 'DaemonSet']) {
      const m = workload(kind, 'ns', 'x', { 'config.openshift.io/inject-proxy': 'main,init' });
      const out = await modifyManifest(m, 'apps', kind, reader(proxy));
      expect(env(out, 0)).toEqual([
        { name: 'A', value: '1' },
        { name: 'HTTP_PROXY', value: 'http://p:3128' },
        { name: 'HTTPS_PROXY', value: 'http://p:3129' },
        { name: 'NO_PROXY', value: '.cluster.local' },
      ]);
      expect(env(out, 0, true)).toHaveLength(3);
      expect(env(out, 1)).toBeUndefined();
      expect(env(m, 0)).toEqual([{ name: 'A', value: '1' }]); // the payload's manifest is not changed
    }
  });

  it('injects nothing without a proxy (absent or empty status) and fails on an unknown container', async () => {
    const m = workload('Deployment', 'ns', 'x', { 'config.openshift.io/inject-proxy': 'nope' });
    expect(await modifyManifest(m, 'apps', 'Deployment', reader(undefined))).toEqual(m);
    expect(await modifyManifest(m, 'apps', 'Deployment', reader({}))).toEqual(m);
    await expect(modifyManifest(m, 'apps', 'Deployment', reader({ httpProxy: 'http://p' }))).rejects.toThrow(
      'requested injection for non-existent container: "nope"',
    );
  });

  it('reads nothing for other kinds and unannotated workloads', async () => {
    const r = reader({ httpProxy: 'http://p' }, 'https://api-int.x:6443');
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: {} } };
    expect(await modifyManifest(cm, '', 'ConfigMap', r)).toBe(cm);
    const d = workload('Deployment', 'ns', 'x');
    expect(await modifyManifest(d, 'apps', 'Deployment', r)).toBe(d);
    expect(r.calls).toEqual([]);
  });

  it("rewrites the CVO Deployment's KUBERNETES_SERVICE_HOST/PORT to the internal load balancer", async () => {
    const cvo = workload('Deployment', 'openshift-cluster-version', 'cluster-version-operator');
    const spec = (cvo as { spec: { template: { spec: { containers: Array<{ name: string }> } } } }).spec.template.spec;
    spec.containers = [
      {
        name: 'cluster-version-operator',
        env: [
          { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
          { name: 'KUBERNETES_SERVICE_HOST', value: '127.0.0.1' },
          { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        ],
      } as { name: string },
    ];
    const out = await modifyManifest(cvo, 'apps', 'Deployment', reader(undefined, 'https://api-int.c1.example:6443'));
    expect(env(out, 0)).toEqual([
      { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
      { name: 'KUBERNETES_SERVICE_HOST', value: 'api-int.c1.example' },
      { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
    ]);
    // no Infrastructure, or no internal URL: the manifest's values stay
    expect(env(await modifyManifest(cvo, 'apps', 'Deployment', reader(undefined, undefined)), 0)).toEqual(env(cvo, 0));
    expect(env(await modifyManifest(cvo, 'apps', 'Deployment', reader(undefined, '')), 0)).toEqual(env(cvo, 0));
  });

  it('defaults the port to 443 and adds missing variables (upstream setKubeServiceValue)', () => {
    expect(splitInternalURI('https://api-int.x')).toEqual({ host: 'api-int.x', port: '' });
    expect(splitInternalURI('https://[fd00::1]:6443')).toEqual({ host: 'fd00::1', port: '6443' });
    const d = workload('Deployment', 'openshift-cluster-version', 'cluster-version-operator');
    injectInternalLoadBalancer(d, ['main'], 'api-int.x', '');
    expect(env(d, 0)).toEqual([
      { name: 'A', value: '1' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '443' },
      { name: 'KUBERNETES_SERVICE_HOST', value: 'api-int.x' },
    ]);
  });
});
