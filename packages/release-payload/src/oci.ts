import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { PayloadError, typedErrors, UnsafeArchiveError } from './errors.js';
import { openVerifiedBlob, readSmallFile, readVerifiedBlob } from './blobfile.js';
import { LayerTree, resolveLimits, type ExtractLimits } from './layers.js';
import type { PayloadFiles, PayloadImageInfo } from './payload.js';

/** OCI / Docker media types understood by this package. */
export const MEDIA_TYPES = {
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
} as const;

/** A content descriptor. */
export interface Descriptor {
  mediaType?: string;
  digest: string;
  size?: number;
  platform?: { os?: string; architecture?: string; variant?: string };
  annotations?: Record<string, string>;
}

/** Platform wanted when an index / manifest list has several images. */
export interface PlatformSelector {
  os?: string;
  architecture?: string;
}

/** Node's `process.arch` mapped to OCI architecture names. */
export function defaultArchitecture(): string {
  const m: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' };
  return m[process.arch] ?? process.arch;
}

const DIGEST_RE = /^sha256:[a-f0-9]{64}$/;

/** Checks a digest string is `sha256:<64 hex>` (the only algorithm accepted). */
export function assertDigest(d: unknown, where: string): string {
  if (typeof d !== 'string' || !DIGEST_RE.test(d)) {
    throw new PayloadError(
      'InvalidImageLayout',
      `${where}: invalid or unsupported digest ${JSON.stringify(d)} (expected sha256:<64 hex>)`,
      where,
    );
  }
  return d;
}

/** sha256 digest of bytes. */
export function sha256(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** Parses JSON bytes; invalid JSON is an `InvalidImageLayout` error naming `where`. */
export function parseJsonValue(data: Uint8Array, where: string): unknown {
  try {
    return JSON.parse(Buffer.from(data).toString('utf8')) as unknown;
  } catch (e) {
    throw new PayloadError('InvalidImageLayout', `${where}: invalid JSON: ${(e as Error).message}`, where);
  }
}

/** Parses JSON bytes that must hold an object. */
export function parseJson(data: Uint8Array, where: string): Record<string, unknown> {
  const v = parseJsonValue(data, where);
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new PayloadError('InvalidImageLayout', `${where}: expected a JSON object`, where);
  return v as Record<string, unknown>;
}

/** Checks that a descriptor list from a manifest or index is an array of objects with a valid digest. */
export function descriptors(v: unknown, where: string): Descriptor[] {
  if (!Array.isArray(v))
    throw new PayloadError('InvalidImageLayout', `${where}: expected an array of descriptors`, where);
  return v.map((d, i) => {
    if (d === null || typeof d !== 'object')
      throw new PayloadError('InvalidImageLayout', `${where}[${i}]: expected a descriptor object`, `${where}[${i}]`);
    const desc = d as Descriptor;
    assertDigest(desc.digest, `${where}[${i}]`);
    if (
      desc.size !== undefined &&
      (typeof desc.size !== 'number' || !Number.isSafeInteger(desc.size) || desc.size < 0)
    ) {
      throw new PayloadError(
        'InvalidImageLayout',
        `${where}[${i}]: size must be a non-negative integer`,
        `${where}[${i}].size`,
      );
    }
    return desc;
  });
}

/** Picks the manifest for a platform from an index's manifests. */
export function selectPlatform(manifests: Descriptor[], want: PlatformSelector, where: string): Descriptor {
  const os = want.os ?? 'linux';
  const arch = want.architecture ?? defaultArchitecture();
  const withPlatform = manifests.filter((m) => m.platform);
  const only = manifests[0];
  if (withPlatform.length === 0 && manifests.length === 1 && only) return only;
  const hit = manifests.find((m) => m.platform?.architecture === arch && (m.platform.os ?? 'linux') === os);
  if (!hit) {
    const avail = manifests.map((m) => `${m.platform?.os ?? '?'}/${m.platform?.architecture ?? '?'}`).join(', ');
    throw new PayloadError(
      'InvalidImageLayout',
      `${where}: no image for ${os}/${arch} (available: ${avail}); pass an architecture`,
      where,
    );
  }
  return hit;
}

/** Reads blobs by digest, verifying them. */
export interface BlobReader {
  /** Whole blob, digest verified. */
  read(desc: Descriptor, where: string): Promise<Uint8Array>;
  /** Applies a layer blob onto a tree (streamed, digest verified). */
  applyLayer(tree: LayerTree, desc: Descriptor, label: string): Promise<void>;
}

/** Result of reading an image: its payload files and image info. */
export interface ImagePayload {
  files: PayloadFiles;
  image: PayloadImageInfo;
}

/**
 * Resolves manifest (index → manifest by platform), reads the config and applies layers in order, keeping only
 * `manifests/` and `release-manifests/`.
 */
export async function readImage(
  blobs: BlobReader,
  top: { bytes: Uint8Array; digest: string; mediaType?: string },
  reference: string,
  opts: {
    platform?: PlatformSelector;
    limits?: ExtractLimits;
    onProgress?: (done: number, total: number) => void;
    fetchManifest?: (d: Descriptor) => Promise<Uint8Array>;
    onLayers?: (layers: Descriptor[]) => void;
  },
): Promise<ImagePayload> {
  let bytes = top.bytes;
  let digest = top.digest;
  let doc = parseJson(bytes, `manifest ${digest}`);
  let mediaType = (doc['mediaType'] as string | undefined) ?? top.mediaType;
  for (let depth = 0; Array.isArray(doc['manifests']) && depth < 4; depth++) {
    const chosen = selectPlatform(
      descriptors(doc['manifests'], `index ${digest} manifests`),
      opts.platform ?? {},
      `index ${digest}`,
    );
    assertDigest(chosen.digest, `index ${digest} manifests[]`);
    bytes = opts.fetchManifest
      ? await opts.fetchManifest(chosen)
      : await blobs.read(chosen, `manifest ${chosen.digest}`);
    if (sha256(bytes) !== chosen.digest)
      throw new UnsafeArchiveError('DigestMismatch', `manifest ${chosen.digest}: digest mismatch`, chosen.digest);
    digest = chosen.digest;
    doc = parseJson(bytes, `manifest ${digest}`);
    mediaType = (doc['mediaType'] as string | undefined) ?? chosen.mediaType;
  }
  if (!doc['config'] || !Array.isArray(doc['layers']))
    throw new PayloadError('InvalidImageLayout', `manifest ${digest}: missing config or layers`, digest);
  const config = descriptors([doc['config']], `manifest ${digest} config`)[0] as Descriptor;
  const layers = descriptors(doc['layers'], `manifest ${digest} layers`);
  const cfg = parseJson(await blobs.read(config, `config ${config.digest}`), `config ${config.digest}`);
  opts.onLayers?.(layers);
  const tree = new LayerTree(opts.limits);
  const total = layers.reduce((s, l) => s + (l.size ?? 0), 0);
  let done = 0;
  for (const [i, l] of layers.entries()) {
    assertDigest(l.digest, `manifest ${digest} layers[${i}]`);
    await blobs.applyLayer(tree, l, `layer ${i} (${l.digest})`);
    done += l.size ?? 0;
    opts.onProgress?.(done, total);
  }
  const cc = (cfg['config'] ?? {}) as Record<string, unknown>;
  const labels: Record<string, string> = {};
  if (cc['Labels'] && typeof cc['Labels'] === 'object')
    for (const [k, v] of Object.entries(cc['Labels'])) if (typeof v === 'string') labels[k] = v;
  const image: PayloadImageInfo = { digest, reference, labels, layers: layers.map((l) => l.digest) };
  if (mediaType) image.mediaType = mediaType;
  if (typeof cfg['created'] === 'string') image.created = cfg['created'];
  if (typeof cfg['os'] === 'string') image.os = cfg['os'];
  if (typeof cfg['architecture'] === 'string') image.architecture = cfg['architecture'];
  return { files: tree.toPayloadFiles(), image };
}

/**
 * Blob reader over an OCI image layout directory (`blobs/sha256/<hex>`). Blobs must be regular files; every read is
 * bounded by the descriptor's size and verified against its digest before it is used.
 */
export function layoutBlobReader(root: string, limits: ExtractLimits = {}): BlobReader {
  const lim = resolveLimits(limits);
  const pathOf = (d: string) => join(root, 'blobs', 'sha256', assertDigest(d, 'descriptor').slice(7));
  return {
    async read(desc, where) {
      return readVerifiedBlob(pathOf(desc.digest), desc, where, lim.maxMetadataBytes);
    },
    async applyLayer(tree, desc, label) {
      const { handle, size } = await openVerifiedBlob(pathOf(desc.digest), desc, label, lim.maxLayerBytes);
      try {
        const stream =
          size === 0 ? Readable.from([]) : handle.createReadStream({ start: 0, end: size - 1, autoClose: false });
        await tree.applyLayer(stream, desc.digest, label, { size });
      } finally {
        await handle.close();
      }
    },
  };
}

/** Reads an OCI image layout directory. `ref` selects a manifest by `org.opencontainers.image.ref.name`. */
export async function readOciLayout(
  root: string,
  opts: {
    ref?: string;
    platform?: PlatformSelector;
    limits?: ExtractLimits;
    onProgress?: (d: number, t: number) => void;
    reference?: string;
  } = {},
): Promise<ImagePayload> {
  return typedErrors(root, () => readLayout(root, opts));
}

async function readLayout(root: string, opts: Parameters<typeof readOciLayout>[1] = {}): Promise<ImagePayload> {
  const lim = resolveLimits(opts.limits);
  const layout = parseJson(
    await readSmallFile(join(root, 'oci-layout'), `${root}/oci-layout`, lim.maxMetadataBytes),
    `${root}/oci-layout`,
  );
  if (typeof layout['imageLayoutVersion'] !== 'string')
    throw new PayloadError('InvalidImageLayout', `${root}/oci-layout: missing imageLayoutVersion`, 'oci-layout');
  const indexBytes = await readSmallFile(join(root, 'index.json'), `${root}/index.json`, lim.maxMetadataBytes);
  const index = parseJson(indexBytes, `${root}/index.json`);
  let manifests = descriptors(index['manifests'] ?? [], `${root}/index.json manifests`);
  if (opts.ref !== undefined)
    manifests = manifests.filter((m) => m.annotations?.['org.opencontainers.image.ref.name'] === opts.ref);
  if (manifests.length === 0)
    throw new PayloadError(
      'InvalidImageLayout',
      `${root}/index.json: no manifest${opts.ref ? ` named ${JSON.stringify(opts.ref)}` : ''}`,
      'index.json',
    );
  const blobs = layoutBlobReader(root, opts.limits);
  let top: Descriptor;
  if (manifests.length === 1 && manifests[0]) top = manifests[0];
  else top = selectPlatform(manifests, opts.platform ?? {}, `${root}/index.json`);
  assertDigest(top.digest, `${root}/index.json`);
  const bytes = await blobs.read(top, `manifest ${top.digest}`);
  const o: Parameters<typeof readImage>[3] = {};
  if (opts.platform) o.platform = opts.platform;
  if (opts.limits) o.limits = opts.limits;
  if (opts.onProgress) o.onProgress = opts.onProgress;
  const t: { bytes: Uint8Array; digest: string; mediaType?: string } = { bytes, digest: top.digest };
  if (top.mediaType) t.mediaType = top.mediaType;
  return readImage(blobs, t, opts.reference ?? `oci:${root}`, o);
}
