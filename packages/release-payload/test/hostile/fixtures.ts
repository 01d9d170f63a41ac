/** Self-generated hostile payload sources for the hostile-input suite (no data files from outside the package). */
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { gz, sha, tarBuffer, writeLayout, type TarEntry } from '../helpers.js';

export const tmp = (): Promise<string> => mkdtemp(join(tmpdir(), 'rp-hostile-'));

export const METADATA = JSON.stringify({ kind: 'cincinnati-metadata-v0', version: '1.0.0-abc', previous: [] });
export const IMAGE_REFS = 'kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0-abc\n';
export const MANIFEST = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n';

/** Tar entries of a minimal valid payload, plus `extra` entries. */
export function payloadEntries(extra: TarEntry[] = []): TarEntry[] {
  return [
    { name: 'manifests/', type: 'directory' },
    { name: 'release-manifests/', type: 'directory' },
    { name: 'release-manifests/release-metadata', data: METADATA },
    { name: 'release-manifests/image-references', data: IMAGE_REFS },
    { name: 'release-manifests/0000_10_a.yaml', data: MANIFEST },
    ...extra,
  ];
}

/** An extracted payload directory. */
export async function payloadDir(root: string): Promise<string> {
  await mkdir(join(root, 'manifests'), { recursive: true });
  await mkdir(join(root, 'release-manifests'), { recursive: true });
  await writeFile(join(root, 'release-manifests/release-metadata'), METADATA);
  await writeFile(join(root, 'release-manifests/image-references'), IMAGE_REFS);
  await writeFile(join(root, 'release-manifests/0000_10_a.yaml'), MANIFEST);
  return root;
}

/** An OCI layout with one gzip layer holding a valid payload; returns the layer blob path. */
export async function layout(
  root: string,
  extra: TarEntry[] = [],
): Promise<{ root: string; layerBlob: string; manifestDigest: string }> {
  const layer = gz(await tarBuffer(payloadEntries(extra)));
  const { manifestDigest } = await writeLayout(root, [layer]);
  return { root, layerBlob: join(root, 'blobs/sha256', sha(layer.data).slice(7)), manifestDigest };
}

/** A docker-archive directory (to be tarred) with one layer, gzip-compressed or plain. */
export async function dockerArchiveDir(
  root: string,
  compress: boolean,
  tamper?: (layer: Buffer) => Buffer,
): Promise<string> {
  const tarred = await tarBuffer(payloadEntries());
  const layer = compress ? zlib.gzipSync(tarred) : tarred;
  const cfg = Buffer.from(
    JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [sha(tarred)] } }),
  );
  await writeFile(join(root, 'cfg.json'), cfg);
  await writeFile(join(root, 'layer.tar'), tamper ? tamper(layer) : layer);
  await writeFile(
    join(root, 'manifest.json'),
    JSON.stringify([{ Config: 'cfg.json', RepoTags: ['x:y'], Layers: ['layer.tar'] }]),
  );
  return root;
}

/** Names of keelson temporary directories currently in the system temp dir. */
export async function keelsonTemps(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((n) => n.startsWith('keelson-')).sort();
}
