/**
 * The rehearsal MCO's images.json (issue 20 §3 `images`): the release built from the MCO app's manifests carries
 * ConfigMap machine-config-operator-images with the release's pull specs (placeholders replaced from its
 * image-references, 0.0.1-snapshot by the version), and the operator is started with it, as the Deployment's volume
 * hands it to upstream's operator.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { generateRehearsalReleases } from '../src/release/index.js';
import { openPayload, type ReleasePayload } from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineConfigManifestsDir } from '../src/components.js';
import { parseFaults } from '../src/faults.js';
import { rehearse } from '../src/run.js';
import {
  MCO_IMAGES_CONFIGMAP,
  MCO_IMAGES_NAMESPACE,
  McoImagesError,
  parseImagesJson,
  readMcoImages,
} from '../src/mco-images.js';

let work: string;
let a: ReleasePayload;
let b: ReleasePayload;
let sandbox: Sandbox;
let kubeconfig: string;
let client: KubeClient;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mco-images-'));
  const mcoDir = await machineConfigManifestsDir();
  if (mcoDir === undefined) throw new Error('the MCO app ships no manifests/');
  const rel = await generateRehearsalReleases({ out: join(work, 'releases'), machineConfigManifestsDir: mcoDir });
  a = await openPayload(rel.from.dir);
  b = await openPayload(rel.to.dir);
  sandbox = await startSandbox();
  kubeconfig = join(work, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  client = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
}, 120_000);
afterAll(async () => {
  await sandbox.stop();
  await rm(work, { recursive: true, force: true });
});

const imagesConfigMap = (p: ReleasePayload): Record<string, unknown> => {
  const m = p.manifests.find((x) => x.gvk.kind === 'ConfigMap' && x.name === MCO_IMAGES_CONFIGMAP);
  if (m === undefined) throw new Error(`${p.metadata.version} has no ConfigMap ${MCO_IMAGES_CONFIGMAP}`);
  return m.object;
};

describe('images.json of the rehearsal releases', () => {
  it("each release's ConfigMap names its own version and its image-references pull specs", () => {
    for (const p of [a, b]) {
      const cm = imagesConfigMap(p);
      const json = parseImagesJson((cm['data'] as Record<string, string>)['images.json'] ?? '');
      expect(json).toEqual({
        releaseVersion: p.metadata.version,
        machineConfigOperator: p.images['machine-config-operator'],
        infraImage: p.images['pod'],
        keepalivedImage: p.images['keepalived-ipfailover'],
        corednsImage: p.images['coredns'],
        haproxyImage: p.images['haproxy-router'],
        baremetalRuntimeCfgImage: p.images['baremetal-runtimecfg'],
        oauthProxy: p.images['oauth-proxy'],
        kubeRbacProxy: p.images['kube-rbac-proxy'],
      });
      for (const v of Object.values(json)) expect(v).not.toContain('placeholder');
    }
    expect(b.images['pod']).not.toBe(a.images['pod']);
  });
  it('the operator Deployment mounts it and passes --images-json, as upstream', () => {
    const d = b.manifests.find((x) => x.gvk.kind === 'Deployment' && x.name === 'machine-config-operator');
    const pod = (d?.object['spec'] as { template: { spec: Record<string, unknown> } }).template.spec;
    const c = (
      pod['containers'] as Array<{ args: string[]; volumeMounts: Array<{ name: string; mountPath: string }> }>
    )[0];
    expect(c?.args).toContain('--images-json=/etc/mco/images/images.json');
    expect(c?.volumeMounts).toContainEqual({ name: 'images', mountPath: '/etc/mco/images' });
    expect(pod['volumes']).toContainEqual({ name: 'images', configMap: { name: MCO_IMAGES_CONFIGMAP } });
  });
});

describe('readMcoImages', () => {
  it('is undefined while the release has not created the ConfigMap, then reads what the CVO applied', async () => {
    await expect(readMcoImages(kubeconfig)).resolves.toBeUndefined();
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: MCO_IMAGES_NAMESPACE } },
    });
    await client.request('POST', `/api/v1/namespaces/${MCO_IMAGES_NAMESPACE}/configmaps`, {
      body: imagesConfigMap(b),
    });
    const images = await readMcoImages(kubeconfig);
    expect(images?.['releaseVersion']).toBe(b.metadata.version);
    expect(images?.['infraImage']).toBe(b.images['pod']);
  });
  it('refuses a ConfigMap without images.json or with a value that is not a string, naming it', async () => {
    const path = `/api/v1/namespaces/${MCO_IMAGES_NAMESPACE}/configmaps/${MCO_IMAGES_CONFIGMAP}`;
    const cm = await client.request<Record<string, unknown>>('GET', path);
    await client.request('PUT', path, { body: { ...cm, data: { other: '{}' } } });
    await expect(readMcoImages(kubeconfig)).rejects.toThrow(
      `configmap ${MCO_IMAGES_NAMESPACE}/${MCO_IMAGES_CONFIGMAP} has no key images.json`,
    );
    const cm2 = await client.request<Record<string, unknown>>('GET', path);
    await client.request('PUT', path, { body: { ...cm2, data: { 'images.json': '{"infraImage": 1}' } } });
    await expect(readMcoImages(kubeconfig)).rejects.toThrow(/key images.json: field infraImage is not a string/);
  });
});

describe('readMcoImages against an API server that fails', () => {
  /** A plain-HTTP API stand-in: 500 InternalError for the first `failures` GETs, then the ConfigMap. */
  async function flaky(failures: number): Promise<{ kubeconfig: string; requests: () => number; stop: () => void }> {
    let n = 0;
    const server = createServer((req, res) => {
      n++;
      const ok = n > failures;
      const body = ok
        ? { apiVersion: 'v1', kind: 'ConfigMap', data: { 'images.json': '{"releaseVersion":"4.18.8"}' } }
        : { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'InternalError', code: 500, message: 'boom' };
      res.writeHead(ok ? 200 : 500, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const path = join(work, `flaky-${failures}.kubeconfig`);
    await writeFile(
      path,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${url}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
    );
    return { kubeconfig: path, requests: () => n, stop: () => server.close() };
  }
  it('retries API errors as the kubelet retries a volume mount', async () => {
    const api = await flaky(2);
    try {
      await expect(readMcoImages(api.kubeconfig, { initialDelayMs: 10 })).resolves.toEqual({
        releaseVersion: '4.18.8',
      });
      expect(api.requests()).toBe(3);
    } finally {
      api.stop();
    }
  });
  it('gives up with the last error after its timeout', async () => {
    const api = await flaky(1_000);
    try {
      await expect(readMcoImages(api.kubeconfig, { timeoutMs: 300, initialDelayMs: 10 })).rejects.toThrow(/boom/);
      expect(api.requests()).toBeGreaterThan(1);
    } finally {
      api.stop();
    }
  });
});

describe('parseImagesJson', () => {
  it.each([
    ['text that is not JSON', 'not json', /key images.json: /],
    ['an array', '[]', /not a JSON object/],
    ['null', 'null', /not a JSON object/],
    ['70 kB', `{"a":"${'x'.repeat(70_000)}"}`, /more than 65536/],
  ])('refuses %s', (_label, text, err) => {
    expect(() => parseImagesJson(text)).toThrow(McoImagesError);
    expect(() => parseImagesJson(text)).toThrow(err);
  });
});

describe('a rehearsal', { timeout: 500_000 }, () => {
  it("gives B's operator B's images.json: ControllerConfig spec.images and the nodes' pause image are B's", async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rehearse-images-'));
    let images: Record<string, string> | undefined;
    try {
      const { report } = await rehearse({
        masters: 1,
        workers: 1,
        pools: {},
        timeScale: 120,
        faults: parseFaults([], [], []),
        timeoutSeconds: 300,
        workDir,
        hold: async (_report, kubeconfigPath) => {
          const c = KubeClient.fromKubeconfigString(await readFile(kubeconfigPath, 'utf8'));
          const cc = await c.request<{ spec: { images: Record<string, string> } }>(
            'GET',
            '/apis/machineconfiguration.openshift.io/v1/controllerconfigs/machine-config-controller',
          );
          images = cc.spec.images;
          await c.close();
        },
      });
      expect(report.outcome).toBe('Completed');
      const to = await openPayload(join(workDir, 'releases', '4.18.8'));
      // upstream's keys (pkg/controller/template/constants.go), every one from B's image-references
      expect(images).toEqual({
        machineConfigOperator: to.images['machine-config-operator'],
        apiServerWatcherKey: to.images['machine-config-operator'],
        infraImageKey: to.images['pod'],
        keepalivedImage: to.images['keepalived-ipfailover'],
        corednsImage: to.images['coredns'],
        haproxyImage: to.images['haproxy-router'],
        baremetalRuntimeCfgImage: to.images['baremetal-runtimecfg'],
        kubeRbacProxyImage: to.images['kube-rbac-proxy'],
      });
      for (const node of ['master-0', 'worker-0']) {
        const crio = await readFile(join(workDir, 'nodes', node, 'etc/crio/crio.conf.d/00-default'), 'utf8');
        expect(crio).toContain(`pause_image = "${to.images['pod'] ?? 'missing'}"`);
      }
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
