/**
 * The rehearsal cluster's configuration objects (issue 20 §3): upstream's config.openshift.io CRDs and the installer's
 * `cluster` objects, validated by the embedded API server as kube-apiserver validates them, statuses as written by
 * the installer and the operators; installing twice keeps what exists.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { installClusterConfig } from '../src/cluster-config-install.js';
import { rehearsalPullSecret } from '../src/installer-objects.js';

type Obj = { spec?: Record<string, unknown>; status?: Record<string, unknown> };

describe('rehearsal cluster configuration', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.stop();
    sandbox = undefined;
  });

  it('Infrastructure, Network, Proxy, DNS, APIServer, Image `cluster` with their statuses; idempotent', async () => {
    sandbox = await startSandbox();
    const client = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
    await installClusterConfig(client);
    await installClusterConfig(client);
    const get = (plural: string): Promise<Obj> =>
      client.request<Obj>('GET', `/apis/config.openshift.io/v1/${plural}/cluster`);
    const infra = await get('infrastructures');
    expect(infra.status).toMatchObject({
      platform: 'None',
      platformStatus: { type: 'None' },
      apiServerInternalURI: 'https://api-int.keelson.local:6443',
      controlPlaneTopology: 'HighlyAvailable',
    });
    const network = await get('networks');
    expect(network.spec?.['serviceNetwork']).toEqual(['172.30.0.0/16']);
    expect(network.status?.['networkType']).toBe('OVNKubernetes');
    expect((await get('dnses')).spec?.['baseDomain']).toBe('keelson.local');
    expect((await get('proxies')).status ?? {}).toEqual({});
    expect((await get('images')).status?.['internalRegistryHostname']).toBe(
      'image-registry.openshift-image-registry.svc:5000',
    );
    await get('apiservers');
    await client.close();
  });

  it('the pull secret is a kubernetes.io/dockerconfigjson secret with auths', () => {
    const s = rehearsalPullSecret() as { type: string; data: Record<string, string> };
    expect(s.type).toBe('kubernetes.io/dockerconfigjson');
    const auths = (JSON.parse(Buffer.from(s.data['.dockerconfigjson'] ?? '', 'base64').toString()) as { auths: object })
      .auths;
    expect(Object.keys(auths)).toEqual(['cloud.openshift.com']);
  });
});
