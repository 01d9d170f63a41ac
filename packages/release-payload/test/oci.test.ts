import { mkdtemp, writeFile, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  applyLayerBuffers,
  filterManifests,
  openPayload,
  UnsafeArchiveError,
  DEFAULT_CLUSTER_PROFILE,
  PayloadError,
} from '../src/index.js';
import { gz, payloadEntries, sha, tarBuffer, tarDir, writeLayout, zst } from './helpers.js';

const DATA = fileURLToPath(new URL('./fixtures/upstream/payload/', import.meta.url));
const FACTS = {
  excludeIdentifier: 'exclude-test',
  featureSet: '',
  profile: DEFAULT_CLUSTER_PROFILE,
  enabledFeatureGates: [],
};
const tmp = () => mkdtemp(join(tmpdir(), 'rp-oci-'));

async function layeredLayout(): Promise<{ root: string; digest: string }> {
  const root = await tmp();
  const base = await tarBuffer([
    { name: 'usr/bin/cluster-version-operator', data: 'binary' },
    {
      name: 'manifests/0000_00_stale.yaml',
      data: 'kind: X\napiVersion: v1\nmetadata:\n  name: stale\n  annotations: {a: b}\n',
    },
    ...(await payloadEntries(join(DATA, 'payloadtest'), './')),
    {
      name: 'release-manifests/0000_99_removed.yaml',
      data: 'kind: Gone\napiVersion: v1\nmetadata:\n  name: gone\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\n',
    },
  ]);
  const top = await tarBuffer([
    { name: 'manifests/.wh..wh..opq', data: '' },
    { name: 'release-manifests/.wh.0000_99_removed.yaml', data: '' },
    { name: 'release-manifests/link.yaml', type: 'symlink', linkname: '0000_10_a_file.yaml' },
  ]);
  const { manifestDigest } = await writeLayout(root, [gz(base), zst(top)], { index: true });
  return { root, digest: manifestDigest };
}

describe('OCI image layout', () => {
  it('applies gzip and zstd layers in order with whiteouts, opaque dirs and symlinks', async () => {
    const { root, digest } = await layeredLayout();
    const p = await openPayload(root);
    expect(p.image?.digest).toBe(digest);
    expect(p.image?.created).toBe('2026-01-02T03:04:05Z');
    expect(p.image?.labels['io.openshift.release']).toBe('1.0.0-abc');
    expect(p.manifests.map((m) => `${m.dir}/${m.filename}`)).toEqual([
      'release-manifests/0000_10_a_file.json',
      'release-manifests/0000_10_a_file.yaml',
      'release-manifests/0000_10_a_file.yml',
      'release-manifests/0000_20_a_exclude.yml',
      'release-manifests/link.yaml',
    ]);
    const dir = await openPayload(join(DATA, 'payloadtest'));
    const a = filterManifests(dir, FACTS);
    expect(a.versionHash).toBe('DL-FFQ2Uem8=');
  });

  it('reads oci-archive and docker-archive tarballs', async () => {
    const { root } = await layeredLayout();
    const arch = join(await tmp(), 'release.tar');
    await writeFile(arch, await tarDir(root));
    const p = await openPayload(arch);
    expect(p.metadata.version).toBe('1.0.0-abc');
    expect(p.manifests).toHaveLength(5);
    const p2 = await openPayload(`oci-archive:${arch}`);
    await expect(openPayload(`oci-archive:${arch}:nope`)).rejects.toThrow(/no manifest named "nope"/);
    expect(p2.image?.digest).toBe(p.image?.digest);

    const droot = await tmp();
    const layer = await tarBuffer(await payloadEntries(join(DATA, 'payloadtest')));
    const cfg = Buffer.from(
      JSON.stringify({
        architecture: 'arm64',
        os: 'linux',
        created: '2026-02-02T00:00:00Z',
        rootfs: { diff_ids: [sha(layer)] },
      }),
    );
    await writeFile(join(droot, 'cfg.json'), cfg);
    await writeFile(join(droot, 'layer.tar'), layer);
    await writeFile(
      join(droot, 'manifest.json'),
      JSON.stringify([{ Config: 'cfg.json', RepoTags: ['x:y'], Layers: ['layer.tar'] }]),
    );
    const darch = join(await tmp(), 'docker.tar');
    await writeFile(darch, await tarDir(droot));
    const d = await openPayload(`docker-archive:${darch}`);
    expect(d.image?.architecture).toBe('arm64');
    expect(filterManifests(d, FACTS).versionHash).toBe('DL-FFQ2Uem8=');
  });

  it('refuses a blob whose digest does not match', async () => {
    const { root } = await layeredLayout();
    const blobs = await readdir(join(root, 'blobs/sha256'));
    // corrupt the largest blob (the base layer)
    let biggest = blobs[0]!;
    let size = 0;
    for (const b of blobs) {
      const s = (await readFile(join(root, 'blobs/sha256', b))).length;
      if (s > size) {
        size = s;
        biggest = b;
      }
    }
    const data = await readFile(join(root, 'blobs/sha256', biggest));
    data[data.length - 1] = (data[data.length - 1] ?? 0) ^ 0xff;
    await writeFile(join(root, 'blobs/sha256', biggest), data);
    const err = await openPayload(root).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadError);
    expect((err as PayloadError).code).toMatch(/DigestMismatch|UnsafeArchive/);
  });
});

describe('layer safety', () => {
  const cases: [string, Parameters<typeof tarBuffer>[0], RegExp][] = [
    ['path traversal', [{ name: 'manifests/../../etc/passwd', data: 'x' }], /escapes/],
    ['absolute path', [{ name: '/manifests/a.yaml', data: 'x' }], /absolute/],
    ['symlink escape', [{ name: 'manifests/a.yaml', type: 'symlink', linkname: '../../etc/shadow' }], /escapes/],
    ['symlink outside kept dirs', [{ name: 'manifests/a.yaml', type: 'symlink', linkname: '/etc/shadow' }], /escapes/],
    [
      'hardlink escape',
      [{ name: 'manifests/a.yaml', type: 'link', linkname: '../etc/passwd' }],
      /outside|not an extracted/,
    ],
    [
      'hardlink to non-extracted file',
      [
        { name: 'etc/passwd', data: 'x' },
        { name: 'manifests/a.yaml', type: 'link', linkname: 'etc/passwd' },
      ],
      /not an extracted/,
    ],
    ['device file', [{ name: 'dev/sda', type: 'block-device' }], /device/],
    ['fifo', [{ name: 'manifests/p', type: 'fifo' }], /FIFO/],
  ];
  for (const [name, entries, re] of cases) {
    it(`refuses ${name}`, async () => {
      const err = await applyLayerBuffers([await tarBuffer(entries)]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsafeArchiveError);
      expect((err as Error).message).toMatch(re);
    });
  }
  it('caps total size and file count', async () => {
    const big = await tarBuffer([
      { name: 'manifests/a.yaml', data: Buffer.alloc(2000) },
      { name: 'manifests/b.yaml', data: Buffer.alloc(2000) },
    ]);
    await expect(applyLayerBuffers([big], { maxTotalBytes: 3000 })).rejects.toMatchObject({
      code: 'ArchiveLimitExceeded',
    });
    await expect(applyLayerBuffers([big], { maxFileBytes: 1000 })).rejects.toMatchObject({
      code: 'ArchiveLimitExceeded',
    });
    await expect(applyLayerBuffers([big], { maxFiles: 1 })).rejects.toMatchObject({ code: 'ArchiveLimitExceeded' });
    const bomb = await tarBuffer([{ name: 'usr/big', data: Buffer.alloc(5000) }]);
    await expect(applyLayerBuffers([bomb], { maxLayerBytes: 1000 })).rejects.toMatchObject({
      code: 'ArchiveLimitExceeded',
    });
  });
  it('keeps hard links to extracted files and ignores other top-level paths', async () => {
    const t = await applyLayerBuffers([
      await tarBuffer([
        { name: 'manifests/a.yaml', data: 'A' },
        { name: 'manifests/b.yaml', type: 'link', linkname: 'manifests/a.yaml' },
        { name: 'etc/x', data: 'y' },
      ]),
    ]);
    const f = t.toPayloadFiles();
    expect(Buffer.from(f.manifests.get('b.yaml')!).toString()).toBe('A');
    expect(t.paths()).toEqual(['manifests/a.yaml', 'manifests/b.yaml']);
  });
  it('refuses archives with links or traversal when unpacking', async () => {
    const arch = join(await tmp(), 'evil.tar');
    await writeFile(
      arch,
      await tarBuffer([
        { name: 'oci-layout', data: '{}' },
        { name: '../evil', data: 'x' },
      ]),
    );
    await expect(openPayload(arch)).rejects.toBeInstanceOf(UnsafeArchiveError);
    await writeFile(arch, await tarBuffer([{ name: 'blobs', type: 'symlink', linkname: '/etc' }]));
    await expect(openPayload(arch)).rejects.toBeInstanceOf(UnsafeArchiveError);
    await rm(arch);
  });
});
