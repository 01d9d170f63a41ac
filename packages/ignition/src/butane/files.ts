/**
 * Local file sugar (coreos/butane base/util/file.go and url.go): reading files under the files
 * directory without escaping it, and encoding contents as the smallest data URL.
 */
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { gzipSync, constants } from 'node:zlib';
import { BUTANE_MESSAGES } from './errors.js';

/** Largest local file read (per file). */
export const MAX_LOCAL_FILE_BYTES = 64 * 1024 * 1024;

/** An error of the sugar, carrying an upstream message. */
export class SugarError extends Error {
  override readonly name = 'SugarError';
}

/** base/util `EnsurePathWithinFilesDir`, plus a check that symlinks do not lead out of the directory. */
export function ensureWithinFilesDir(path: string, filesDir: string): void {
  const absBase = resolve(filesDir);
  const absPath = resolve(path);
  if (absPath !== absBase && !absPath.startsWith(absBase + sep))
    throw new SugarError(BUTANE_MESSAGES.ErrFilesDirEscape);
  let realBase: string;
  let realPath: string;
  try {
    realBase = realpathSync(absBase);
    realPath = realpathSync(absPath);
  } catch {
    return; // a missing file is reported by the read that follows
  }
  const rel = relative(realBase, realPath);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new SugarError(BUTANE_MESSAGES.ErrFilesDirEscape);
}

/** Go's `*PathError` text for a failed open/read, e.g. `open /x/y: no such file or directory`. */
function goPathError(op: string, path: string, e: unknown): SugarError {
  const code = (e as { code?: string }).code;
  const text: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    ELOOP: 'too many levels of symbolic links',
  };
  return new SugarError(`${op} ${path}: ${(code && text[code]) ?? (e instanceof Error ? e.message : String(e))}`);
}

/** base/util `ReadLocalFile`. */
export function readLocalFile(configPath: string, filesDir: string | undefined): Buffer {
  if (filesDir === undefined || filesDir === '') throw new SugarError(BUTANE_MESSAGES.ErrNoFilesDir);
  const filePath = join(filesDir, configPath);
  ensureWithinFilesDir(filePath, filesDir);
  let size: number;
  try {
    const st = lstatSync(filePath);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    size = st.size;
  } catch (e) {
    throw goPathError((e as { code?: string }).code === 'EISDIR' ? 'read' : 'open', filePath, e);
  }
  if (size > MAX_LOCAL_FILE_BYTES)
    throw new SugarError(`${filePath} is larger than ${MAX_LOCAL_FILE_BYTES} bytes; refusing to embed it`);
  try {
    return readFileSync(filePath);
  } catch (e) {
    throw goPathError('open', filePath, e);
  }
}

function isUnreserved(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d || // -
    c === 0x5f || // _
    c === 0x2e || // .
    c === 0x21 || // !
    c === 0x7e || // ~
    c === 0x2a || // *
    c === 0x27 || // '
    c === 0x28 || // (
    c === 0x29 // )
  );
}

const ESCAPES: readonly string[] = Array.from({ length: 256 }, (_, b) =>
  isUnreserved(b) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
);

/** vincent-petithory/dataurl `Escape`: RFC 2397 escaping with upper-case hex. */
export function dataurlEscape(data: Uint8Array): string {
  const parts: string[] = new Array<string>(data.length);
  for (let i = 0; i < data.length; i++) parts[i] = ESCAPES[data[i] ?? 0] ?? '';
  return parts.join('');
}

/** Result of {@link makeDataURL}. */
export interface DataURL {
  url: string;
  /** `gzip` when compressed, `''` when not and the config had no compression, undefined when the user set one. */
  compression: string | undefined;
}

/**
 * base/util `MakeDataURL`: the smallest of URL-escaped, base64 and (when allowed and the user did not
 * set a compression) gzip+base64.
 */
export function makeDataURL(
  contents: Uint8Array,
  currentCompression: string | undefined,
  allowCompression: boolean,
): DataURL {
  const userCompressed = currentCompression !== undefined && currentCompression !== '';
  let compression: string | undefined = userCompressed ? undefined : '';
  let opaque = `,${dataurlEscape(contents)}`;
  const b64 = `;base64,${Buffer.from(contents).toString('base64')}`;
  if (b64.length < opaque.length) opaque = b64;
  if (!userCompressed && allowCompression) {
    const gz = `;base64,${gzipSync(contents, { level: constants.Z_BEST_COMPRESSION }).toString('base64')}`;
    if (gz.length + 'gzip'.length < opaque.length) {
      opaque = gz;
      compression = 'gzip';
    }
  }
  return { url: `data:${opaque}`, compression };
}
