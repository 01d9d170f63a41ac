/**
 * Builds a release image in memory from a release directory: one gzip'd tar layer holding `manifests/` and
 * `release-manifests/` (where a real release image keeps them), an OCI image config with the release labels, and an
 * OCI image manifest. Blobs are content-addressed by sha256, so the same directory always gives the same digest.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

/** OCI media types used here. */
export const OCI_MEDIA_TYPES = {
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

/** An image held in memory. */
export interface OciImage {
  /** Digest of the image manifest (`sha256:…`): what signatures cover and what pull specs by digest name. */
  digest: string;
  /** Manifest bytes. */
  manifest: Uint8Array;
  /** Every blob (config and layers) by digest. */
  blobs: Map<string, Uint8Array>;
}

/** `sha256:<hex>` of bytes. */
export function sha256Digest(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

async function tarOf(entries: readonly { name: string; data?: Uint8Array }[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const e of entries) {
    const data = e.data;
    await new Promise<void>((resolve, reject) => {
      const cb = (err?: Error | null): void => {
        if (err) reject(err);
        else resolve();
      };
      if (data === undefined) pack.entry({ name: e.name, type: 'directory', mode: 0o755, mtime: new Date(0) }, cb);
      else pack.entry({ name: e.name, type: 'file', mode: 0o644, mtime: new Date(0) }, Buffer.from(data), cb);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** Builds the release image of `dir` (holding `manifests/` and `release-manifests/`). */
export async function buildReleaseImage(dir: string, labels: Readonly<Record<string, string>>): Promise<OciImage> {
  const entries: { name: string; data?: Uint8Array }[] = [];
  for (const sub of ['manifests', 'release-manifests']) {
    entries.push({ name: `${sub}/` });
    for (const name of (await readdir(join(dir, sub))).sort())
      entries.push({ name: `${sub}/${name}`, data: await readFile(join(dir, sub, name)) });
  }
  const layerTar = await tarOf(entries);
  const layer = gzipSync(layerTar, { level: 6 });
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      created: '2026-01-01T00:00:00Z',
      config: { Labels: { ...labels } },
      rootfs: { type: 'layers', diff_ids: [sha256Digest(layerTar)] },
    }),
  );
  const blobs = new Map<string, Uint8Array>([
    [sha256Digest(config), config],
    [sha256Digest(layer), layer],
  ]);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MEDIA_TYPES.manifest,
      config: { mediaType: OCI_MEDIA_TYPES.config, digest: sha256Digest(config), size: config.length },
      layers: [{ mediaType: OCI_MEDIA_TYPES.layerGzip, digest: sha256Digest(layer), size: layer.length }],
    }),
  );
  return { digest: sha256Digest(manifest), manifest, blobs };
}
