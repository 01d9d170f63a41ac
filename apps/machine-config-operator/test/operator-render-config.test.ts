/**
 * ControllerConfig built from the cluster as release-4.20's syncRenderConfig builds it (issue 20 §3): for each
 * realistic cluster profile (AWS, bare metal with VIPs, vSphere with a cloud config, None/SNO with an SDN migration,
 * IPv6, proxy with trusted CAs and registry CAs) loaded into the embedded API server through upstream's
 * config.openshift.io CRDs, the real operator writes every field as upstream fills it. Missing inputs: Degraded
 * RenderConfigFailed with upstream's text, Available stays True.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterOperators, ConfigMaps, ControllerConfigs, nullLogger } from '@keelson/kube';
import type { ControllerConfig } from '../src/common/api-types.js';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';
import { installConfigCrds, loadProfile, profileObjects, type Profile } from './helpers/cluster-config.js';

const NS = 'openshift-machine-config-operator';
const OS = `quay.io/test/rhcos@sha256:${'3'.repeat(64)}`;
const VERSION = '4.99.0';
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
/** images.json in upstream's format (as the machine-config-operator-images ConfigMap carries it). */
const IMAGES_JSON = {
  releaseVersion: VERSION,
  machineConfigOperator: 'quay.io/test/mco@sha256:aa',
  infraImage: 'quay.io/test/pod@sha256:bb',
  keepalivedImage: 'quay.io/test/keepalived@sha256:cc',
  corednsImage: 'quay.io/test/coredns@sha256:dd',
  haproxyImage: 'quay.io/test/haproxy@sha256:ee',
  baremetalRuntimeCfgImage: 'quay.io/test/brc@sha256:ff',
  kubeRbacProxy: 'quay.io/test/krp@sha256:11',
  oauthProxy: 'quay.io/test/oauth@sha256:22',
};
const PULL_SECRET = JSON.stringify({ auths: { 'quay.io': { auth: b64('u:p'), email: 'a@example.com' } } });

type Data = Record<string, string>;

/** The ConfigMap data of a profile, without loading it. */
async function boot2Data(profile: Profile): Promise<{ data: Map<string, Data> }> {
  const data = new Map<string, Data>();
  for (const o of await profileObjects(profile))
    if (o.kind === 'ConfigMap') data.set(o.metadata.name, o['data'] as Data);
  return { data };
}

describe('ControllerConfig from the cluster (syncRenderConfig)', () => {
  let tc: TestCluster | undefined;
  let operator: Running | undefined;
  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
    await tc?.stop();
    tc = undefined;
  });

  async function boot(profile: Profile | undefined): Promise<{ tc: TestCluster; data: Map<string, Data> }> {
    tc = await startTestCluster();
    const objects = profile !== undefined ? await loadProfile(tc.client, profile) : [];
    if (profile === undefined) await installConfigCrds(tc.client);
    await tc.client.request('PUT', '/api/v1/namespaces/openshift-config/secrets/pull-secret', {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'pull-secret', namespace: 'openshift-config' },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': b64(PULL_SECRET) },
      },
    });
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: NS },
      data: { baseOSContainerImage: OS, baseOSExtensionsContainerImage: '', releaseVersion: VERSION, osImageURL: '' },
    });
    const data = new Map<string, Data>();
    for (const o of objects) if (o.kind === 'ConfigMap') data.set(o.metadata.name, o['data'] as Data);
    return { tc, data };
  }

  async function start(t: TestCluster, resyncIntervalMs = 100): Promise<void> {
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: t.kubeConfig,
      logger: nullLogger,
      releaseVersion: VERSION,
      images: IMAGES_JSON,
      resyncIntervalMs,
      leaderElection: false,
      health: false,
    });
  }

  const controllerConfig = (t: TestCluster): Promise<ControllerConfig> =>
    waitFor('ControllerConfig', () =>
      t.client
        .resource(ControllerConfigs)
        .get('machine-config-controller')
        .catch(() => undefined),
    );

  const caData = async (t: TestCluster, ns: string, name: string, key: string): Promise<string> => {
    const cm = await t.client.resource(ConfigMaps).get(name, ns);
    return b64(cm.data?.[key] ?? '');
  };

  it('AWS: platform, DNS, network, CAs, images, pull secret reference; an empty Proxy status is not set', async () => {
    const { tc: t } = await boot('aws');
    await start(t);
    const s = (await controllerConfig(t)).spec;
    expect(s.clusterDNSIP).toBe('172.30.0.10');
    expect(s.ipFamilies).toBe('IPv4');
    expect(s.platform).toBe('aws');
    expect(s.networkType).toBe('OVNKubernetes');
    expect(s.network).toBeNull();
    expect(s.proxy).toBeNull();
    expect(s.infra?.status?.platformStatus).toMatchObject({
      type: 'AWS',
      aws: { region: 'us-east-1', resourceTags: [{ key: 'team', value: 'keelson' }] },
    });
    expect(s.infra?.status?.apiServerInternalURI).toBe('https://api-int.aws1.example.com:6443');
    expect(s.dns?.['spec']).toMatchObject({ baseDomain: 'aws1.example.com', publicZone: { id: 'Z3URY6TWQ91KVV' } });
    expect(s.rootCAData).toBe(await caData(t, 'kube-system', 'root-ca', 'ca.crt'));
    expect(s.kubeAPIServerServingCAData).toBe(
      await caData(t, 'openshift-config-managed', 'kube-apiserver-client-ca', 'ca-bundle.crt'),
    );
    expect(s.pullSecret).toEqual({ namespace: 'openshift-config', name: 'pull-secret' });
    expect(s.internalRegistryPullSecret ?? null).toBeNull();
    expect(s.additionalTrustBundle ?? null).toBeNull();
    expect(s.cloudProviderConfig).toBe('');
    expect(s.cloudProviderCAData ?? null).toBeNull();
    expect(s.imageRegistryBundleData ?? []).toEqual([]);
    expect(s.images).toEqual({
      machineConfigOperator: IMAGES_JSON.machineConfigOperator,
      apiServerWatcherKey: IMAGES_JSON.machineConfigOperator,
      infraImageKey: IMAGES_JSON.infraImage,
      keepalivedImage: IMAGES_JSON.keepalivedImage,
      corednsImage: IMAGES_JSON.corednsImage,
      haproxyImage: IMAGES_JSON.haproxyImage,
      baremetalRuntimeCfgImage: IMAGES_JSON.baremetalRuntimeCfgImage,
      kubeRbacProxyImage: IMAGES_JSON.kubeRbacProxy,
    });
    // the merged registry CA ConfigMap exists (empty) with upstream's owner annotation
    const merged = await t.client
      .resource(ConfigMaps)
      .get('merged-trusted-image-registry-ca', 'openshift-config-managed');
    expect(merged.metadata.annotations?.['openshift.io/owning-component']).toBe('Machine Config Operator');
  });

  it('bare metal: the API and ingress VIPs reach the embedded Infrastructure', async () => {
    const { tc: t } = await boot('baremetal');
    await start(t);
    const s = (await controllerConfig(t)).spec;
    expect(s.platform).toBe('baremetal');
    const bm = (s.infra?.status?.platformStatus as { baremetal?: Record<string, unknown> }).baremetal;
    expect(bm?.['apiServerInternalIPs']).toEqual(['192.168.111.5']);
    expect(bm?.['ingressIPs']).toEqual(['192.168.111.4']);
    expect(bm?.['loadBalancer']).toEqual({ type: 'OpenShiftManagedDefault' });
  });

  it('vSphere: cloud.conf and its CA from kube-cloud-config; without the ConfigMap, Degraded and still Available', async () => {
    const { tc: t, data } = await boot('vsphere');
    await start(t);
    const s = (await controllerConfig(t)).spec;
    expect(s.platform).toBe('vsphere');
    expect(s.cloudProviderConfig).toBe(data.get('kube-cloud-config')?.['cloud.conf']);
    expect(s.cloudProviderCAData).toBe(b64(data.get('kube-cloud-config')?.['ca-bundle.pem'] ?? ''));
    await t.client.request('DELETE', '/api/v1/namespaces/openshift-config-managed/configmaps/kube-cloud-config');
    const co = await waitFor('Degraded RenderConfigFailed', async () => {
      const c = await t.client.resource(ClusterOperators).get('machine-config');
      return c.status?.conditions?.some((x) => x.type === 'Degraded' && x.status === 'True') === true ? c : undefined;
    });
    const cond = (type: string) => co.status?.conditions?.find((x) => x.type === type);
    expect(cond('Degraded')?.reason).toBe('RenderConfigFailed');
    expect(cond('Degraded')?.message).toBe(
      // still progressing (no pool runs this release's config in this test): upstream's "Unable to apply" form
      `Unable to apply ${VERSION}: openshift-config-managed/kube-cloud-config configmap is required on platform VSphere but not found: configmap "kube-cloud-config" not found`,
    );
    expect(cond('Available')?.status).toBe('True');
  });

  it('None/SNO: SingleReplica topology; network type and MTU migration from status.migration', async () => {
    const { tc: t } = await boot('none-sno');
    await start(t);
    const s = (await controllerConfig(t)).spec;
    expect(s.platform).toBe('none');
    expect(s.infra?.status?.controlPlaneTopology).toBe('SingleReplica');
    expect(s.networkType).toBe('OVNKubernetes');
    expect(s.network).toEqual({
      mtuMigration: { network: { from: 1450, to: 1400 }, machine: { from: 1500, to: 1500 } },
    });
  });

  it('IPv6: cluster DNS IP is host 10 of the IPv6 service network', async () => {
    const { tc: t } = await boot('ipv6');
    await start(t);
    const s = (await controllerConfig(t)).spec;
    expect(s.clusterDNSIP).toBe('fd02::a');
    expect(s.ipFamilies).toBe('IPv6');
  });

  it('proxy: status, trust bundle (user-ca-bundle + proxy CA), registry bundles, merged CA ConfigMap, internal registry pull secret', async () => {
    const { tc: t, data } = await boot('proxy');
    // the image registry is installed: its ClusterOperator, machine-os-puller's pull secret
    await t.client.resource(ClusterOperators).create({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterOperator',
      metadata: { name: 'image-registry' },
      spec: {},
    });
    const internal = { auth: b64('serviceaccount:token') };
    await t.client.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'machine-os-puller-dockercfg-x1', namespace: NS },
        type: 'kubernetes.io/dockercfg',
        data: { '.dockercfg': b64(JSON.stringify({ 'image-registry.openshift-image-registry.svc:5000': internal })) },
      },
    });
    await t.client.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, {
      body: {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'machine-os-puller', namespace: NS },
        imagePullSecrets: [{ name: 'machine-os-puller-dockercfg-x1' }],
      },
    });
    await start(t);
    const s = (await controllerConfig(t)).spec;
    expect(s.ipFamilies).toBe('DualStack');
    expect(s.proxy).toEqual({
      httpProxy: 'http://proxy.px1.example.com:3128',
      httpsProxy: 'http://proxy.px1.example.com:3128',
      noProxy:
        '.cluster.local,.internal.example.com,.svc,10.0.0.0/16,10.128.0.0/14,127.0.0.1,169.254.169.254,172.30.0.0/16,api-int.px1.example.com,fd01::/48,fd02::/112,localhost',
    });
    const user = data.get('user-ca-bundle')?.['ca-bundle.crt'] ?? '';
    const proxyCA = data.get('proxy-ca')?.['ca-bundle.crt'] ?? '';
    expect(s.additionalTrustBundle).toBe(b64(user + proxyCA));
    const mirror = data.get('registry-cas')?.['mirror.px1.example.com..5000'] ?? '';
    const managed = data.get('image-registry-ca')?.['image-registry.openshift-image-registry.svc..5000'] ?? '';
    expect(s.imageRegistryBundleUserData).toEqual([{ file: 'mirror.px1.example.com..5000', data: b64(mirror) }]);
    expect(s.imageRegistryBundleData).toEqual([
      { file: 'image-registry.openshift-image-registry.svc..5000', data: b64(managed) },
    ]);
    const merged = await t.client
      .resource(ConfigMaps)
      .get('merged-trusted-image-registry-ca', 'openshift-config-managed');
    expect(merged.data).toEqual({
      'image-registry.openshift-image-registry.svc..5000': managed,
      'mirror.px1.example.com..5000': mirror,
    });
    const pull = JSON.parse(Buffer.from(s.internalRegistryPullSecret ?? '', 'base64').toString('utf8')) as unknown;
    expect(pull).toEqual({
      auths: {
        'default-route-openshift-image-registry.apps.px1.example.com': internal,
        'image-registry.openshift-image-registry.svc:5000': internal,
        'quay.io': { auth: b64('u:p'), email: 'a@example.com' },
      },
    });
  });

  it('served config types without their cluster objects (image.config first, as upstream reads it): Degraded RenderConfigFailed, no ControllerConfig', async () => {
    const { tc: t } = await boot(undefined);
    await start(t);
    const co = await waitFor('Degraded', async () => {
      const c = await t.client
        .resource(ClusterOperators)
        .get('machine-config')
        .catch(() => undefined);
      return c?.status?.conditions?.some((x) => x.type === 'Degraded' && x.status === 'True') === true ? c : undefined;
    });
    expect(co.status?.conditions?.find((x) => x.type === 'Degraded')?.message).toBe(
      `Unable to apply ${VERSION}: images.config.openshift.io "cluster" not found`,
    );
    expect(co.status?.conditions?.find((x) => x.type === 'Available')?.status).toBe('True');
    await expect(t.client.resource(ControllerConfigs).get('machine-config-controller')).rejects.toThrow(
      /404|not found/i,
    );
  });

  it('a new user-ca-bundle reaches the ControllerConfig through the ConfigMap watch, not the resync', async () => {
    const { tc: t } = await boot('aws');
    const { data } = await boot2Data('proxy');
    await start(t, 600_000);
    expect((await controllerConfig(t)).spec.additionalTrustBundle ?? null).toBeNull();
    // settle: the syncs the operator's own first writes (ControllerConfig, ClusterOperator) cause are over
    await new Promise((r) => setTimeout(r, 2_000));
    const ca = data.get('user-ca-bundle')?.['ca-bundle.crt'] ?? '';
    await t.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'user-ca-bundle', namespace: 'openshift-config' },
      data: { 'ca-bundle.crt': ca },
    });
    await waitFor(
      'additionalTrustBundle',
      async () => ((await controllerConfig(t)).spec.additionalTrustBundle === b64(ca) ? true : undefined),
      5_000,
    );
  });
});
