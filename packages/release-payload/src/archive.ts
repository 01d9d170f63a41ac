import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { openRegularFile, openVerifiedBlob, readSmallFile } from './blobfile.js';
import { PayloadError, typedErrors, UnsafeArchiveError } from './errors.js';
import { cleanEntryName, LayerTree, resolveLimits, type ExtractLimits } from './layers.js';
import {
  assertDigest,
  parseJson,
  parseJsonValue,
  readOciLayout,
  sha256,
  type ImagePayload,
  type PlatformSelector,
} from './oci.js';
import type { PayloadImageInfo } from './payload.js';

/** One regular file of an archive, as found by the scan. */
interface ArchiveEntry {
  name: string;
  size: number;
}

type TarEntry = Readable & { header: tar.Header };

/** Streams the tar held by `handle` through `onEntry`, reading from the start of the file. */
async function walkTar(
  handle: FileHandle,
  archive: string,
  onEntry: (entry: TarEntry) => Promise<void>,
): Promise<void> {
  const extract = tar.extract();
  const consume = (async () => {
    for await (const e of extract) {
      const entry = e as unknown as TarEntry;
      try {
        await onEntry(entry);
      } finally {
        entry.resume();
      }
    }
  })();
  const res = await Promise.allSettled([
    pipeline(handle.createReadStream({ start: 0, autoClose: false }), extract),
    consume,
  ]);
  for (const r of [res[1], res[0]]) {
    if (r.status === 'rejected') {
      const e = r.reason as Error;
      if (e instanceof PayloadError) throw e;
      throw new UnsafeArchiveError('UnsafeArchive', `${archive}: cannot read archive: ${e.message}`);
    }
  }
}

/**
 * First pass over an image archive: checks every entry's name and type, counts entries and bytes, refuses
 * duplicates — all before a single file is written.
 */
async function scanArchive(
  handle: FileHandle,
  archive: string,
  limits: Required<ExtractLimits>,
): Promise<ArchiveEntry[]> {
  const files: ArchiveEntry[] = [];
  const seen = new Set<string>();
  let entries = 0;
  let total = 0;
  await walkTar(handle, archive, async (entry) => {
    const h = entry.header;
    const type = h.type ?? 'file';
    const rel = cleanEntryName(h.name);
    if (++entries > limits.maxArchiveEntries) {
      throw new UnsafeArchiveError(
        'ArchiveLimitExceeded',
        `${archive}: more than ${limits.maxArchiveEntries} entries (maxArchiveEntries); an image archive holds a few blobs, refusing it`,
        h.name,
      );
    }
    if (type === 'directory' || rel === '') return;
    if (type !== 'file' && type !== 'contiguous-file') {
      throw new UnsafeArchiveError(
        'UnsafeArchive',
        `${archive}: entry ${JSON.stringify(h.name)} is a ${type}; image archives may only contain regular files`,
        h.name,
      );
    }
    if (seen.has(rel))
      throw new UnsafeArchiveError(
        'UnsafeArchive',
        `${archive}: entry ${JSON.stringify(h.name)} appears twice; refusing the archive`,
        h.name,
      );
    seen.add(rel);
    total += h.size ?? 0;
    if (total > limits.maxLayerBytes) {
      throw new UnsafeArchiveError(
        'ArchiveLimitExceeded',
        `${archive}: more than ${limits.maxLayerBytes} bytes (maxLayerBytes); refusing`,
        h.name,
      );
    }
    files.push({ name: rel, size: h.size ?? 0 });
    await Promise.resolve();
  });
  return files;
}

/**
 * Safely unpacks a tar archive (oci-archive / docker-archive) into `dest`: only regular files and directories,
 * no traversal, no duplicates, entry count and size caps checked on a first pass before anything is written.
 * Returns the list of written relative paths.
 */
export async function unpackArchive(archive: string, dest: string, limits: ExtractLimits = {}): Promise<string[]> {
  return typedErrors(archive, () => unpack(archive, dest, limits));
}

async function unpack(archive: string, dest: string, limits: ExtractLimits): Promise<string[]> {
  const lim = resolveLimits(limits);
  const handle = await openRegularFile(archive, archive);
  try {
    const files = await scanArchive(handle, archive, lim);
    const wanted = new Map(files.map((f) => [f.name, f.size]));
    const written: string[] = [];
    await walkTar(handle, archive, async (entry) => {
      const rel = cleanEntryName(entry.header.name);
      const size = wanted.get(rel);
      if (size === undefined || size !== (entry.header.size ?? 0)) return;
      wanted.delete(rel);
      const out = join(dest, rel);
      await mkdir(dirname(out), { recursive: true });
      await pipeline(entry, createWriteStream(out, { flags: 'wx' }));
      written.push(rel);
    });
    if (written.length !== files.length)
      throw new UnsafeArchiveError(
        'UnsafeArchive',
        `${archive}: the archive changed while it was read; refusing it`,
        archive,
      );
    return written;
  } finally {
    await handle.close();
  }
}

const DIGEST_NAME = /(?:^|\/)(?:sha256\/)?([a-f0-9]{64})(?:\.json)?$/;

/** The docker-archive `manifest.json` entry this reader uses: the config file and the layer files in order. */
function dockerManifestEntry(doc: unknown, reference: string): { config: string; layers: string[] } {
  if (!Array.isArray(doc) || doc.length === 0)
    throw new PayloadError(
      'InvalidImageLayout',
      `${reference}: manifest.json must be a non-empty array`,
      'manifest.json',
    );
  const entry = doc[0] as { Config?: unknown; Layers?: unknown } | null;
  if (
    entry === null ||
    typeof entry !== 'object' ||
    typeof entry.Config !== 'string' ||
    !Array.isArray(entry.Layers) ||
    !entry.Layers.every((l) => typeof l === 'string')
  ) {
    throw new PayloadError(
      'InvalidImageLayout',
      `${reference}: manifest.json[0] needs Config (a string) and Layers (an array of strings)`,
      'manifest.json',
    );
  }
  return { config: entry.Config, layers: entry.Layers };
}

/** `rootfs.diff_ids` of a docker image config: one `sha256:` digest per layer, required to verify the layers. */
function diffIdsOf(cfg: Record<string, unknown>, count: number, reference: string): string[] {
  const rootfs = cfg['rootfs'] as { diff_ids?: unknown } | undefined;
  const ids = rootfs && typeof rootfs === 'object' ? rootfs.diff_ids : undefined;
  if (!Array.isArray(ids) || ids.length !== count) {
    throw new PayloadError(
      'InvalidImageLayout',
      `${reference}: the image config's rootfs.diff_ids must list one digest per layer (${count}); the layers cannot be verified without them`,
      'rootfs.diff_ids',
    );
  }
  return ids.map((d, i) => assertDigest(d, `${reference} config rootfs.diff_ids[${i}]`));
}

/** Reads a `docker save` style archive already unpacked to `root` (manifest.json + config + layer files). */
async function readDockerArchiveDir(
  root: string,
  opts: { limits?: ExtractLimits; onProgress?: (d: number, t: number) => void; reference: string },
): Promise<ImagePayload> {
  const lim = resolveLimits(opts.limits);
  const entry = dockerManifestEntry(
    parseJsonValue(
      await readSmallFile(join(root, 'manifest.json'), `${opts.reference} manifest.json`, lim.maxMetadataBytes),
      'manifest.json',
    ),
    opts.reference,
  );
  const safe = (p: string) => join(root, cleanEntryName(p));
  const cfgBytes = await readSmallFile(safe(entry.config), `${opts.reference} ${entry.config}`, lim.maxMetadataBytes);
  const named = DIGEST_NAME.exec(entry.config)?.[1];
  if (named !== undefined && sha256(cfgBytes) !== `sha256:${named}`) {
    throw new UnsafeArchiveError(
      'DigestMismatch',
      `${opts.reference}: config ${entry.config} has digest ${sha256(cfgBytes)}, not the one its name says; the archive is corrupt or was tampered with`,
      entry.config,
    );
  }
  const cfg = parseJson(cfgBytes, entry.config);
  const diffIds = diffIdsOf(cfg, entry.layers.length, opts.reference);
  const tree = new LayerTree(opts.limits);
  for (const [i, layer] of entry.layers.entries()) {
    const label = `layer ${i} (${layer})`;
    const path = safe(layer);
    const size = (await stat(path).catch(() => null))?.size ?? 0;
    // the layer file is verified against its own name when it is content addressed, and its tar against diff_ids
    const nameDigest = DIGEST_NAME.exec(layer)?.[1];
    const want =
      nameDigest !== undefined && !layer.endsWith('.json') ? { digest: `sha256:${nameDigest}`, size } : undefined;
    const handle = want
      ? (await openVerifiedBlob(path, want, label, lim.maxLayerBytes)).handle
      : await openRegularFile(path, label);
    try {
      const stream = handle.createReadStream({ start: 0, autoClose: false });
      const check: { diffId: string; size?: number } = { diffId: diffIds[i] ?? '' };
      await tree.applyLayer(stream, undefined, label, check);
    } finally {
      await handle.close();
    }
    opts.onProgress?.(i + 1, entry.layers.length);
  }
  const cc = (cfg['config'] ?? {}) as Record<string, unknown>;
  const labels: Record<string, string> = {};
  if (cc['Labels'] && typeof cc['Labels'] === 'object')
    for (const [k, v] of Object.entries(cc['Labels'])) if (typeof v === 'string') labels[k] = v;
  const image: PayloadImageInfo = { digest: sha256(cfgBytes), reference: opts.reference, labels, layers: entry.layers };
  if (typeof cfg['created'] === 'string') image.created = cfg['created'];
  if (typeof cfg['os'] === 'string') image.os = cfg['os'];
  if (typeof cfg['architecture'] === 'string') image.architecture = cfg['architecture'];
  return { files: tree.toPayloadFiles(), image };
}

/**
 * Reads an `oci-archive` (tar of an OCI layout) or `docker-archive` (`docker save`) tarball. The archive is unpacked
 * safely into a private temporary directory that is removed afterwards, whatever happens.
 */
export async function readImageArchive(
  archive: string,
  opts: {
    platform?: PlatformSelector;
    limits?: ExtractLimits;
    onProgress?: (d: number, t: number) => void;
    ref?: string;
  } = {},
): Promise<ImagePayload> {
  return typedErrors(archive, () => readArchive(archive, opts));
}

async function readArchive(archive: string, opts: Parameters<typeof readImageArchive>[1] = {}): Promise<ImagePayload> {
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
    throw new PayloadError(
      'UnsupportedSource',
      `${archive}: neither an oci-archive (oci-layout) nor a docker-archive (manifest.json)`,
      archive,
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
