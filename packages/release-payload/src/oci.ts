import { createReadStream } from 'node:fs';
import { mkdtemp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import tar from 'tar-stream';
import { PayloadError, UnsafeArchiveError } from './errors.js';
import { cleanEntryName, LayerTree, type ExtractLimits } from './layers.js';
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
    throw new PayloadError('InvalidImageLayout', `${where}: invalid or unsupported digest ${JSON.stringify(d)} (expected sha256:<64 hex>)`, where);
  }
  return d;
}

/** sha256 digest of bytes. */
export function sha256(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

function parseJson(data: Uint8Array, where: string): Record<string, unknown> {
  try {
    const v = JSON.parse(Buffer.from(data).toString('utf8')) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch (e) {
    throw new PayloadError('InvalidImageLayout', `${where}: invalid JSON: ${(e as Error).message}`, where);
  }
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
    throw new PayloadError('InvalidImageLayout', `${where}: no image for ${os}/${arch} (available: ${avail}); pass an architecture`, where);
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
  opts: { platform?: PlatformSelector; limits?: ExtractLimits; onProgress?: (done: number, total: number) => void; fetchManifest?: (d: Descriptor) => Promise<Uint8Array>; onLayers?: (layers: Descriptor[]) => void },
): Promise<ImagePayload> {
  let bytes = top.bytes;
  let digest = top.digest;
  let doc = parseJson(bytes, `manifest ${digest}`);
  let mediaType = (doc['mediaType'] as string | undefined) ?? top.mediaType;
  for (let depth = 0; Array.isArray(doc['manifests']) && depth < 4; depth++) {
    const chosen = selectPlatform(doc['manifests'] as Descriptor[], opts.platform ?? {}, `index ${digest}`);
    assertDigest(chosen.digest, `index ${digest} manifests[]`);
    bytes = opts.fetchManifest ? await opts.fetchManifest(chosen) : await blobs.read(chosen, `manifest ${chosen.digest}`);
    if (sha256(bytes) !== chosen.digest) throw new UnsafeArchiveError('DigestMismatch', `manifest ${chosen.digest}: digest mismatch`, chosen.digest);
    digest = chosen.digest;
    doc = parseJson(bytes, `manifest ${digest}`);
    mediaType = (doc['mediaType'] as string | undefined) ?? chosen.mediaType;
  }
  const config = doc['config'] as Descriptor | undefined;
  const layers = doc['layers'] as Descriptor[] | undefined;
  if (!config || !Array.isArray(layers)) throw new PayloadError('InvalidImageLayout', `manifest ${digest}: missing config or layers`, digest);
  assertDigest(config.digest, `manifest ${digest} config`);
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
  if (cc['Labels'] && typeof cc['Labels'] === 'object') for (const [k, v] of Object.entries(cc['Labels'])) if (typeof v === 'string') labels[k] = v;
  const image: PayloadImageInfo = { digest, reference, labels, layers: layers.map((l) => l.digest) };
  if (mediaType) image.mediaType = mediaType;
  if (typeof cfg['created'] === 'string') image.created = cfg['created'];
  if (typeof cfg['os'] === 'string') image.os = cfg['os'];
  if (typeof cfg['architecture'] === 'string') image.architecture = cfg['architecture'];
  return { files: tree.toPayloadFiles(), image };
}

/** Blob reader over an OCI image layout directory (`blobs/sha256/<hex>`). */
export function layoutBlobReader(root: string): BlobReader {
  const pathOf = (d: string) => join(root, 'blobs', 'sha256', assertDigest(d, 'descriptor').slice(7));
  return {
    async read(desc, where) {
      const data = await readFile(pathOf(desc.digest)).catch(() => {
        throw new PayloadError('InvalidImageLayout', `${where}: blob ${desc.digest} missing from ${root}`, desc.digest);
      });
      if (sha256(data) !== desc.digest) throw new UnsafeArchiveError('DigestMismatch', `${where}: digest mismatch for blob ${desc.digest} in ${root}`, desc.digest);
      return data;
    },
    async applyLayer(tree, desc, label) {
      const p = pathOf(desc.digest);
      if (!(await stat(p).catch(() => null))) throw new PayloadError('InvalidImageLayout', `${label}: blob missing from ${root}`, desc.digest);
      await tree.applyLayer(createReadStream(p), desc.digest, label);
    },
  };
}

/** Reads an OCI image layout directory. `ref` selects a manifest by `org.opencontainers.image.ref.name`. */
export async function readOciLayout(root: string, opts: { ref?: string; platform?: PlatformSelector; limits?: ExtractLimits; onProgress?: (d: number, t: number) => void; reference?: string } = {}): Promise<ImagePayload> {
  const layout = parseJson(await readFile(join(root, 'oci-layout')).catch(() => Buffer.from('null')), `${root}/oci-layout`);
  if (typeof layout['imageLayoutVersion'] !== 'string') throw new PayloadError('InvalidImageLayout', `${root}/oci-layout: missing imageLayoutVersion`, 'oci-layout');
  const indexBytes = await readFile(join(root, 'index.json'));
  const index = parseJson(indexBytes, `${root}/index.json`);
  let manifests = (index['manifests'] as Descriptor[] | undefined) ?? [];
  if (opts.ref !== undefined) manifests = manifests.filter((m) => m.annotations?.['org.opencontainers.image.ref.name'] === opts.ref);
  if (manifests.length === 0) throw new PayloadError('InvalidImageLayout', `${root}/index.json: no manifest${opts.ref ? ` named ${JSON.stringify(opts.ref)}` : ''}`, 'index.json');
  const blobs = layoutBlobReader(root);
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

/**
 * Safely unpacks a tar archive (oci-archive / docker-archive) into `dest`: only regular files and directories,
 * no traversal, size and count caps. Returns the list of written relative paths.
 */
export async function unpackArchive(archive: string, dest: string, limits: ExtractLimits = {}): Promise<string[]> {
  const maxTotal = limits.maxLayerBytes ?? 8 * 1024 * 1024 * 1024;
  const maxFiles = limits.maxFiles ?? 100_000;
  const written: string[] = [];
  let total = 0;
  const extract = tar.extract();
  const consume = (async () => {
    for await (const entry of extract) {
      const h = entry.header;
      const type = h.type ?? 'file';
      let rel: string;
      try {
        rel = cleanEntryName(h.name);
      } catch (e) {
        entry.resume();
        throw e;
      }
      if (type === 'directory') {
        entry.resume();
        continue;
      }
      if (type !== 'file' && type !== 'contiguous-file') {
        entry.resume();
        throw new UnsafeArchiveError('UnsafeArchive', `${archive}: entry ${JSON.stringify(h.name)} is a ${type}; image archives may only contain regular files`, h.name);
      }
      if (rel === '') {
        entry.resume();
        continue;
      }
      if (written.length >= maxFiles) {
        entry.resume();
        throw new UnsafeArchiveError('ArchiveLimitExceeded', `${archive}: more than ${maxFiles} entries`, h.name);
      }
      total += h.size ?? 0;
      if (total > maxTotal) {
        entry.resume();
        throw new UnsafeArchiveError('ArchiveLimitExceeded', `${archive}: more than ${maxTotal} bytes`, h.name);
      }
      const out = join(dest, rel);
      await mkdir(dirname(out), { recursive: true });
      await pipeline(entry, createWriteStream(out, { flags: 'wx' }));
      written.push(rel);
    }
  })();
  const res = await Promise.allSettled([pipeline(createReadStream(archive), extract), consume]);
  for (const r of [res[1], res[0]]) {
    if (r.status === 'rejected') {
      const e = r.reason as Error;
      if (e instanceof PayloadError) throw e;
      throw new UnsafeArchiveError('UnsafeArchive', `${archive}: cannot read archive: ${e.message}`);
    }
  }
  return written;
}

/** Reads a `docker save` style archive already unpacked to `root` (manifest.json + config + layer files). */
async function readDockerArchiveDir(root: string, opts: { limits?: ExtractLimits; onProgress?: (d: number, t: number) => void; reference: string }): Promise<ImagePayload> {
  const mj = JSON.parse(await readFile(join(root, 'manifest.json'), 'utf8')) as unknown;
  if (!Array.isArray(mj) || mj.length === 0) throw new PayloadError('InvalidImageLayout', `${opts.reference}: manifest.json must be a non-empty array`, 'manifest.json');
  const entry = mj[0] as { Config?: unknown; Layers?: unknown };
  if (typeof entry.Config !== 'string' || !Array.isArray(entry.Layers)) throw new PayloadError('InvalidImageLayout', `${opts.reference}: manifest.json[0] needs Config and Layers`, 'manifest.json');
  const safe = (p: string) => join(root, cleanEntryName(p));
  const cfgBytes = await readFile(safe(entry.Config));
  const cfg = parseJson(cfgBytes, entry.Config);
  const tree = new LayerTree(opts.limits);
  const layers = entry.Layers as string[];
  const diffIds = ((cfg['rootfs'] as Record<string, unknown> | undefined)?.['diff_ids'] as string[] | undefined) ?? [];
  for (let i = 0; i < layers.length; i++) {
    const p = safe(String(layers[i]));
    // docker-archive layers are usually uncompressed; their diff_id is the sha256 of the uncompressed tar
    const data = await readFile(p);
    const d = sha256(data);
    const expected = diffIds[i];
    const isPlain = !(data[0] === 0x1f && data[1] === 0x8b) && !(data[0] === 0x28 && data[1] === 0xb5);
    if (expected !== undefined && isPlain && d !== expected) {
      throw new UnsafeArchiveError('DigestMismatch', `${opts.reference}: layer ${layers[i]} does not match diff_id ${expected} (got ${d})`, String(layers[i]));
    }
    const { Readable } = await import('node:stream');
    await tree.applyLayer(Readable.from([data]), undefined, `layer ${i} (${layers[i]})`);
    opts.onProgress?.(i + 1, layers.length);
  }
  const cc = (cfg['config'] ?? {}) as Record<string, unknown>;
  const labels: Record<string, string> = {};
  if (cc['Labels'] && typeof cc['Labels'] === 'object') for (const [k, v] of Object.entries(cc['Labels'])) if (typeof v === 'string') labels[k] = v;
  const image: PayloadImageInfo = { digest: sha256(cfgBytes), reference: opts.reference, labels, layers: layers.map(String) };
  if (typeof cfg['created'] === 'string') image.created = cfg['created'];
  if (typeof cfg['os'] === 'string') image.os = cfg['os'];
  if (typeof cfg['architecture'] === 'string') image.architecture = cfg['architecture'];
  return { files: tree.toPayloadFiles(), image };
}

/**
 * Reads an `oci-archive` (tar of an OCI layout) or `docker-archive` (`docker save`) tarball. The archive is unpacked
 * safely into a private temporary directory that is removed afterwards.
 */
export async function readImageArchive(archive: string, opts: { platform?: PlatformSelector; limits?: ExtractLimits; onProgress?: (d: number, t: number) => void; ref?: string } = {}): Promise<ImagePayload> {
  const tmp = await mkdtemp(join(tmpdir(), 'keelson-archive-'));
  try {
    await unpackArchive(archive, tmp, opts.limits);
    if (await stat(join(tmp, 'oci-layout')).catch(() => null)) {
      const o: Parameters<typeof readOciLayout>[1] = { reference: `oci-archive:${archive}` };
      if (opts.platform) o.platform = opts.platform;
      if (opts.limits) o.limits = opts.limits;
      if (opts.onProgress) o.onProgress = opts.onProgress;
      if (opts.ref !== undefined) o.ref = opts.ref;
      return await readOciLayout(tmp, o);
    }
    if (await stat(join(tmp, 'manifest.json')).catch(() => null)) {
      const o: Parameters<typeof readDockerArchiveDir>[1] = { reference: `docker-archive:${archive}` };
      if (opts.limits) o.limits = opts.limits;
      if (opts.onProgress) o.onProgress = opts.onProgress;
      return await readDockerArchiveDir(tmp, o);
    }
    throw new PayloadError('UnsupportedSource', `${archive}: neither an oci-archive (oci-layout) nor a docker-archive (manifest.json)`, archive);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Writes payload files to `dest/manifests` and `dest/release-manifests` (names are flat, already validated). */
export async function writePayloadFiles(files: PayloadFiles, dest: string): Promise<number> {
  let n = 0;
  for (const [dir, map] of [['manifests', files.manifests], ['release-manifests', files.releaseManifests]] as const) {
    await mkdir(join(dest, dir), { recursive: true });
    for (const [name, data] of map) {
      if (name.includes('/') || name.includes('\\') || name === '..' || name === '.' || name.includes('\0')) {
        throw new UnsafeArchiveError('UnsafeArchive', `refusing to write file name ${JSON.stringify(name)}`, name);
      }
      await writeFile(join(dest, dir, name), data);
      n++;
    }
  }
  return n;
}
