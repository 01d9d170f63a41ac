import { clusterCABundleObjects, generateCaCert } from '@keelson/kube-sandbox';
import { ConfigMaps, ControllerConfigs, nullLogger } from '@keelson/kube';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConfigMap } from '../src/common/api-types.js';
import { caFromConfigMap, mergeCertWithCABundle, readCABundles } from '../src/operator/ca-bundles.js';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const cm = (namespace: string, name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

describe('CA bundles of the ControllerConfig (upstream syncRenderConfig)', () => {
  it('reads ConfigMap values as upstream GetCAsFromConfigMap: base64 when it is, the text otherwise, binaryData first', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(caFromConfigMap(cm('a', 'b', { 'ca.crt': pem }), 'ca.crt').toString()).toBe(pem);
    expect(caFromConfigMap(cm('a', 'b', { 'ca.crt': Buffer.from(pem).toString('base64') }), 'ca.crt').toString()).toBe(
      pem,
    );
    expect(
      caFromConfigMap(
        {
          ...cm('a', 'b', { 'ca.crt': 'text' }),
          binaryData: { 'ca.crt': Buffer.from('bin').toString('base64') },
        },
        'ca.crt',
      ).toString(),
    ).toBe('bin');
    expect(() => caFromConfigMap(cm('kube-system', 'root-ca', {}), 'ca.crt')).toThrow(
      'ca.crt not found in kube-system/root-ca',
    );
  });

  it('replaces the kube-apiserver-to-kubelet-signer of the initial bundle by the current one (mergeCertWithCABundle)', async () => {
    const [lb, kubelet, kubeletNew] = await Promise.all([
      generateCaCert('/OU=openshift/CN=kube-apiserver-lb-signer'),
      generateCaCert('/OU=openshift/CN=kube-apiserver-to-kubelet-signer'),
      generateCaCert('/OU=openshift/CN=kube-apiserver-to-kubelet-signer'),
    ]);
    expect(
      mergeCertWithCABundle(
        Buffer.from(lb + kubelet),
        Buffer.from(kubeletNew),
        'kube-apiserver-to-kubelet-signer',
      ).toString(),
    ).toBe(lb + kubeletNew);
  });
});

describe('ControllerConfig on the strict API server (issue 18 defect 2)', () => {
  let tc: TestCluster;
  let operator: Running | undefined;
  beforeEach(async () => {
    tc = await startTestCluster();
  });
  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
    await tc.stop();
  });
  const data = async (ns: string, name: string, key: string): Promise<string> =>
    (await tc.client.resource(ConfigMaps).get(name, ns)).data?.[key] ?? '';

  it('fills rootCAData and kubeAPIServerServingCAData (base64 byte fields) from the cluster CA ConfigMaps', async () => {
    await tc.client.resource(ConfigMaps).create(
      cm('openshift-machine-config-operator', 'machine-config-osimageurl', {
        baseOSContainerImage: 'quay.io/os@sha256:1',
        baseOSExtensionsContainerImage: '',
        releaseVersion: '4.99.0',
      }),
    );
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: tc.kubeConfig,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 200,
      leaderElection: false,
      health: false,
    });
    const cc = await waitFor('ControllerConfig', async () => {
      try {
        return await tc.client.resource(ControllerConfigs).get('machine-config-controller');
      } catch {
        return undefined;
      }
    });
    const spec = cc.spec as { rootCAData: string; kubeAPIServerServingCAData: string };
    expect(Buffer.from(spec.rootCAData, 'base64').toString()).toBe(await data('kube-system', 'root-ca', 'ca.crt'));
    // the ControllerConfig CRD exists and kube-system/bootstrap too: past bring-up, the kube-apiserver's client CA
    expect(Buffer.from(spec.kubeAPIServerServingCAData, 'base64').toString()).toBe(
      await data('openshift-config-managed', 'kube-apiserver-client-ca', 'ca-bundle.crt'),
    );
    expect(spec.rootCAData).toMatch(/^LS0tLS1CRUdJTi/);
  });

  it('prefers machine-config-server-ca, and uses the initial serving bundle before bootstrap completes', async () => {
    const mcsCA = await generateCaCert('/OU=openshift/CN=machine-config-server-ca');
    await tc.client
      .resource(ConfigMaps)
      .create(cm('openshift-machine-config-operator', 'machine-config-server-ca', { 'ca-bundle.crt': mcsCA }));
    await tc.client.resource(ConfigMaps).delete('bootstrap', { namespace: 'kube-system' });
    const got = await readCABundles(tc.client, false);
    expect(got.rootCA.toString()).toBe(mcsCA);
    expect(got.kubeAPIServerServingCA.toString()).toBe(
      await data('openshift-config', 'initial-kube-apiserver-server-ca', 'ca-bundle.crt'),
    );
  });

  it('a cluster without root-ca fails RenderConfig with the lister text instead of writing an empty byte field', async () => {
    await tc.client.resource(ConfigMaps).delete('root-ca', { namespace: 'kube-system' });
    await expect(readCABundles(tc.client, false)).rejects.toThrow('configmap "root-ca" not found');
  });

  it('the objects a rehearsal cluster gets carry PEM bundles of the upstream signer names', async () => {
    const objs = await clusterCABundleObjects({
      rootCA: 'R',
      initialKubeAPIServerServerCA: 'I',
      kubeAPIServerClientCA: 'C',
    });
    expect(objs.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`)).toEqual([
      'Namespace//openshift-config',
      'Namespace//openshift-config-managed',
      'ConfigMap/kube-system/root-ca',
      'ConfigMap/openshift-config/initial-kube-apiserver-server-ca',
      'ConfigMap/openshift-config-managed/kube-apiserver-client-ca',
      'ConfigMap/kube-system/bootstrap',
    ]);
    const root = await data('kube-system', 'root-ca', 'ca.crt');
    expect(root).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });
});
