/**
 * The template controller on the embedded API server reads what upstream's syncControllerConfig reads: the pull secret
 * the ControllerConfig names (a kubernetes.io/dockerconfigjson Secret, JSON-compacted into
 * /var/lib/kubelet/config.json) and the APIServer TLS profile (Intermediate when the object is absent); a Secret of
 * another type fails the sync with upstream's message in TemplateControllerFailing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerConfigs, isAlreadyExists, isConflict, MachineConfigs, nullLogger } from '@keelson/kube';
import { buildControllerConfig } from '@keelson/machineconfig';
import { startMachineConfigController, type Running } from '../../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from '../helpers/cluster.js';

let tc: TestCluster;
let controller: Running | undefined;

const source = (mc: unknown, path: string): string | undefined => {
  const files =
    (mc as { spec?: { config?: { storage?: { files?: Array<{ path: string; contents: { source?: string } }> } } } })
      .spec?.config?.storage?.files ?? [];
  const s = files.find((f) => f.path === path)?.contents.source;
  return s === undefined ? undefined : decodeURIComponent(s.replace(/^data:,/, ''));
};

async function putSecret(type: string, json: string): Promise<void> {
  const body = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: 'openshift-config' },
    type,
    data: { '.dockerconfigjson': Buffer.from(json).toString('base64') },
  };
  try {
    await tc.client.request('DELETE', '/api/v1/namespaces/openshift-config/secrets/pull-secret');
  } catch {
    /* absent */
  }
  await tc.client.request('POST', '/api/v1/namespaces/openshift-config/secrets', { body });
}

beforeAll(async () => {
  tc = await startTestCluster();
  try {
    await tc.client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-config' } },
    });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e; // the test cluster carries the CA ConfigMaps of openshift-config
  }
  await putSecret('kubernetes.io/dockerconfigjson', '{ "auths": {\n "quay.io": { "auth": "eDp5" } } }');
  const cc = buildControllerConfig(
    { baseOSContainerImage: 'quay.io/os@sha256:1', baseOSExtensionsContainerImage: '', releaseVersion: '4.99.0' },
    {
      clusterDNSIP: '172.30.0.10',
      releaseImage: 'r',
      images: {},
      rootCAPem: 'root-ca',
      kubeAPIServerServingCAPem: 'serving-ca',
    },
    'op',
  );
  await tc.client.resource(ControllerConfigs).create({
    ...cc,
    spec: { ...cc.spec, pullSecret: { namespace: 'openshift-config', name: 'pull-secret' } },
  });
  controller = await startMachineConfigController({
    kubeconfig: tc.kubeConfig,
    logger: nullLogger,
    leaderElection: false,
    health: false,
    controllerVersion: 'ctrl',
    operatorVersion: 'op',
    controllers: ['template'],
  });
}, 60_000);

afterAll(async () => {
  await controller?.stop();
  await tc.stop();
}, 30_000);

describe('template controller inputs', { timeout: 60_000 }, () => {
  it('writes the compacted pull secret and the Intermediate TLS profile into the base configs', async () => {
    const mc = await waitFor('00-worker', async () => {
      try {
        return await tc.client.resource(MachineConfigs).get('00-worker');
      } catch {
        return undefined;
      }
    });
    expect(source(mc, '/var/lib/kubelet/config.json')).toBe('{"auths":{"quay.io":{"auth":"eDp5"}}}\n');
    expect(mc.spec?.osImageURL).toBe('quay.io/os@sha256:1');
    // the controller writes the base configs one after another: 00-worker can be there before 01-worker-kubelet
    const kubelet = await waitFor('01-worker-kubelet', async () => {
      try {
        return await tc.client.resource(MachineConfigs).get('01-worker-kubelet');
      } catch {
        return undefined;
      }
    });
    expect(source(kubelet, '/etc/kubernetes/kubelet.conf')).toContain('\ntlsMinVersion: VersionTLS12\n');
  });

  it('a pull secret of another type fails the sync with upstream’s message', async () => {
    await putSecret('Opaque', '{}');
    const ccs = tc.client.resource(ControllerConfigs);
    // the controller may be writing the ControllerConfig's status: re-read and retry on a conflict, as a client must
    await waitFor('ControllerConfig updated', async () => {
      const cc = await ccs.get('machine-config-controller');
      try {
        return await ccs.update({ ...cc, spec: { ...cc.spec, clusterDNSIP: '172.30.0.11' } });
      } catch (e) {
        if (isConflict(e)) return undefined;
        throw e;
      }
    });
    const failing = await waitFor('TemplateControllerFailing', async () => {
      const c = (await ccs.get('machine-config-controller')).status?.conditions?.find(
        (x) => x.type === 'TemplateControllerFailing' && x.status === 'True',
      );
      return c ?? undefined;
    });
    expect(failing.message).toContain('expected secret type kubernetes.io/dockerconfigjson found Opaque');
  });
});
