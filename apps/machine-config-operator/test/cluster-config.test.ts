/**
 * The pure parts of the ControllerConfig built from the cluster (release-4.20 `createDiscoveredControllerConfigSpec`,
 * `clusterDNSIP`, `ipFamilies`, the trust bundle, registry bundles, cloud config, images.json, the internal registry
 * pull secret), with upstream's texts for bad input.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../src/common/api-types.js';
import { caFromConfigMap } from '../src/operator/ca-bundles.js';
import {
  cloudConfig,
  clusterDNSIP,
  completeInfrastructure,
  controllerConfigImages,
  discoverSpec,
  ipFamilies,
  mergedRegistryCAData,
  registryBundles,
  trustBundle,
} from '../src/operator/cluster-config.js';
import { mergeInternalRegistryPullSecret, parseDockerAuths } from '../src/operator/registry-pull-secret.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const cm = (data: Record<string, string>, binaryData?: Record<string, string>): ConfigMap =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', namespace: 'openshift-config' },
    data,
    binaryData,
  }) as ConfigMap;
const PROXY_PROFILE = new URL('./fixtures/cluster-config/profiles/proxy.yaml', import.meta.url);

async function pem(): Promise<string> {
  const text = await readFile(PROXY_PROFILE, 'utf8');
  const m = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(text);
  return `${(m?.[0] ?? '').replace(/\n {4}/g, '\n')}\n`;
}

describe('clusterDNSIP and ipFamilies', () => {
  it('host 10 of the first service network, IPv4 and IPv6 in Go form', () => {
    expect(clusterDNSIP('172.30.0.0/16')).toBe('172.30.0.10');
    expect(clusterDNSIP('172.30.5.7/16')).toBe('172.30.0.10'); // masked to the network
    expect(clusterDNSIP('10.0.0.240/28')).toBe('10.0.0.250');
    expect(clusterDNSIP('fd02::/112')).toBe('fd02::a');
    expect(clusterDNSIP('2001:db8:0:0:1::/80')).toBe('2001:db8::1:0:0:a'); // Go: the leftmost of equal zero runs;
    expect(clusterDNSIP('fd00:1:2:3:4:5:6:0/112')).toBe('fd00:1:2:3:4:5:6:a');
  });

  it('refuses what Go refuses', () => {
    expect(() => clusterDNSIP('172.30.0.0')).toThrow('invalid CIDR address: 172.30.0.0');
    expect(() => clusterDNSIP('172.30.0.0/33')).toThrow('invalid CIDR address: 172.30.0.0/33');
    expect(() => clusterDNSIP('10.0.0.0/30')).toThrow('prefix of 30 does not accommodate a host numbered 10');
  });

  it('IPv4, IPv6, DualStack, DualStackIPv6Primary from the service networks', () => {
    expect(ipFamilies(['172.30.0.0/16'])).toBe('IPv4');
    expect(ipFamilies(['fd02::/112'])).toBe('IPv6');
    expect(ipFamilies(['172.30.0.0/16', 'fd02::/112'])).toBe('DualStack');
    expect(ipFamilies(['fd02::/112', '172.30.0.0/16'])).toBe('DualStackIPv6Primary');
    expect(() => ipFamilies([])).toThrow('could not determine cluster IP families from config');
  });
});

describe('createDiscoveredControllerConfigSpec', () => {
  const network = (status: Record<string, unknown>) => ({
    spec: { serviceNetwork: ['172.30.0.0/16'], networkType: 'OVNKubernetes' },
    status,
  });
  it('platformStatus from the legacy platform, else None; platform lower-cased', () => {
    expect(completeInfrastructure({ status: { platform: 'AWS' } }).status?.platformStatus).toEqual({ type: 'AWS' });
    expect(completeInfrastructure({ status: {} }).status?.platformStatus).toEqual({ type: 'None' });
    const d = discoverSpec({ status: { platformStatus: { type: 'BareMetal' } } }, network({}), undefined, undefined);
    expect(d.platform).toBe('baremetal');
    expect(d.dns).toBeNull();
  });

  it('network type: spec at install, the migration during one (with its MTU), else status', () => {
    const infra = { status: { platformStatus: { type: 'None' } } };
    expect(discoverSpec(infra, network({}), undefined, undefined).networkType).toBe('OVNKubernetes');
    expect(discoverSpec(infra, network({ networkType: 'OpenShiftSDN' }), undefined, undefined).networkType).toBe(
      'OpenShiftSDN',
    );
    const mtu = { network: { from: 1450, to: 1400 } };
    const m = discoverSpec(
      infra,
      network({ networkType: 'OpenShiftSDN', migration: { networkType: 'OVNKubernetes', mtu } }),
      undefined,
      undefined,
    );
    expect(m.networkType).toBe('OVNKubernetes');
    expect(m.network).toEqual({ mtuMigration: mtu });
  });

  it('an empty Proxy status is not set; a filled one is', () => {
    const infra = { status: {} };
    expect(discoverSpec(infra, network({}), { status: {} }, undefined).proxy).toBeNull();
    expect(discoverSpec(infra, network({}), { status: { httpProxy: 'http://p:3128' } }, undefined).proxy).toEqual({
      httpProxy: 'http://p:3128',
    });
  });

  it('an empty service network is refused with upstream text', () => {
    expect(() => discoverSpec({}, { spec: { serviceNetwork: [] } }, undefined, undefined)).toThrow(
      'service cidr is empty in Network',
    );
  });
});

describe('trust bundle, registry bundles, cloud config', () => {
  it('user-ca-bundle then the proxy CA; an invalid bundle is refused naming the ConfigMap', async () => {
    const ca = Buffer.from(await pem());
    expect(trustBundle(undefined, undefined)).toBeNull();
    expect(trustBundle(ca, { name: 'proxy-ca', data: ca })).toBe(Buffer.concat([ca, ca]).toString('base64'));
    expect(() => trustBundle(Buffer.from('not a certificate'), undefined)).toThrow(
      "configmap openshift-config/user-ca-bundle doesn't have a valid PEM bundle",
    );
    expect(() => trustBundle(ca, { name: 'proxy-ca', data: Buffer.from('x') })).toThrow(
      "configmap openshift-config/proxy-ca doesn't have a valid PEM bundle",
    );
  });

  it('registry bundles: data keys sorted (base64 decoded when it is base64), then binaryData; the user wins in the merge', () => {
    const got = registryBundles(cm({ 'b..5000': 'PEM-B', 'a..443': b64('PEM-A') }, { 'c.example.com': b64('PEM-C') }));
    expect(got).toEqual([
      { file: 'a..443', data: b64('PEM-A') },
      { file: 'b..5000', data: b64('PEM-B') },
      { file: 'c.example.com', data: b64('PEM-C') },
    ]);
    expect(mergedRegistryCAData([{ file: 'r', data: b64('managed') }], [{ file: 'r', data: b64('user') }])).toEqual({
      r: 'user',
    });
  });

  it('cloud config required on vSphere/Azure/GCP/OpenStack or when named; cloud.conf and ca-bundle.pem read', () => {
    const vs = completeInfrastructure({ status: { platformStatus: { type: 'VSphere' } } });
    expect(() => cloudConfig(undefined, vs, caFromConfigMap)).toThrow(
      'openshift-config-managed/kube-cloud-config configmap is required on platform VSphere but not found',
    );
    expect(() => cloudConfig(cm({ other: 'x' }), vs, caFromConfigMap)).toThrow(
      'openshift-config-managed/kube-cloud-config configmap must have the cloud.conf key on platform VSphere but not found',
    );
    expect(cloudConfig(cm({ 'cloud.conf': '[Global]\n', 'ca-bundle.pem': 'CA' }), vs, caFromConfigMap)).toEqual({
      cloudProviderConfig: '[Global]\n',
      cloudProviderCAData: b64('CA'),
    });
    const aws = completeInfrastructure({ status: { platformStatus: { type: 'AWS' } } });
    expect(cloudConfig(undefined, aws, caFromConfigMap)).toEqual({
      cloudProviderConfig: '',
      cloudProviderCAData: null,
    });
    const named = completeInfrastructure({
      spec: { cloudConfig: { name: 'cc' } },
      status: { platformStatus: { type: 'AWS' } },
    });
    expect(() => cloudConfig(undefined, named, caFromConfigMap)).toThrow(/required on platform AWS/);
  });
});

describe('images.json and the internal registry pull secret', () => {
  it('upstream images.json: version checked, keys mapped; a plain map taken as is', () => {
    const imgs = { releaseVersion: '4.20.1', machineConfigOperator: 'mco', infraImage: 'pod', kubeRbacProxy: 'krp' };
    expect(controllerConfigImages(imgs, '4.20.1')).toEqual({
      machineConfigOperator: 'mco',
      apiServerWatcherKey: 'mco',
      infraImageKey: 'pod',
      keepalivedImage: '',
      corednsImage: '',
      haproxyImage: '',
      baremetalRuntimeCfgImage: '',
      kubeRbacProxyImage: 'krp',
    });
    expect(() => controllerConfigImages(imgs, '4.20.2')).toThrow(
      'error during operator version check: [context deadline exceeded, refusing to read images.json version "4.20.1", operator version "4.20.2"]',
    );
    expect(controllerConfigImages({ infraImageKey: 'p' }, '4.20.2')).toEqual({ infraImageKey: 'p' });
  });

  it('merges the puller secrets then the cluster pull secret, adds the default route, sorts the keys', () => {
    const got = mergeInternalRegistryPullSecret({
      pullerSecrets: [
        {
          name: 'puller',
          dockercfg: Buffer.from(
            JSON.stringify({ 'image-registry.openshift-image-registry.svc:5000': { auth: 'c2E=' } }),
          ),
        },
      ],
      clusterPullSecret: {
        type: 'kubernetes.io/dockerconfigjson',
        dockerconfigjson: Buffer.from(JSON.stringify({ auths: { 'quay.io': { auth: 'cQ==', email: '' } } })),
      },
      baseDomain: 'c1.example.com',
    });
    expect(Buffer.from(got ?? '', 'base64').toString()).toBe(
      '{"auths":{"default-route-openshift-image-registry.apps.c1.example.com":{"auth":"c2E="},"image-registry.openshift-image-registry.svc:5000":{"auth":"c2E="},"quay.io":{"auth":"cQ=="}}}',
    );
  });

  it('refuses a cluster pull secret of another type, and returns null without any auths', () => {
    const base = { pullerSecrets: [], baseDomain: 'x' };
    expect(() =>
      mergeInternalRegistryPullSecret({ ...base, clusterPullSecret: { type: 'Opaque', dockerconfigjson: undefined } }),
    ).toThrow('expected secret type kubernetes.io/dockerconfigjson found Opaque');
    expect(
      mergeInternalRegistryPullSecret({
        ...base,
        clusterPullSecret: { type: 'kubernetes.io/dockerconfigjson', dockerconfigjson: Buffer.from('{"auths":{}}') },
      }),
    ).toBeNull();
    expect(() => parseDockerAuths('[1]')).toThrow('pull secret is not a JSON object');
  });
});
