/**
 * Rehearsal releases A → B fetched the real way: from the in-process OCI registry through @keelson/release-payload's
 * RegistryClient (openPayload docker://…), B's signature verified with the key and store A's ConfigMap declares.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  diffPayloads,
  openPayload,
  RegistryClient,
  parseImageReference,
  verificationConfigFromManifests,
  verifyRelease,
  type ReleasePayload,
} from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateRehearsalReleases,
  publishRehearsalReleases,
  type PublishedReleases,
} from '../../src/release/index.js';

let work = '';
let pub: PublishedReleases;
let a: ReleasePayload;
let b: ReleasePayload;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rehearsal-releases-'));
  pub = await publishRehearsalReleases({ out: join(work, 'releases') });
  const cacheDir = join(work, 'cache');
  a = await openPayload(`docker://${pub.from.pullSpec}`, { cacheDir });
  b = await openPayload(`docker://${pub.to.pullSpec}`, { cacheDir });
}, 60_000);

afterAll(async () => {
  await pub.close();
  await rm(work, { recursive: true, force: true });
});

const find = (p: ReleasePayload, kind: string, name: string) =>
  p.manifests.find((m) => m.gvk.kind === kind && m.name === name);

describe('rehearsal releases', { timeout: 60_000 }, () => {
  it('are read from the registry by digest with their version and verified digest', () => {
    expect(a.metadata.version).toBe('4.18.7');
    expect(b.metadata.version).toBe('4.18.8');
    expect(b.image?.digest).toBe(pub.to.digest);
    expect(b.metadata.previous).toContain('4.18.7');
    expect(pub.registry.requests).toBeGreaterThan(0);
  });

  it('serves tags and answers unknown names with the distribution error codes', async () => {
    const client = new RegistryClient(parseImageReference(pub.to.tagPullSpec), { plainHttp: true });
    expect((await client.manifest('4.18.8-x86_64')).digest).toBe(pub.to.digest);
    const res = await fetch(`http://${pub.registry.host}/v2/nope/manifests/latest`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('NAME_UNKNOWN');
    const blob = await fetch(
      `http://${pub.registry.host}/v2/openshift-release-dev/ocp-release/blobs/sha256:${'0'.repeat(64)}`,
    );
    expect(blob.status).toBe(404);
  });

  it('carry the CVO and MCO manifests, a ClusterOperator per component at the release version, run levels 00-90', () => {
    expect(
      a.manifests.some(
        (m) => m.filename.startsWith('0000_00_cluster-version-operator_') && m.gvk.kind === 'Deployment',
      ),
    ).toBe(true);
    const os = find(b, 'ConfigMap', 'machine-config-osimageurl');
    expect(os?.namespace).toBe('openshift-machine-config-operator');
    const data = os?.object['data'] as Record<string, string>;
    expect(data['releaseVersion']).toBe('4.18.8');
    expect(data['baseOSContainerImage']).toBe(pub.to.baseOSContainerImage);
    expect(data['baseOSExtensionsContainerImage']).toMatch(/@sha256:/);
    const cos = b.manifests.filter((m) => m.gvk.kind === 'ClusterOperator');
    expect(cos.length).toBeGreaterThanOrEqual(10);
    for (const co of cos)
      expect((co.object['status'] as { versions: { name: string; version: string }[] }).versions).toContainEqual({
        name: 'operator',
        version: '4.18.8',
      });
    const levels = new Set(
      b.manifests.map((m) => /^0000_(\d\d)_/.exec(m.filename)?.[1]).filter((x) => x !== undefined),
    );
    expect(levels.has('00') && levels.has('50') && levels.has('80') && levels.has('90')).toBe(true);
    expect(find(a, 'MachineConfig', '50-master-release-base')).toBeDefined();
    expect(find(a, 'MachineConfig', '50-worker-release-base')).toBeDefined();
    expect(find(a, 'MachineConfigPool', 'worker')).toBeDefined();
    expect(find(a, 'CustomResourceDefinition', 'machineconfigs.machineconfiguration.openshift.io')).toBeDefined();
  });

  it('ship each object once, as a real release does (the CVO would rewrite differing duplicates on every pass)', () => {
    for (const p of [a, b]) {
      // release-manifests/ only: the CVO's own manifests/ repeat its namespace there, as the CVO image's do upstream
      const ids = p.manifests.filter((m) => m.dir === 'release-manifests').map((m) => m.id);
      expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    }
    // the generator ships etcd-operator at run levels 12 and 20: the lower one keeps the objects they share
    const role = a.manifests.filter((m) => m.gvk.kind === 'ClusterRole' && m.name.endsWith(':etcd-operator'));
    expect(role.map((m) => m.filename)).toEqual(['0000_12_etcd-operator_02-rbac.yaml']);
  });

  it('B changes operator images, one manifest, deletes one, moves RHCOS and adds a kernel argument', () => {
    const d = diffPayloads(a, b);
    expect(
      d.images.filter((i) => i.from !== undefined && i.to !== undefined && i.from !== i.to).length,
    ).toBeGreaterThan(10);
    expect(d.osImages.map((i) => i.name)).toContain('rhel-coreos');
    const changed = d.manifests.changed.map((c) => c.toFile);
    expect(changed).toContain(`release-manifests/${pub.changedManifest}`);
    const deleted = find(b, 'ConfigMap', 'legacy-console-plugin');
    expect(deleted?.annotations?.['release.openshift.io/delete']).toBe('true');
    const worker = find(b, 'MachineConfig', '50-worker-release-base')?.object['spec'] as { kernelArguments: string[] };
    expect(worker.kernelArguments).toContain(pub.addedKernelArgument);
    expect(
      (find(a, 'MachineConfig', '50-worker-release-base')?.object['spec'] as { kernelArguments: string[] })
        .kernelArguments,
    ).not.toContain(pub.addedKernelArgument);
  });

  it("B's signature verifies with the key and store of A's release-verification ConfigMap", async () => {
    const cfg = verificationConfigFromManifests(a.manifests);
    expect(cfg?.configMap).toBe('openshift-config-managed/release-verification');
    expect(cfg?.stores).toEqual([{ url: pub.store.url }]);
    const r = await verifyRelease({ digest: pub.to.digest, keyrings: cfg?.keyrings ?? [], stores: cfg?.stores ?? [] });
    expect(r.failures).toEqual([]);
    expect(r.verified).toBe(true);
    expect(r.signatures[0]?.fingerprint).toBe(pub.key.fingerprint);
    expect(r.signatures[0]?.dockerReference).toBe(pub.to.tagPullSpec);
    const wrong = await verifyRelease({
      digest: pub.from.digest.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
      keyrings: cfg?.keyrings ?? [],
      stores: cfg?.stores ?? [],
    });
    expect(wrong.verified).toBe(false);
  });

  it('writes the same bytes for the same seed', async () => {
    const again = await publishRehearsalReleases({ out: join(work, 'again') });
    try {
      expect(again.to.digest).not.toBe(pub.to.digest); // the store URL (a fresh port) is part of the payload
      const x = await readFile(
        join(pub.to.dir, 'release-manifests', '0000_80_machine-config_05_osimageurl.yaml'),
        'utf8',
      );
      const y = await readFile(
        join(again.to.dir, 'release-manifests', '0000_80_machine-config_05_osimageurl.yaml'),
        'utf8',
      );
      expect(y).toBe(x);
    } finally {
      await again.close();
    }
  });
});

describe('rehearsal releases with the MCO app manifests', { timeout: 60_000 }, () => {
  it('use the app folder, substituting image placeholders and the version as oc adm release new does', async () => {
    const appDir = join(work, 'mco-manifests');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(appDir, { recursive: true });
    await writeFile(
      join(appDir, '0000_80_machine-config_05_osimageurl.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\n  namespace: openshift-machine-config-operator\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\ndata:\n  releaseVersion: 0.0.1-snapshot\n  baseOSContainerImage: "placeholder.url.oc.will.replace.this.org/placeholdernamespace:rhel-coreos"\n  baseOSExtensionsContainerImage: "placeholder.url.oc.will.replace.this.org/placeholdernamespace:rhel-coreos-extensions"\n',
    );
    await writeFile(
      // as upstream's install/, the app ships only the operator's own workload (the operator deploys the others)
      join(appDir, '0000_80_machine-config_04_deployment.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: machine-config-operator\n  namespace: openshift-machine-config-operator\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\nspec:\n  template:\n    spec:\n      containers:\n      - name: machine-config-operator\n        image: placeholder.url.oc.will.replace.this.org/placeholdernamespace:machine-config-operator\n',
    );
    // tags only the app's image-references names (images.json's infra image) join the release's, as oc adds them
    await writeFile(
      join(appDir, 'image-references'),
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n  - name: pod\n    from:\n      kind: DockerImage\n      name: placeholder.url.oc.will.replace.this.org/placeholdernamespace:pod\n',
    );
    await writeFile(
      join(appDir, '0000_80_machine-config_02_images.configmap.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-operator-images\n  namespace: openshift-machine-config-operator\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\ndata:\n  images.json: >\n    {"releaseVersion": "0.0.1-snapshot", "infraImage": "placeholder.url.oc.will.replace.this.org/placeholdernamespace:pod"}\n',
    );
    const r = await generateRehearsalReleases({ out: join(work, 'with-app'), machineConfigManifestsDir: appDir });
    const b2 = await openPayload(r.to.dir);
    const os = b2.manifests.find((m) => m.name === 'machine-config-osimageurl');
    expect(os?.object['data']).toEqual({
      releaseVersion: '4.18.8',
      baseOSContainerImage: r.to.baseOSContainerImage,
      baseOSExtensionsContainerImage: b2.images['rhel-coreos-extensions'],
    });
    const imgs = b2.manifests.find((m) => m.name === 'machine-config-operator-images');
    const json = JSON.parse((imgs?.object['data'] as Record<string, string>)['images.json'] ?? '{}') as object;
    expect(json).toEqual({ releaseVersion: '4.18.8', infraImage: b2.images['pod'] });
    expect(b2.images['pod']).toMatch(/^quay\.io\/openshift-release-dev\/ocp-v4\.0-art-dev@sha256:[0-9a-f]{64}$/);
    expect(b2.images['pod']).not.toBe((await openPayload(r.from.dir)).images['pod']);
    const op = b2.manifests.filter((m) => m.gvk.kind === 'Deployment' && m.name === 'machine-config-operator');
    expect(op).toHaveLength(1); // the app's, in place of the generated one
    expect(JSON.stringify(op[0]?.object)).toContain(b2.images['machine-config-operator'] ?? 'missing');
    expect(
      b2.manifests.filter((m) => m.gvk.kind === 'DaemonSet' && m.namespace === 'openshift-machine-config-operator'),
    ).toEqual([]);
    expect(b2.manifests.some((m) => m.gvk.kind === 'MachineConfigPool')).toBe(true);
    // the app's template controller writes 00-<role>: the release carries no MachineConfig (two writers otherwise)
    expect(b2.manifests.filter((m) => m.gvk.kind === 'MachineConfig')).toEqual([]);
    await writeFile(
      join(appDir, '0000_80_machine-config_11_bad.yaml'),
      'image: placeholder.url.oc.will.replace.this.org/placeholdernamespace:nope\n',
    );
    await expect(
      generateRehearsalReleases({ out: join(work, 'bad-app'), machineConfigManifestsDir: appDir }),
    ).rejects.toThrow(/tag nope/);
  });
});
