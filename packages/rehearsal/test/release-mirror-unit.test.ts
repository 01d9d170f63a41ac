/** The pieces of `rehearse --release-mirror` on their own: the IDMS, the node check, the typed timeout. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapImageConfig } from '../src/image-config.js';
import { applyReleaseMirror, nodePullSources, releaseMirrorSet } from '../src/release-mirror.js';

const M = {
  source: '127.0.0.1:5000/openshift-release-dev/ocp-release',
  mirror: '127.0.0.1:5000/keelson-mirror/ocp-release',
};
const PULL = `${M.source}@sha256:${'a'.repeat(64)}`;
// as the machine-config-controller renders an IDMS into registries.conf
const RENDERED = `unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]
short-name-mode = ""

[[registry]]
  prefix = ""
  location = "${M.source}"

  [[registry.mirror]]
    location = "${M.mirror}"
    pull-from-mirror = "digest-only"
`;

let sb: Sandbox;
let client: KubeClient;
let work = '';
beforeAll(async () => {
  sb = await startSandbox();
  client = KubeClient.fromKubeconfigString(sb.kubeconfigYaml());
  await bootstrapImageConfig(client);
  work = await mkdtemp(join(tmpdir(), 'release-mirror-unit-'));
});
afterAll(async () => {
  await client.close();
  await sb.stop();
  await rm(work, { recursive: true, force: true });
});

describe('release mirror', { timeout: 60_000 }, () => {
  it('reads where a node pulls B from its registries.conf', async () => {
    const node = join(work, 'nodes', 'master-0');
    expect(await nodePullSources(node, PULL)).toBeUndefined();
    await mkdir(join(node, 'etc/containers'), { recursive: true });
    await writeFile(join(node, 'etc/containers/registries.conf'), RENDERED);
    expect(await nodePullSources(node, PULL)).toEqual([`${M.mirror}@sha256:${'a'.repeat(64)}`, PULL]);
    // digest-only: a pull by tag still goes to the source only
    expect(await nodePullSources(node, `${M.source}:4.18.8-x86_64`)).toEqual([`${M.source}:4.18.8-x86_64`]);
  });

  it('creates the ImageDigestMirrorSet and fails naming the nodes still without the mirror', async () => {
    const err = await applyReleaseMirror(client, M, {
      pullSpec: PULL,
      nodesDir: join(work, 'nodes'),
      nodes: ['master-0', 'worker-0'],
      pools: () => [],
      deadline: Date.now() + 300,
    }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe(
      `ImageDigestMirrorSet keelson-release-mirror (${M.source} → ${M.mirror}) did not reach every node in time: registries.conf of worker-0 does not pull from the mirror`,
    );
    const idms = await client.request<unknown>(
      'GET',
      '/apis/config.openshift.io/v1/imagedigestmirrorsets/keelson-release-mirror',
    );
    expect(idms).toMatchObject({ spec: releaseMirrorSet(M).spec });
  });
});
