/**
 * Target payload retrieval where the release is only reachable through a mirror, against the embedded API server and
 * a REAL registry (Debian's docker-registry on loopback, filled with skopeo): the release's pull spec names a source
 * registry that is not there (a closed loopback port).
 * - `direct`: the operator reads the cluster's ImageDigestMirrorSet and pulls from the mirror itself.
 * - `pod` (upstream): the operator creates the `version-<v>-<rand>` Pod on its node; the virtual node's kubelet pulls
 *   the image through the node's registries.conf mirror, runs the Pod's containers against the node's
 *   `/etc/cvo/updatepayloads`, and the operator loads the payload from there. A release whose manifest the mirror
 *   does not have fails fast with upstream's "failed at pending … manifest unknown" text.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, isAlreadyExists, nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type CvoEvent, type RunningCvo } from '../src/index.js';
import { payloadHash } from '../src/payload/pod-retrieval.js';
import { readClusterPullConfig } from '../src/payload/cluster-pull-config.js';
import { startPayloadKubelet, type PayloadKubelet } from '../src/virtual/payload-kubelet.js';
import {
  OperatorReporterDouble,
  Signer,
  startCluster,
  waitFor,
  writeFixturePayload,
  writeOciLayout,
} from './helpers.js';
import { freePort, installCrds, pushLayout, startRegistry, type TestRegistry } from './registry-helpers.js';

interface CV {
  status?: {
    history?: { state: string; version: string; image: string; verified: boolean }[];
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}
interface Pod {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
  status?: { phase?: string };
}

const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
const logger = () => (process.env['CVO_TEST_LOG'] ? createLogger({ level: 'debug' }) : nullLogger);

let registry: TestRegistry;
let signer: Signer;
let work = '';
let payloadA = '';
let digestB = '';
let digestC = '';
let sourceHost = '';

async function setDesired(client: KubeClient, desiredUpdate: unknown): Promise<void> {
  await client.request('PATCH', '/apis/config.openshift.io/v1/clusterversions/version', {
    body: { spec: { desiredUpdate } },
    contentType: 'application/merge-patch+json',
  });
}
const getCv = (client: KubeClient) => client.request<CV>('GET', '/apis/config.openshift.io/v1/clusterversions/version');
const cond = (cv: CV, t: string) => cv.status?.conditions?.find((c) => c.type === t);

async function completed(client: KubeClient, version: string): Promise<CV> {
  return waitFor(
    async () => {
      const cv = await getCv(client);
      return cv.status?.history?.[0]?.version === version && cv.status.history[0].state === 'Completed'
        ? cv
        : undefined;
    },
    60_000,
    `${version} Completed`,
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cvo-retrieval-'));
  signer = await Signer.create();
  const store = join(work, 'signatures');
  const verification = { publicKey: signer.publicKey(), store: `file://${store}` };
  payloadA = await writeFixturePayload(join(work, 'payload-a'), '4.18.0', { verification });
  await writeFixturePayload(join(work, 'payload-b'), '4.18.1', { verification });
  await writeFixturePayload(join(work, 'payload-c'), '4.18.2', { verification });
  digestB = await writeOciLayout(join(work, 'payload-b'), join(work, 'layout-b'));
  digestC = await writeOciLayout(join(work, 'payload-c'), join(work, 'layout-c'));
  await signer.sign(store, digestB, 'quay.io/keelson/release:4.18.1');
  registry = await startRegistry(work);
  await pushLayout(join(work, 'layout-b'), `${registry.host}/mirror/release:4.18.1`);
  sourceHost = `127.0.0.1:${await freePort()}`; // nothing listens there: the release is only on the mirror
}, 120_000);

afterAll(() => {
  registry?.stop();
});

describe('direct retrieval honours ImageDigestMirrorSet mirrors', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let cvo: RunningCvo | undefined;
  let reporter: OperatorReporterDouble;
  const events: CvoEvent[] = [];

  beforeAll(async () => {
    let kubeconfig: string;
    let dir: string;
    ({ sandbox, client, kubeconfig, dir } = await startCluster());
    await installCrds(
      client,
      ['0000_10_config-operator_01_imagedigestmirrorsets.crd.yaml'],
      ['/apis/config.openshift.io/v1/imagedigestmirrorsets'],
    );
    reporter = new OperatorReporterDouble(client);
    reporter.start();
    cvo = await startClusterVersionOperator({
      kubeconfig,
      payloadDir: payloadA,
      releaseImage: IMAGE_A,
      payloadRetrieval: 'direct',
      payloadCache: join(dir, 'cache'),
      listen: '127.0.0.1:0',
      timeScale: 0.002,
      intervals: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
      logger: logger(),
      onEvent: (e) => events.push(e),
    });
    await completed(client, '4.18.0');
  }, 90_000);

  afterAll(async () => {
    reporter?.stop();
    await cvo?.stop();
    await sandbox?.stop();
  });

  it('fails without a mirror, then pulls from the ImageDigestMirrorSet mirror once one is created', async () => {
    const image = `${sourceHost}/ocp/release@${digestB}`;
    await setDesired(client, { version: '4.18.1', image });
    const failed = await waitFor(
      async () => {
        const ra = cond(await getCv(client), 'ReleaseAccepted');
        return ra?.status === 'False' ? ra : undefined;
      },
      60_000,
      'ReleaseAccepted=False',
    );
    expect(failed.reason).toBe('RetrievePayload');
    expect(failed.message).toContain(`Retrieving payload failed version="4.18.1" image="${image}" failure=`);
    expect(failed.message).toContain('Unable to download and prepare the update');
    await client.request('POST', '/apis/config.openshift.io/v1/imagedigestmirrorsets', {
      body: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'ImageDigestMirrorSet',
        metadata: { name: 'release-mirror' },
        spec: {
          imageDigestMirrors: [
            {
              source: `${sourceHost}/ocp`,
              mirrors: [`${registry.host}/mirror`],
              mirrorSourcePolicy: 'NeverContactSource',
            },
          ],
        },
      },
    });
    const cv = await completed(client, '4.18.1');
    expect(cv.status?.history?.[0]).toMatchObject({ image, verified: true });
    expect(events.some((e) => e.type === 'payloadLoaded' && e.version === '4.18.1')).toBe(true);
  }, 120_000);

  it('reads the Proxy status, trusted CA bundles, image.config CAs and registry sources as CRI-O gets them', async () => {
    await installCrds(
      client,
      ['0000_03_config-operator_01_proxies.crd.yaml', '0000_10_config-operator_01_images.crd.yaml'],
      ['/apis/config.openshift.io/v1/proxies', '/apis/config.openshift.io/v1/images'],
    );
    const pem = (n: string) => `-----BEGIN CERTIFICATE-----\n${n}\n-----END CERTIFICATE-----\n`;
    const cm = (namespace: string, name: string, data: Record<string, string>) =>
      client.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data },
      });
    for (const ns of ['openshift-config', 'openshift-config-managed'])
      await client
        .request('POST', '/api/v1/namespaces', {
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
        })
        .catch((e: unknown) => {
          if (!isAlreadyExists(e)) throw e;
        });
    await cm('openshift-config', 'user-ca-bundle', { 'ca-bundle.crt': pem('USER') });
    await cm('openshift-config-managed', 'trusted-ca-bundle', { 'ca-bundle.crt': pem('MERGED') });
    await cm('openshift-config', 'registry-cas', { 'mirror.example.com..5000': pem('MIRROR'), 'quay.io': pem('QUAY') });
    await client.request('POST', '/apis/config.openshift.io/v1/proxies', {
      body: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Proxy',
        metadata: { name: 'cluster' },
        spec: { httpsProxy: 'http://proxy.example.com:3128', trustedCA: { name: 'user-ca-bundle' } },
      },
    });
    const proxy = await client.request<Record<string, unknown>>('GET', '/apis/config.openshift.io/v1/proxies/cluster');
    await client.request('PUT', '/apis/config.openshift.io/v1/proxies/cluster/status', {
      body: {
        ...proxy,
        status: { httpsProxy: 'http://proxy.example.com:3128', noProxy: '.cluster.local,10.0.0.0/16,localhost' },
      },
    });
    await client.request('POST', '/apis/config.openshift.io/v1/images', {
      body: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Image',
        metadata: { name: 'cluster' },
        spec: {
          additionalTrustedCA: { name: 'registry-cas' },
          registrySources: { insecureRegistries: ['insecure.example.com'], blockedRegistries: ['blocked.example.com'] },
        },
      },
    });
    const got = await readClusterPullConfig(client);
    expect(got).toEqual({
      mirrors: [
        {
          source: `${sourceHost}/ocp`,
          mirrors: [{ location: `${registry.host}/mirror`, pullFromMirror: 'digest-only' }],
          blocked: true,
        },
      ],
      proxy: { httpsProxy: 'http://proxy.example.com:3128', noProxy: '.cluster.local,10.0.0.0/16,localhost' },
      registryCAs: { 'mirror.example.com:5000': pem('MIRROR'), 'quay.io': pem('QUAY') },
      trustedCA: `${pem('MERGED')}\n${pem('USER')}`,
      insecureRegistries: ['insecure.example.com'],
      blockedRegistries: ['blocked.example.com'],
    });
  });
});

describe('pod retrieval (upstream) with the virtual node as the kubelet', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let cvo: RunningCvo | undefined;
  let kubelet: PayloadKubelet | undefined;
  let reporter: OperatorReporterDouble;
  let nodeRoot = '';
  const pods: Pod[] = [];

  beforeAll(async () => {
    let kubeconfig: string;
    let dir: string;
    ({ sandbox, client, kubeconfig, dir } = await startCluster());
    nodeRoot = join(dir, 'nodes', 'master-0');
    // the node's CRI-O configuration, as the MCO renders it from an IDMS (99-master-generated-registries)
    await mkdir(join(nodeRoot, 'etc/containers'), { recursive: true });
    await writeFile(
      join(nodeRoot, 'etc/containers/registries.conf'),
      `unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\nshort-name-mode = ""\n\n[[registry]]\n  prefix = ""\n  location = "${sourceHost}/ocp"\n  blocked = true\n\n  [[registry.mirror]]\n    location = "${registry.host}/mirror"\n    pull-from-mirror = "digest-only"\n`,
    );
    kubelet = await startPayloadKubelet({
      client,
      nodeName: 'master-0',
      root: nodeRoot,
      log: logger(),
      timeScale: 20,
      minDeadlineMs: 0,
    });
    void client
      .watch<Pod & { kind?: string; apiVersion?: string }>(
        '/api/v1/namespaces/openshift-cluster-version/pods',
        {},
        (ev) => {
          if (ev.type === 'ADDED') pods.push(ev.object);
        },
      )
      .catch(() => undefined);
    reporter = new OperatorReporterDouble(client);
    reporter.start();
    cvo = await startClusterVersionOperator({
      kubeconfig,
      payloadDir: payloadA,
      releaseImage: IMAGE_A,
      payloadRetrieval: 'pod',
      nodeName: 'master-0',
      payloadCache: join(nodeRoot, 'etc/cvo/updatepayloads'),
      listen: '127.0.0.1:0',
      timeScale: 0.002,
      intervals: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
      logger: logger(),
    });
    await completed(client, '4.18.0');
  }, 90_000);

  afterAll(async () => {
    reporter?.stop();
    await cvo?.stop();
    await kubelet?.stop();
    await sandbox?.stop();
  });

  it('creates the version Pod as upstream; the node pulls through its mirror and the update completes', async () => {
    const image = `${sourceHost}/ocp/release@${digestB}`;
    await setDesired(client, { version: '4.18.1', image });
    const cv = await completed(client, '4.18.1');
    expect(cv.status?.history?.[0]).toMatchObject({ image, verified: true });
    const pod = pods.find((p) => p.metadata.name.startsWith('version-4.18.1-'));
    expect(pod?.metadata.name).toMatch(/^version-4\.18\.1-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod?.metadata.labels).toEqual({ 'k8s-app': 'retrieve-openshift-release' });
    expect(pod?.metadata.annotations).toMatchObject({ 'openshift.io/required-scc': 'privileged' });
    expect(pod?.spec).toMatchObject({
      activeDeadlineSeconds: 120,
      nodeName: 'master-0',
      restartPolicy: 'OnFailure',
      priorityClassName: 'openshift-user-critical',
      nodeSelector: { 'node-role.kubernetes.io/master': '' },
      volumes: [{ name: 'payloads', hostPath: { path: '/etc/cvo/updatepayloads' } }],
    });
    const inits = (pod?.spec['initContainers'] as { name: string; command: string[] }[]).map((c) => c.name);
    expect(inits).toEqual([
      'cleanup',
      'make-temporary-directory',
      'copy-operator-manifests-to-temporary-directory',
      'copy-release-manifests-to-temporary-directory',
    ]);
    expect(kubelet?.finished.get(pod?.metadata.name ?? '')).toBe('Succeeded');
    const hash = payloadHash(image);
    expect(await readdir(join(nodeRoot, 'etc/cvo/updatepayloads'))).toEqual([hash]);
    expect((await readdir(join(nodeRoot, 'etc/cvo/updatepayloads', hash))).sort()).toEqual([
      'manifests',
      'release-manifests',
    ]);
  }, 120_000);

  it('fails fast with upstream text when the mirror lacks the manifest; old Pods are pruned', async () => {
    const image = `${sourceHost}/ocp/release@${digestC}`;
    await setDesired(client, { version: '4.18.2', image, force: true });
    const failed = await waitFor(
      async () => {
        const ra = cond(await getCv(client), 'ReleaseAccepted');
        return ra?.status === 'False' && ra.message?.includes('4.18.2') ? ra : undefined;
      },
      60_000,
      'ReleaseAccepted=False for 4.18.2',
    );
    expect(failed.message).toMatch(
      /failure=Unable to download and prepare the update: fetching update payload: pod version-4\.18\.2-\w{5} failed at pending with reason "" and message "" and status initcontainer cleanup is waiting with reason "ErrImagePull" and message "rpc error: code = Unknown desc = reading manifest sha256:[0-9a-f]{64} in 127\.0\.0\.1:\d+\/ocp\/release: manifest unknown"/,
    );
    const left = await client.request<{ items: Pod[] }>('GET', '/api/v1/namespaces/openshift-cluster-version/pods');
    expect(left.items.map((p) => p.metadata.name).filter((n) => n.startsWith('version-4.18.1-'))).toEqual([]);
    await rm(join(nodeRoot, 'etc/cvo/updatepayloads'), { recursive: true, force: true });
  }, 120_000);

  it("an image the node cannot pull fails when the Pod's activeDeadlineSeconds pass (DeadlineExceeded)", async () => {
    const image = `${sourceHost}/elsewhere/release@${digestB}`; // no mirror for this repository: the closed source
    await setDesired(client, { version: '4.18.3', image, force: true });
    const failed = await waitFor(
      async () => {
        const ra = cond(await getCv(client), 'ReleaseAccepted');
        return ra?.status === 'False' && ra.message?.includes('4.18.3') && ra.message.includes('DeadlineExceeded')
          ? ra
          : undefined;
      },
      90_000,
      'ReleaseAccepted=False with DeadlineExceeded',
    );
    expect(failed.message).toMatch(
      /failure=Unable to download and prepare the update: fetching update payload: pod version-4\.18\.3-\w{5} failed with reason "DeadlineExceeded" and message "Pod was active on the node longer than the specified deadline" and status initcontainer cleanup is waiting with reason "(ErrImagePull|ImagePullBackOff)"/,
    );
  }, 120_000);
});
