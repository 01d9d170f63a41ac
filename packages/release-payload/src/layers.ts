import { createHash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import tar from 'tar-stream';
import { UnsafeArchiveError } from './errors.js';
import type { PayloadFiles } from './payload.js';

/** Limits applied while reading payload sources (directories, archives, layers). */
export interface ExtractLimits {
  /** Maximum total bytes of the manifest files kept (`manifests/` + `release-manifests/`; default 256 MiB). */
  maxTotalBytes?: number;
  /** Maximum number of kept entries (default 100 000). */
  maxFiles?: number;
  /** Maximum size of a single manifest file (default 32 MiB; upstream manifests are at most a few MB). */
  maxFileBytes?: number;
  /** Maximum decompressed bytes read from all layers, kept or not (default 8 GiB). */
  maxLayerBytes?: number;
  /** Maximum number of entries in an `oci-archive` / `docker-archive` tarball, counted before anything is written (default 10 000). */
  maxArchiveEntries?: number;
  /** Maximum size of a manifest, index or config blob (default 4 MiB, like the registry client). */
  maxMetadataBytes?: number;
}

const DEFAULTS: Required<ExtractLimits> = {
  maxTotalBytes: 256 * 1024 * 1024,
  maxFiles: 100_000,
  maxFileBytes: 32 * 1024 * 1024,
  maxLayerBytes: 8 * 1024 * 1024 * 1024,
  maxArchiveEntries: 10_000,
  maxMetadataBytes: 4 * 1024 * 1024,
};

/** Resolves limits with defaults. */
export function resolveLimits(l: ExtractLimits = {}): Required<ExtractLimits> {
  return { ...DEFAULTS, ...Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) };
}

type Node = { type: 'file'; data: Buffer } | { type: 'dir' } | { type: 'symlink'; target: string };

/** One tar entry as the extract stream yields it: a readable of its data with its header. */
type LayerEntry = Readable & { header: tar.Header };

/** What one layer holds, gathered before it is applied. */
interface LayerState {
  opaqueDirs: string[];
  whiteouts: string[];
  added: Map<string, Node>;
}

/** Top-level directories extracted from release images. */
export const KEPT_DIRS = ['manifests', 'release-manifests'] as const;

/**
 * Normalises a tar entry name: strips a leading `./`, refuses absolute paths, `..` components, NUL bytes and empty
 * names. Returns the clean relative path (no trailing slash).
 */
export function cleanEntryName(name: string): string {
  if (name.includes('\0'))
    throw new UnsafeArchiveError('UnsafeArchive', `tar entry name contains a NUL byte: ${JSON.stringify(name)}`, name);
  if (name.startsWith('/') || /^[A-Za-z]:[\\/]/.test(name) || name.startsWith('\\')) {
    throw new UnsafeArchiveError(
      'UnsafeArchive',
      `tar entry ${JSON.stringify(name)} has an absolute path; refusing the archive`,
      name,
    );
  }
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) {
    throw new UnsafeArchiveError(
      'UnsafeArchive',
      `tar entry ${JSON.stringify(name)} escapes the destination with "..": refusing the archive`,
      name,
    );
  }
  return parts.join('/');
}

function isKept(path: string): boolean {
  const top = path.split('/')[0] ?? '';
  return (KEPT_DIRS as readonly string[]).includes(top);
}

/** Streaming decompression chosen from the first bytes (gzip, zstd or plain tar). */
function zstdStream(): Transform {
  const native = (zlib as unknown as { createZstdDecompress?: () => Transform }).createZstdDecompress;
  if (typeof native === 'function') return native();
  let pending: Buffer[] = [];
  const d = new ZstdDecompress((chunk) => {
    pending.push(Buffer.from(chunk));
  });
  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      try {
        d.push(chunk);
        for (const p of pending) this.push(p);
        pending = [];
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
    flush(cb: TransformCallback) {
      try {
        d.push(new Uint8Array(0), true);
        for (const p of pending) this.push(p);
        pending = [];
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
  });
}

/** The decompressor for a stream whose first bytes are `head`: gzip, zstd or none (plain tar). */
function decompressorFor(head: Buffer): Transform | null {
  if (head[0] === 0x1f && head[1] === 0x8b) return zlib.createGunzip();
  if (head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd) return zstdStream();
  return null;
}

/**
 * Reads the first `n` bytes of `input` and returns them with a stream that yields the whole input again (head
 * included). Destroying the returned stream destroys `input`.
 */
async function peek(input: Readable, n: number): Promise<[Buffer, Readable]> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first: Buffer[] = [];
  let len = 0;
  let done = false;
  while (len < n) {
    const r = await it.next();
    if (r.done === true) {
      done = true;
      break;
    }
    const chunk = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
    first.push(chunk);
    len += chunk.length;
  }
  const head = Buffer.concat(first);
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head;
      if (done) return;
      for (;;) {
        const r = await it.next();
        if (r.done === true) return;
        yield r.value;
      }
    } finally {
      if (!done) await it.return?.();
    }
  }
  return [head, Readable.from(replay(), { objectMode: false })];
}

/** Returns a transform that decompresses gzip or zstd input and passes plain tar through (format from the first bytes). */
export function autoDecompress(): Transform {
  let inner: Transform | null | undefined;
  let pending: Buffer[] = [];
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      if (inner === undefined) {
        pending.push(chunk);
        const head = Buffer.concat(pending);
        if (head.length < 4) {
          cb();
          return;
        }
        pending = [];
        start(head, cb);
        return;
      }
      forward(chunk, cb);
    },
    flush(cb: TransformCallback) {
      if (inner === undefined) {
        const head = Buffer.concat(pending);
        pending = [];
        start(head, (err) => {
          if (err) cb(err);
          else finish(cb);
        });
        return;
      }
      finish(cb);
    },
  });
  const forward = (chunk: Buffer, cb: TransformCallback): void => {
    if (!inner) {
      cb(null, chunk);
      return;
    }
    if (inner.write(chunk)) cb();
    else
      inner.once('drain', () => {
        cb();
      });
  };
  const start = (head: Buffer, cb: TransformCallback): void => {
    inner = decompressorFor(head);
    if (inner) {
      inner.on('data', (d: Buffer) => out.push(d));
      inner.on('error', (e) => out.destroy(e));
    }
    if (head.length > 0) forward(head, cb);
    else cb();
  };
  const finish = (cb: TransformCallback): void => {
    const t = inner;
    if (!t) {
      cb();
      return;
    }
    if (t.readableEnded) {
      cb();
      return;
    }
    t.once('end', () => {
      cb();
    });
    t.once('error', (e) => {
      cb(e);
    });
    t.end();
  };
  return out;
}

/** Hashing pass-through; `digest()` after end. */
export class DigestStream extends Transform {
  private h = createHash('sha256');
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.h.update(chunk);
    this.bytes += chunk.length;
    cb(null, chunk);
  }
  private value: string | undefined;
  /** `sha256:<hex>` of all data seen; the hash is finalised once, later calls return the same value. */
  digest(): string {
    this.value ??= `sha256:${this.h.digest('hex')}`;
    return this.value;
  }
}

/** The union filesystem built from layers, restricted to `manifests/` and `release-manifests/`. */
export class LayerTree {
  private nodes = new Map<string, Node>();
  private keptBytes = 0;
  private layerBytes = 0;
  readonly limits: Required<ExtractLimits>;

  constructor(limits: ExtractLimits = {}) {
    this.limits = resolveLimits(limits);
  }

  private removeSubtree(path: string): void {
    this.nodes.delete(path);
    const prefix = path + '/';
    for (const k of [...this.nodes.keys()]) if (k.startsWith(prefix)) this.nodes.delete(k);
  }

  private recount(): void {
    let b = 0;
    for (const n of this.nodes.values()) if (n.type === 'file') b += n.data.length;
    this.keptBytes = b;
  }

  /**
   * Applies one layer (tar stream, optionally gzip/zstd compressed) on top of the tree, honouring whiteouts.
   * When `expectedDigest` is given the compressed bytes are hashed and a mismatch is an error; `check.diffId` is
   * compared with the sha256 of the uncompressed tar (docker-archive `rootfs.diff_ids`), `check.size` with the
   * number of compressed bytes. Nothing is applied unless the whole layer was read and verified.
   */
  async applyLayer(
    input: Readable,
    expectedDigest?: string,
    label = 'layer',
    check: { diffId?: string; size?: number } = {},
  ): Promise<void> {
    const raw = new DigestStream();
    const plain = new DigestStream();
    const extract = tar.extract();
    const state: LayerState = { opaqueDirs: [], whiteouts: [], added: new Map() };
    const consume = this.consumeEntries(extract, state, label);
    let err: unknown;
    try {
      const [head, stream] = await peek(input, 4);
      const dec = decompressorFor(head);
      const src = dec ? pipeline(stream, raw, dec, plain, extract) : pipeline(stream, raw, plain, extract);
      const results = await Promise.allSettled([src, consume]);
      const failed =
        results[1].status === 'rejected' ? results[1] : results[0].status === 'rejected' ? results[0] : undefined;
      if (failed) err = failed.reason;
    } catch (e) {
      err = e;
      extract.destroy();
      await consume.catch(() => undefined);
    }
    this.verifyLayer(raw, plain, expectedDigest, check, label, err);
    if (err !== undefined) {
      if (err instanceof UnsafeArchiveError) throw err;
      throw new UnsafeArchiveError('UnsafeArchive', `${label}: cannot read layer: ${(err as Error).message}`);
    }
    this.commit(state);
  }

  /**
   * Digest checks after a layer was read. A digest mismatch wins over any other error: a tampered blob usually
   * also breaks decompression, and the user must hear that the content is not what the manifest names.
   */
  private verifyLayer(
    raw: DigestStream,
    plain: DigestStream,
    expectedDigest: string | undefined,
    check: { diffId?: string; size?: number },
    label: string,
    err: unknown,
  ): void {
    if (check.size !== undefined && raw.bytes > check.size) {
      throw new UnsafeArchiveError(
        'DigestMismatch',
        `${label}: blob is larger than its declared size ${check.size}; the blob is corrupt or was tampered with`,
        expectedDigest ?? label,
      );
    }
    // after an error the blob may not have been read to its end; its digest is then only known when the size says so
    const complete = err === undefined || (check.size !== undefined && raw.bytes === check.size);
    if (!complete) return;
    if (check.size !== undefined && raw.bytes !== check.size) {
      throw new UnsafeArchiveError(
        'DigestMismatch',
        `${label}: blob has ${raw.bytes} bytes, its descriptor declares ${check.size}; the blob is corrupt or was tampered with`,
        expectedDigest ?? label,
      );
    }
    const got = raw.digest();
    if (expectedDigest !== undefined && got !== expectedDigest) {
      throw new UnsafeArchiveError(
        'DigestMismatch',
        `${label}: digest mismatch: expected ${expectedDigest}, got ${got}; the blob is corrupt or was tampered with`,
        expectedDigest,
      );
    }
    if (err === undefined && check.diffId !== undefined) {
      const d = plain.digest();
      if (d !== check.diffId) {
        throw new UnsafeArchiveError(
          'DigestMismatch',
          `${label}: uncompressed layer has digest ${d}, the image config's rootfs.diff_ids names ${check.diffId}; the layer is corrupt or was tampered with`,
          check.diffId,
        );
      }
    }
  }

  /** Reads the tar entries of one layer into `state` (nothing is applied to the tree yet). */
  private async consumeEntries(extract: tar.Extract, state: LayerState, label: string): Promise<void> {
    for await (const e of extract) {
      const entry = e as unknown as LayerEntry;
      try {
        await this.consumeEntry(entry, state, label);
      } finally {
        entry.resume();
      }
    }
  }

  private async consumeEntry(entry: LayerEntry, state: LayerState, label: string): Promise<void> {
    const h = entry.header;
    const path = cleanEntryName(h.name);
    const base = path.split('/').pop() ?? '';
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    const type = h.type ?? 'file';
    if (type === 'character-device' || type === 'block-device' || type === 'fifo') {
      throw new UnsafeArchiveError(
        'UnsafeArchive',
        `${label}: entry ${JSON.stringify(h.name)} is a ${type}; device files and FIFOs are refused`,
        h.name,
      );
    }
    if (base === '.wh..wh..opq') {
      if (isKept(path)) state.opaqueDirs.push(dir);
      return;
    }
    if (base.startsWith('.wh.')) {
      const target = (dir ? dir + '/' : '') + base.slice(4);
      if (isKept(target)) state.whiteouts.push(target);
      return;
    }
    if (path === '' || !isKept(path)) {
      // drain but count decompressed bytes for the bomb cap
      for await (const chunk of entry) this.countLayerBytes((chunk as Buffer).length, label, h.name);
      return;
    }
    if (state.added.size + this.nodes.size >= this.limits.maxFiles) {
      throw new UnsafeArchiveError(
        'ArchiveLimitExceeded',
        `${label}: more than ${this.limits.maxFiles} files under manifests/ and release-manifests/; refusing`,
        h.name,
      );
    }
    if (type === 'directory') {
      state.added.set(path, { type: 'dir' });
    } else if (type === 'symlink') {
      const target = h.linkname ?? '';
      this.checkLinkTarget(path, target, label);
      state.added.set(path, { type: 'symlink', target });
    } else if (type === 'link') {
      this.addHardLink(path, h.name, h.linkname, state, label);
    } else if (type === 'file' || type === 'contiguous-file') {
      state.added.set(path, { type: 'file', data: await this.readKeptFile(entry, label) });
    }
  }

  private countLayerBytes(n: number, label: string, name: string): void {
    this.layerBytes += n;
    if (this.layerBytes > this.limits.maxLayerBytes) {
      throw new UnsafeArchiveError(
        'ArchiveLimitExceeded',
        `${label}: more than ${this.limits.maxLayerBytes} bytes of decompressed layer data; refusing`,
        name,
      );
    }
  }

  private addHardLink(
    path: string,
    name: string,
    linkname: string | undefined,
    state: LayerState,
    label: string,
  ): void {
    let target: string;
    try {
      target = cleanEntryName(linkname ?? '');
    } catch {
      throw new UnsafeArchiveError(
        'UnsafeArchive',
        `${label}: hard link ${JSON.stringify(name)} points outside the image (${JSON.stringify(linkname)})`,
        name,
      );
    }
    const src = state.added.get(target) ?? this.nodes.get(target);
    if (!src || src.type !== 'file') {
      throw new UnsafeArchiveError(
        'UnsafeArchive',
        `${label}: hard link ${JSON.stringify(name)} points to ${JSON.stringify(linkname)}, which is not an extracted regular file`,
        name,
      );
    }
    this.addKeptBytes(src.data.length, label, name);
    state.added.set(path, { type: 'file', data: src.data });
  }

  private addKeptBytes(n: number, label: string, name: string): void {
    if (this.keptBytes + n > this.limits.maxTotalBytes) {
      throw new UnsafeArchiveError(
        'ArchiveLimitExceeded',
        `${label}: manifests/ and release-manifests/ hold more than ${this.limits.maxTotalBytes} bytes (maxTotalBytes); refusing`,
        name,
      );
    }
    this.keptBytes += n;
  }

  /** Buffers one kept file, counting bytes as they stream so that neither the header nor the data can overrun a cap. */
  private async readKeptFile(entry: LayerEntry, label: string): Promise<Buffer> {
    const h = entry.header;
    const size = h.size ?? 0;
    const tooBig = (n: number) =>
      new UnsafeArchiveError(
        'ArchiveLimitExceeded',
        `${label}: ${h.name} is ${n} bytes, above the ${this.limits.maxFileBytes}-byte limit for one manifest (maxFileBytes)`,
        h.name,
      );
    if (size > this.limits.maxFileBytes) throw tooBig(size);
    this.addKeptBytes(size, label, h.name);
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of entry) {
      const chunk = c as Buffer;
      n += chunk.length;
      if (n > this.limits.maxFileBytes) throw tooBig(n);
      this.countLayerBytes(chunk.length, label, h.name);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, n);
  }

  /** Applies a fully read and verified layer: lower layers change by its opaque dirs and whiteouts, then its entries are added. */
  private commit(state: LayerState): void {
    for (const d of state.opaqueDirs) {
      const prefix = d + '/';
      for (const k of [...this.nodes.keys()]) if (k.startsWith(prefix)) this.nodes.delete(k);
    }
    for (const w of state.whiteouts) this.removeSubtree(w);
    for (const [k, v] of state.added) {
      const prev = this.nodes.get(k);
      if (prev && prev.type === 'dir' && v.type === 'dir') continue;
      if (prev && v.type !== 'dir') this.removeSubtree(k);
      this.nodes.set(k, v);
    }
    this.recount();
  }

  private checkLinkTarget(path: string, target: string, label: string): void {
    const resolved = this.resolveLinkPath(path, target);
    if (resolved === null || !isKept(resolved)) {
      throw new UnsafeArchiveError(
        'UnsafeArchive',
        `${label}: symlink ${JSON.stringify(path)} -> ${JSON.stringify(target)} escapes manifests/ and release-manifests/; refusing`,
        path,
      );
    }
  }

  private resolveLinkPath(path: string, target: string): string | null {
    if (target.includes('\0') || target === '') return null;
    const baseParts = target.startsWith('/') ? [] : path.split('/').slice(0, -1);
    for (const p of target.split('/')) {
      if (p === '' || p === '.') continue;
      if (p === '..') {
        if (baseParts.length === 0) return null;
        baseParts.pop();
      } else baseParts.push(p);
    }
    return baseParts.join('/');
  }

  private resolveFile(path: string, depth = 0): Buffer | null {
    if (depth > 40) return null;
    const n = this.nodes.get(path);
    if (!n) return null;
    if (n.type === 'file') return n.data;
    if (n.type === 'symlink') {
      const r = this.resolveLinkPath(path, n.target);
      if (r === null || !isKept(r)) return null;
      return this.resolveFile(r, depth + 1);
    }
    return null;
  }

  /** Why the link at `path` yields no file (dangling, a directory, a loop). */
  private linkProblem(path: string): string {
    let p = path;
    for (let depth = 0; depth <= 40; depth++) {
      const n = this.nodes.get(p);
      if (!n) return `its target ${p} is not in the image (dangling link)`;
      if (n.type === 'dir') return `its target ${p} is a directory`;
      if (n.type === 'file') return 'unresolvable';
      const r = this.resolveLinkPath(p, n.target);
      if (r === null || !isKept(r)) return `its target ${n.target} is outside manifests/ and release-manifests/`;
      p = r;
    }
    return 'too many levels of symbolic links';
  }

  /**
   * Flat files of `manifests/` and `release-manifests/` (symlinks resolved inside those directories: the file they
   * lead to is taken). Links that lead to no file are listed in `skippedLinks`.
   */
  toPayloadFiles(): PayloadFiles {
    const out: PayloadFiles = { manifests: new Map(), releaseManifests: new Map(), skippedLinks: [] };
    for (const k of [...this.nodes.keys()].sort()) {
      const parts = k.split('/');
      if (parts.length !== 2) continue;
      const data = this.resolveFile(k);
      if (!data) {
        const n = this.nodes.get(k);
        if (n?.type === 'symlink') out.skippedLinks?.push({ path: k, target: n.target, reason: this.linkProblem(k) });
        continue;
      }
      (parts[0] === 'manifests' ? out.manifests : out.releaseManifests).set(parts[1] ?? '', data);
    }
    return out;
  }

  /** Paths currently in the tree (for tests and diagnostics). */
  paths(): string[] {
    return [...this.nodes.keys()].sort();
  }
}

/** Convenience: applies layers given as buffers (tests, fuzzing). */
export async function applyLayerBuffers(layers: readonly Uint8Array[], limits?: ExtractLimits): Promise<LayerTree> {
  const t = new LayerTree(limits);
  for (const [i, layer] of layers.entries())
    await t.applyLayer(Readable.from([Buffer.from(layer)]), undefined, `layer ${i}`);
  return t;
}
