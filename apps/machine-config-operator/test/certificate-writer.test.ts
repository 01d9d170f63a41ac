/**
 * The daemon's certificate writer (upstream pkg/daemon/certificate_writer.go): ControllerConfig CA changes reach the
 * host files at once, without a MachineConfig or a reboot; the node records the synced resourceVersion. Files on a
 * real temporary root; the ControllerConfig and Node on the embedded API server.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ControllerConfig } from '@keelson/api';
import { ControllerConfigs, EventRecorder, nullLogger } from '@keelson/kube';
import { HostRoot } from '../src/daemon/root.js';
import { NodeWriter, Nodes, SharedNodeInformer } from '../src/daemon/cluster.js';
import {
  CertificateSync,
  CLOUD_CA_PATH,
  CONTROLLER_CONFIG_RV_ANNOTATION,
  IMAGE_CA_DIR,
  KUBELET_CA_PATH,
  RegistryBundleNameError,
  writeControllerConfigCertificates,
} from '../src/daemon/certificate-writer.js';
import { INTERNAL_REGISTRY_AUTH_FILE } from '../src/daemon/pull-secret.js';
import { controllerConfig, startEnv, type TestEnv } from './daemon-helpers.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function cc(spec: Partial<ControllerConfig['spec']>): ControllerConfig {
  const base = controllerConfig('CA-1') as unknown as ControllerConfig;
  return {
    ...base,
    metadata: { name: 'machine-config-controller', resourceVersion: '1' },
    spec: { ...base.spec, ...spec },
  };
}

describe('writeControllerConfigCertificates', () => {
  let dir: string;
  let root: HostRoot;
  const read = (p: string): string => readFileSync(join(dir, p), 'utf8');
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcd-certs-'));
    root = new HostRoot(dir);
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the kubelet CA, cloud CA and pull secret with a trailing newline, keeping an existing mode', async () => {
    mkdirSync(join(dir, '/etc/kubernetes'), { recursive: true });
    writeFileSync(join(dir, KUBELET_CA_PATH), 'old\n');
    chmodSync(join(dir, KUBELET_CA_PATH), 0o600);
    const res = await writeControllerConfigCertificates(
      root,
      cc({
        kubeAPIServerServingCAData: b64('CA-2'),
        cloudProviderCAData: b64('CLOUD\n'),
        internalRegistryPullSecret: b64('{"auths":{}}'),
      }),
    );
    expect(read(KUBELET_CA_PATH)).toBe('CA-2\n');
    expect(statSync(join(dir, KUBELET_CA_PATH)).mode & 0o777).toBe(0o600);
    expect(read(CLOUD_CA_PATH)).toBe('CLOUD\n');
    expect(read(INTERNAL_REGISTRY_AUTH_FILE)).toBe('{"auths":{}}\n');
    expect(res.written.sort()).toEqual([CLOUD_CA_PATH, INTERNAL_REGISTRY_AUTH_FILE, KUBELET_CA_PATH].sort());
    // the same content again: nothing rewritten
    const again = await writeControllerConfigCertificates(
      root,
      cc({
        kubeAPIServerServingCAData: b64('CA-2'),
        cloudProviderCAData: b64('CLOUD\n'),
        internalRegistryPullSecret: b64('{"auths":{}}'),
      }),
    );
    expect(again.written).toEqual([]);
  });

  it('registry CAs under /etc/docker/certs.d ("..""→":"), stale registries removed; nothing when the dir is absent', async () => {
    const bundles = {
      imageRegistryBundleData: [{ file: 'image-registry.openshift-image-registry.svc..5000', data: b64('REG') }],
      imageRegistryBundleUserData: [{ file: 'mirror.example.com', data: b64('USER') }],
    };
    await writeControllerConfigCertificates(root, cc(bundles));
    expect(existsSync(join(dir, IMAGE_CA_DIR))).toBe(false);
    mkdirSync(join(dir, IMAGE_CA_DIR, 'gone.example.com'), { recursive: true });
    writeFileSync(join(dir, IMAGE_CA_DIR, 'gone.example.com', 'ca.crt'), 'OLD\n');
    const res = await writeControllerConfigCertificates(root, cc(bundles));
    expect(read(`${IMAGE_CA_DIR}/image-registry.openshift-image-registry.svc:5000/ca.crt`)).toBe('REG\n');
    expect(read(`${IMAGE_CA_DIR}/mirror.example.com/ca.crt`)).toBe('USER\n');
    expect(existsSync(join(dir, IMAGE_CA_DIR, 'gone.example.com'))).toBe(false);
    expect(res.removed).toEqual([`${IMAGE_CA_DIR}/gone.example.com`]);
    // the ":" directory is kept on the next pass (not removed and rewritten)
    const again = await writeControllerConfigCertificates(root, cc(bundles));
    expect(again).toEqual({ written: [], removed: [] });
  });

  it('a registry name with "/" is refused before anything is written', async () => {
    const bad = cc({ imageRegistryBundleUserData: [{ file: '../../etc/passwd', data: b64('X') }] });
    await expect(writeControllerConfigCertificates(root, bad)).rejects.toBeInstanceOf(RegistryBundleNameError);
    await expect(writeControllerConfigCertificates(root, bad)).rejects.toThrow(
      'ControllerConfig spec.imageRegistryBundleUserData: file "../../etc/passwd"',
    );
    expect(existsSync(join(dir, KUBELET_CA_PATH))).toBe(false);
  });
});

describe('CertificateSync on the API server', () => {
  let env: TestEnv;
  afterEach(async () => {
    await env.stop();
  });

  it('a ControllerConfig CA change is written to the host and the node annotated, once per resourceVersion', async () => {
    env = await startEnv();
    const { client } = env;
    await client.resource(Nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const nodes = new SharedNodeInformer(client, { fieldSelector: 'metadata.name=n1', logger: nullLogger });
    await nodes.start();
    const stats = { writes: 0 };
    const events = new EventRecorder(client, { component: 'machineconfigdaemon', logger: nullLogger });
    const root = new HostRoot(env.dir);
    const sync = new CertificateSync({
      client,
      root,
      node: nodes.source('n1'),
      writer: new NodeWriter(client, 'n1', events, stats),
      retryMs: 50,
    });
    const annotated = async (): Promise<string | undefined> =>
      (await client.resource(Nodes).get('n1')).metadata.annotations?.[CONTROLLER_CONFIG_RV_ANNOTATION];
    const waitUntil = async (what: string, ok: () => Promise<boolean>): Promise<void> => {
      for (let i = 0; !(await ok()); i++) {
        if (i > 400) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    try {
      sync.start();
      const first = await client.resource(ControllerConfigs).get('machine-config-controller');
      await waitUntil('first sync', async () => (await annotated()) === first.metadata.resourceVersion);
      expect(readFileSync(join(env.dir, KUBELET_CA_PATH), 'utf8')).toContain('TEST');
      expect(stats.writes).toBe(1);
      // the kube-apiserver serving CA rotates: the file follows, no reboot, no MachineConfig
      const next = await client.resource(ControllerConfigs).update({
        ...first,
        spec: { ...first.spec, kubeAPIServerServingCAData: b64('ROTATED-CA\n') },
      });
      await waitUntil('second sync', async () => (await annotated()) === next.metadata.resourceVersion);
      expect(readFileSync(join(env.dir, KUBELET_CA_PATH), 'utf8')).toBe('ROTATED-CA\n');
      expect(stats.writes).toBe(2);
      // node events (our own annotation) do not cause further writes
      await new Promise((r) => setTimeout(r, 300));
      await sync.idle();
      expect(stats.writes).toBe(2);
    } finally {
      await sync.stop();
      await nodes.stop();
    }
  });
});
