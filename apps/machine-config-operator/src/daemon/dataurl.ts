/**
 * Decoding of Ignition file contents: `data:` URLs (RFC 2397, base64 or percent-encoded) with optional gzip
 * compression, as the daemon's `decodeContents` does. Other URL schemes cannot be fetched by the daemon.
 */
import { gunzipSync } from 'node:zlib';

/** Why the contents of a file could not be decoded. */
export class ContentsDecodeError extends Error {
  readonly code = 'MCD_CONTENTS_DECODE';
  constructor(
    /** File path the contents belong to. */
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'ContentsDecodeError';
  }
}

/** Upper bound of a decoded file (hostile input is bounded). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Decodes a `data:` URL into bytes. */
export function decodeDataUrl(source: string, path: string): Buffer {
  if (!source.startsWith('data:')) {
    throw new ContentsDecodeError(
      path,
      `could not decode contents of file "${path}": only data: URLs are supported by the daemon, got ${source.slice(0, 40)}`,
    );
  }
  const comma = source.indexOf(',');
  if (comma < 0)
    throw new ContentsDecodeError(path, `could not decode contents of file "${path}": malformed data URL (no comma)`);
  const meta = source.slice(5, comma);
  const payload = source.slice(comma + 1);
  const base64 = meta.split(';').includes('base64');
  let out: Buffer;
  try {
    out = base64
      ? Buffer.from(decodeURIComponent(payload), 'base64')
      : Buffer.from(decodeURIComponent(payload), 'utf8');
  } catch {
    // percent-decoding of arbitrary bytes: fall back to byte-wise decoding
    out = percentDecodeBytes(payload);
  }
  if (out.length > MAX_FILE_BYTES)
    throw new ContentsDecodeError(path, `contents of file "${path}" exceed ${MAX_FILE_BYTES} bytes`);
  return out;
}

function percentDecodeBytes(s: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25 && i + 2 < s.length) {
      const h = Number.parseInt(s.slice(i + 1, i + 3), 16);
      if (!Number.isNaN(h)) {
        bytes.push(h);
        i += 2;
        continue;
      }
    }
    for (const b of Buffer.from(s[i] ?? '', 'utf8')) bytes.push(b);
  }
  return Buffer.from(bytes);
}

/** Decodes an Ignition file's `contents` ({source, compression}); absent source = empty file. */
export function decodeContents(
  contents: { source?: string | null; compression?: string | null } | undefined,
  path: string,
): Buffer {
  if (contents === undefined) return Buffer.alloc(0);
  const known = decoded.get(contents);
  if (known !== undefined && known.source === contents.source && known.compression === contents.compression)
    return known.data;
  const data = decodeUncached(contents, path);
  decoded.set(contents, { source: contents.source, compression: contents.compression, data });
  return data;
}

/**
 * Decoded contents by the contents object of a parsed config: the configs are parsed once per process and shared by
 * every node of a pool (`ignitionOf`), and each update decodes every file two or three times (write, on-disk
 * validation, drift checks). Read-only: callers write or compare the bytes, never change them.
 */
const decoded = new WeakMap<
  object,
  { source: string | null | undefined; compression: string | null | undefined; data: Buffer }
>();

function decodeUncached(contents: { source?: string | null; compression?: string | null }, path: string): Buffer {
  const source = contents.source;
  if (source === undefined || source === null) return Buffer.alloc(0);
  const raw = decodeDataUrl(source, path);
  const compression = contents.compression ?? '';
  if (compression === '') return raw;
  if (compression !== 'gzip') throw new ContentsDecodeError(path, `unsupported compression type "${compression}"`);
  try {
    return gunzipSync(raw, { maxOutputLength: MAX_FILE_BYTES });
  } catch (e) {
    throw new ContentsDecodeError(path, `could not decompress contents of file "${path}": ${(e as Error).message}`);
  }
}

/** Encodes text as the MCS does (`data:,<percent-escaped>`). */
export function encodeDataUrl(text: string | Buffer): string {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let out = 'data:,';
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    // dataurl.Escape (RFC 2396): unreserved characters stay, everything else is %XX
    if (b < 0x80 && /[A-Za-z0-9\-_.!~*'()]/.test(ch)) out += ch;
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
