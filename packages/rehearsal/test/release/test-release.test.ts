import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import tar from 'tar-stream';
import { TEST_RELEASE_COMPONENTS, writeReleaseImageLayout, writeTestRelease } from '../../src/release/index.js';

const dir = mkdtempSync(join(tmpdir(), 'payload-gen-test-release-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function tarNames(data: Buffer): Promise<string[]> {
  const names: string[] = [];
  const ex = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (h, stream, next) => {
      names.push(h.name);
      stream.on('end', next);
      stream.resume();
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.end(data);
  await done;
  return names;
}

describe('writeTestRelease', () => {
  it('writes the components, the CVO manifests, the verification ConfigMap and the obsolete object', async () => {
    await writeTestRelease(join(dir, 'seed'), { version: '0' });
    const root = await writeTestRelease(join(dir, 'a'), {
      version: '4.18.1',
      cvoManifestsDir: join(dir, 'seed', 'release-manifests'),
      verification: { publicKey: 'KEY', store: 'file:///s', name: 'e2e' },
      obsoleteManifest: 'delete',
    });
    const rm = readdirSync(join(root, 'release-manifests'));
    expect(rm.filter((f) => f.endsWith('_99_clusteroperator.yaml'))).toHaveLength(TEST_RELEASE_COMPONENTS.length);
    expect(readdirSync(join(root, 'manifests'))).toContain('release-metadata');
    const dep = JSON.parse(readFileSync(join(root, 'release-manifests', '0000_50_dns_02_deployment.yaml'), 'utf8')) as {
      spec: { template: { spec: { containers: { env: unknown }[] } } };
    };
    expect(dep.spec.template.spec.containers[0]?.env).toEqual([{ name: 'RELEASE_VERSION', value: '4.18.1' }]);
    const co = JSON.parse(
      readFileSync(join(root, 'release-manifests', '0000_50_dns_99_clusteroperator.yaml'), 'utf8'),
    ) as { status: unknown };
    expect(co.status).toEqual({
      versions: [{ name: 'operator', version: '4.18.1' }],
      relatedObjects: [{ group: '', resource: 'namespaces', name: 'openshift-dns' }],
    });
    const ver = JSON.parse(
      readFileSync(join(root, 'release-manifests', '0000_90_cluster-update-keys_configmap.yaml'), 'utf8'),
    ) as { data: Record<string, string> };
    expect(ver.data).toEqual({ 'verifier-public-key-e2e': 'KEY', 'store-e2e': 'file:///s' });
    const obsolete = JSON.parse(
      readFileSync(join(root, 'release-manifests', '0000_50_ingress_05_obsolete.yaml'), 'utf8'),
    ) as { metadata: { annotations: Record<string, string> } };
    expect(obsolete.metadata.annotations['release.openshift.io/delete']).toBe('true');
    const meta = JSON.parse(readFileSync(join(root, 'release-manifests', 'release-metadata'), 'utf8')) as {
      version: string;
    };
    expect(meta.version).toBe('4.18.1');
  });

  it('leaves out what was not asked for', async () => {
    const root = await writeTestRelease(join(dir, 'b'), { version: '1.0.0', components: [['20', 'x']] });
    expect(readdirSync(join(root, 'manifests'))).toEqual([]);
    expect(readdirSync(join(root, 'release-manifests')).sort()).toEqual([
      '0000_03_config-operator_00_namespaces.yaml',
      '0000_20_x_00_namespace.yaml',
      '0000_20_x_01_config.yaml',
      '0000_20_x_02_deployment.yaml',
      '0000_20_x_99_clusteroperator.yaml',
      'image-references',
      'release-metadata',
    ]);
  });
});

describe('writeReleaseImageLayout', () => {
  it('writes a content-addressed OCI layout whose layer holds manifests/ and release-manifests/; same input, same digest', async () => {
    const root = await writeTestRelease(join(dir, 'c'), { version: '2.0.0' });
    const layout = join(dir, 'layout-c');
    const digest = await writeReleaseImageLayout(root, layout);
    const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as {
      manifests: { digest: string; size: number; annotations: Record<string, string> }[];
    };
    expect(index.manifests).toHaveLength(1);
    expect(index.manifests[0]).toMatchObject({
      digest,
      annotations: { 'org.opencontainers.image.ref.name': 'release' },
    });
    expect(JSON.parse(readFileSync(join(layout, 'oci-layout'), 'utf8'))).toEqual({ imageLayoutVersion: '1.0.0' });
    const blob = (d: string): Buffer => readFileSync(join(layout, 'blobs', 'sha256', d.slice(7)));
    const manifestBytes = blob(digest);
    expect(`sha256:${createHash('sha256').update(manifestBytes).digest('hex')}`).toBe(digest);
    expect(index.manifests[0]?.size).toBe(manifestBytes.length);
    const manifest = JSON.parse(manifestBytes.toString('utf8')) as {
      layers: { digest: string }[];
      config: { digest: string };
    };
    const layer = blob(manifest.layers[0]?.digest ?? '');
    const names = await tarNames(gunzipSync(layer));
    expect(names).toContain('release-manifests/0000_70_console_99_clusteroperator.yaml');
    expect(names).toContain('manifests/');
    expect(JSON.parse(blob(manifest.config.digest).toString('utf8'))).toMatchObject({
      config: { Labels: { 'io.openshift.release': 'x' } },
    });
    expect(await writeReleaseImageLayout(root, join(dir, 'layout-c2'))).toBe(digest);
  });
});
