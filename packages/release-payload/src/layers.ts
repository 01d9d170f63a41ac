import { createHash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import tar from 'tar-stream';
import { UnsafeArchiveError } from './errors.js';
import type { PayloadFiles } from './payload.js';

/** Limits applied while reading archives and layers. */
export interface ExtractLimits {
  /** Maximum total bytes of the kept files (default 1 GiB). */
  maxTotalBytes?: number;
  /** Maximum number of kept entries (default 100 000). */
  maxFiles?: number;
  /** Maximum size of a single kept file (default 256 MiB). */
  maxFileBytes?: number;
  /** Maximum decompressed bytes read from all layers, kept or not (default 8 GiB). */
  maxLayerBytes?: number;
}

const DEFAULTS: Required<ExtractLimits> = {
  maxTotalBytes: 1024 * 1024 * 1024,
  maxFiles: 100_000,
  maxFileBytes: 256 * 1024 * 1024,
  maxLayerBytes: 8 * 1024 * 1024 * 1024,
};

/** Resolves limits with defaults. */
export function resolveLimits(l: ExtractLimits = {}): Required<ExtractLimits> {
  return { ...DEFAULTS, ...Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) };
}

type Node = { type: 'file'; data: Buffer } | { type: 'dir' } | { type: 'symlink'; target: string };

/** Top-level directories extracted from release images. */
export const KEPT_DIRS = ['manifests', 'release-manifests'] as const;

/**
 * Normalises a tar entry name: strips a leading `./`, refuses absolute paths, `..` components, NUL bytes and empty
 * names. Returns the clean relative path (no trailing slash).
 */
export function cleanEntryName(name: string): string {
  if (name.includes('\0')) throw new UnsafeArchiveError('UnsafeArchive', `tar entry name contains a NUL byte: ${JSON.stringify(name)}`, name);
  if (name.startsWith('/') || /^[A-Za-z]:[\\/]/.test(name) || name.startsWith('\\')) {
    throw new UnsafeArchiveError('UnsafeArchive', `tar entry ${JSON.stringify(name)} has an absolute path; refusing the archive`, name);
  }
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) {
    throw new UnsafeArchiveError('UnsafeArchive', `tar entry ${JSON.stringify(name)} escapes the destination with "..": refusing the archive`, name);
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

class Sniff extends Transform {
  private decided: Transform | null = null;
  private buf: Buffer[] = [];
  private len = 0;
  private decide(): void {
    const head = Buffer.concat(this.buf);
    let t: Transform;
    if (head[0] === 0x1f && head[1] === 0x8b) t = zlib.createGunzip();
    else if (head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd) t = zstdStream();
    else t = new Transform({ transform: (c, _e, cb) => { cb(null, c); } });
    t.on('data', (d: Buffer) => this.push(d));
    t.on('error', (e) => this.destroy(e));
    this.decided = t;
    this.buf = [];
    if (head.length > 0) t.write(head);
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (this.decided) {
      if (!this.decided.write(chunk)) this.decided.once('drain', () => { cb(); });
      else cb();
      return;
    }
    this.buf.push(chunk);
    this.len += chunk.length;
    if (this.len >= 4) this.decide();
    cb();
  }
  override _flush(cb: TransformCallback): void {
    if (!this.decided) this.decide();
    const t = this.decided;
    if (!t) {
      cb();
      return;
    }
    t.once('end', () => { cb(); });
    t.once('error', (e) => { cb(e); });
    t.end();
  }
}

/** Returns a transform that decompresses gzip or zstd input and passes plain tar through. */
export function autoDecompress(): Transform {
  return new Sniff();
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
  /** `sha256:<hex>` of all data seen. */
  digest(): string {
    return `sha256:${this.h.digest('hex')}`;
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
   * When `expectedDigest` is given the compressed bytes are hashed and a mismatch is an error.
   */
  async applyLayer(input: Readable, expectedDigest?: string, label = 'layer'): Promise<void> {
    const digest = new DigestStream();
    const extract = tar.extract();
    const opaqueDirs: string[] = [];
    const whiteouts: string[] = [];
    const added = new Map<string, Node>();
    const consume = (async () => {
      for await (const entry of extract) {
        const h = entry.header;
        let path: string;
        try {
          path = cleanEntryName(h.name);
        } catch (e) {
          entry.resume();
          throw e;
        }
        const base = path.split('/').pop() ?? '';
        const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
        const type = h.type ?? 'file';
        if (type === 'character-device' || type === 'block-device' || type === 'fifo') {
          entry.resume();
          throw new UnsafeArchiveError('UnsafeArchive', `${label}: entry ${JSON.stringify(h.name)} is a ${type}; device files and FIFOs are refused`, h.name);
        }
        if (base === '.wh..wh..opq') {
          if (isKept(path)) opaqueDirs.push(dir);
          entry.resume();
          continue;
        }
        if (base.startsWith('.wh.')) {
          const target = (dir ? dir + '/' : '') + base.slice(4);
          if (isKept(target)) whiteouts.push(target);
          entry.resume();
          continue;
        }
        if (path === '' || !isKept(path)) {
          // drain but count decompressed bytes for the bomb cap
          for await (const chunk of entry) {
            this.layerBytes += (chunk as Buffer).length;
            if (this.layerBytes > this.limits.maxLayerBytes) {
              throw new UnsafeArchiveError('ArchiveLimitExceeded', `${label}: more than ${this.limits.maxLayerBytes} bytes of layer data; refusing`, h.name);
            }
          }
          continue;
        }
        if (added.size + this.nodes.size >= this.limits.maxFiles) {
          entry.resume();
          throw new UnsafeArchiveError('ArchiveLimitExceeded', `${label}: more than ${this.limits.maxFiles} files under manifests/ and release-manifests/; refusing`, h.name);
        }
        if (type === 'directory') {
          added.set(path, { type: 'dir' });
          entry.resume();
        } else if (type === 'symlink') {
          const target = h.linkname ?? '';
          this.checkLinkTarget(path, target, label);
          added.set(path, { type: 'symlink', target });
          entry.resume();
        } else if (type === 'link') {
          let target: string;
          try {
            target = cleanEntryName(h.linkname ?? '');
          } catch {
            entry.resume();
            throw new UnsafeArchiveError('UnsafeArchive', `${label}: hard link ${JSON.stringify(h.name)} points outside the image (${JSON.stringify(h.linkname)})`, h.name);
          }
          const src = added.get(target) ?? this.nodes.get(target);
          entry.resume();
          if (!src || src.type !== 'file') {
            throw new UnsafeArchiveError('UnsafeArchive', `${label}: hard link ${JSON.stringify(h.name)} points to ${JSON.stringify(h.linkname)}, which is not an extracted regular file`, h.name);
          }
          added.set(path, { type: 'file', data: src.data });
          this.keptBytes += src.data.length;
        } else if (type === 'file' || type === 'contiguous-file') {
          const size = h.size ?? 0;
          if (size > this.limits.maxFileBytes) {
            entry.resume();
            throw new UnsafeArchiveError('ArchiveLimitExceeded', `${label}: ${h.name} is ${size} bytes, above the ${this.limits.maxFileBytes}-byte limit`, h.name);
          }
          if (this.keptBytes + size > this.limits.maxTotalBytes) {
            entry.resume();
            throw new UnsafeArchiveError('ArchiveLimitExceeded', `${label}: extracted payload exceeds ${this.limits.maxTotalBytes} bytes; refusing`, h.name);
          }
          const chunks: Buffer[] = [];
          for await (const c of entry) chunks.push(c as Buffer);
          const data = Buffer.concat(chunks);
          this.keptBytes += data.length;
          this.layerBytes += data.length;
          added.set(path, { type: 'file', data });
        } else {
          entry.resume();
        }
      }
    })();
    const src = pipeline(input, digest, autoDecompress(), extract);
    const results = await Promise.allSettled([src, consume]);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed && failed.status === 'rejected') {
      const reason: unknown = failed.reason;
      const err = results[1].status === 'rejected' ? (results[1].reason as unknown) : reason;
      if (err instanceof UnsafeArchiveError) throw err;
      throw new UnsafeArchiveError('UnsafeArchive', `${label}: cannot read layer: ${(err as Error).message}`);
    }
    if (expectedDigest !== undefined && digest.digest() !== expectedDigest) {
      throw new UnsafeArchiveError('DigestMismatch', `${label}: digest mismatch: expected ${expectedDigest}, got ${digest.digest()}; the blob is corrupt or was tampered with`, expectedDigest);
    }
    // lower layers are changed by this layer's opaque dirs and whiteouts, then its own entries are added
    for (const d of opaqueDirs) {
      const prefix = d + '/';
      for (const k of [...this.nodes.keys()]) if (k.startsWith(prefix)) this.nodes.delete(k);
    }
    for (const w of whiteouts) this.removeSubtree(w);
    for (const [k, v] of added) {
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
      throw new UnsafeArchiveError('UnsafeArchive', `${label}: symlink ${JSON.stringify(path)} -> ${JSON.stringify(target)} escapes manifests/ and release-manifests/; refusing`, path);
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

  /** Flat files of `manifests/` and `release-manifests/` (symlinks resolved inside those directories). */
  toPayloadFiles(): PayloadFiles {
    const out: PayloadFiles = { manifests: new Map(), releaseManifests: new Map() };
    for (const k of [...this.nodes.keys()].sort()) {
      const parts = k.split('/');
      if (parts.length !== 2) continue;
      const data = this.resolveFile(k);
      if (!data) continue;
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
  for (const [i, layer] of layers.entries()) await t.applyLayer(Readable.from([Buffer.from(layer)]), undefined, `layer ${i}`);
  return t;
}
