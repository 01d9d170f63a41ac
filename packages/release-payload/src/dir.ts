import { constants, type Dirent } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { readSmallFile } from './blobfile.js';
import { PayloadError, typedErrors, UnsafeArchiveError } from './errors.js';
import { resolveLimits, type ExtractLimits } from './layers.js';
import type { PayloadFiles, SkippedLink } from './payload.js';

/** Files read at once from a payload directory (keeps far below the process's open-file limit). */
const CONCURRENCY = 16;

interface DirBudget {
  limits: Required<ExtractLimits>;
  files: number;
  bytes: number;
}

/** Resolves `p` and checks it stays inside `root` (both real paths); returns the real path. */
async function insideRoot(p: string, realRoot: string, shown: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(p);
  } catch (e) {
    throw new PayloadError(
      'PayloadMissingFile',
      `${shown}: cannot resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); a dangling link?`,
      shown,
    );
  }
  if (real !== realRoot && !real.startsWith(realRoot + sep)) {
    throw new UnsafeArchiveError(
      'UnsafeArchive',
      `${shown} is a link to ${real}, outside the payload directory; links must stay inside the payload`,
      shown,
    );
  }
  return real;
}

/**
 * Reads one entry of a payload subdirectory; `null` for a subdirectory (ignored like upstream), a SkippedLink for a
 * symbolic link to a directory (skipped too, but reported). A link or an entry of unknown type is resolved first and
 * must stay inside the payload.
 */
async function readEntry(
  dir: string,
  name: string,
  realRoot: string,
  budget: DirBudget,
  shownDir: string,
): Promise<Uint8Array | SkippedLink | null> {
  const p = join(dir, name);
  const real = await insideRoot(p, realRoot, p);
  const s = await stat(real);
  if (s.isDirectory()) {
    if (!(await lstat(p)).isSymbolicLink()) return null;
    return { path: `${shownDir}/${name}`, target: await readlink(p), reason: `its target ${real} is a directory` };
  }
  if (!s.isFile()) throw notRegular(p);
  charge(budget, s.size, dir, p);
  return readSmallFile(real, p, budget.limits.maxFileBytes);
}

function notRegular(p: string): UnsafeArchiveError {
  return new UnsafeArchiveError(
    'UnsafeArchive',
    `${p} is not a regular file (FIFO, socket or device); refusing to read it`,
    p,
  );
}

/** Counts a file of `size` bytes against the limits, before it is read. */
function charge(budget: DirBudget, size: number, dir: string, p: string): void {
  const { maxFileBytes, maxTotalBytes } = budget.limits;
  if (size > maxFileBytes)
    throw new UnsafeArchiveError(
      'ArchiveLimitExceeded',
      `${p} is ${size} bytes, above the ${maxFileBytes}-byte limit for one manifest (maxFileBytes)`,
      p,
    );
  budget.bytes += size;
  if (budget.bytes > maxTotalBytes)
    throw new UnsafeArchiveError(
      'ArchiveLimitExceeded',
      `${dir}: manifests hold more than ${maxTotalBytes} bytes (maxTotalBytes); refusing`,
      p,
    );
}

/**
 * Reads a directory entry the listing says is a regular file: open, fstat, read, close. A regular file directly in
 * the (already resolved) directory cannot lead outside it, so it is not resolved; `O_NOFOLLOW` refuses a link swapped
 * in since the listing (then the entry is read the careful way) and the fstat on the open descriptor a swapped-in
 * FIFO or device (`O_NONBLOCK`: opening a FIFO does not wait for a writer).
 */
async function readRegularEntry(
  dir: string,
  name: string,
  realRoot: string,
  budget: DirBudget,
  shownDir: string,
): Promise<Uint8Array | SkippedLink | null> {
  const p = join(dir, name);
  let handle;
  try {
    handle = await open(p, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') return readEntry(dir, name, realRoot, budget, shownDir);
    throw e;
  }
  try {
    const s = await handle.stat();
    if (s.isDirectory()) return null;
    if (!s.isFile()) throw notRegular(p);
    charge(budget, s.size, dir, p);
    const buf = Buffer.allocUnsafe(s.size);
    let pos = 0;
    while (pos < s.size) {
      const { bytesRead } = await handle.read(buf, pos, s.size - pos, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
    }
    return buf.subarray(0, pos);
  } finally {
    await handle.close();
  }
}

function readDirent(
  dir: string,
  e: Dirent,
  realRoot: string,
  budget: DirBudget,
  shownDir: string,
): Promise<Uint8Array | SkippedLink | null> {
  if (e.isDirectory()) return Promise.resolve(null);
  if (e.isFile()) return readRegularEntry(dir, e.name, realRoot, budget, shownDir);
  return readEntry(dir, e.name, realRoot, budget, shownDir);
}

async function readFlatDir(
  dir: string,
  realRoot: string,
  budget: DirBudget,
  shownDir: string,
  skipped: SkippedLink[],
): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  // the listing's entry types (getdents' d_type) spare a stat and a realpath per regular file
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  budget.files += entries.length;
  if (budget.files > budget.limits.maxFiles) {
    throw new UnsafeArchiveError(
      'ArchiveLimitExceeded',
      `${dir}: more than ${budget.limits.maxFiles} files (maxFiles); refusing`,
      dir,
    );
  }
  for (let i = 0; i < entries.length; i += CONCURRENCY) {
    const batch = entries.slice(i, i + CONCURRENCY);
    const data = await Promise.all(batch.map((e) => readDirent(dir, e, realRoot, budget, shownDir)));
    batch.forEach((e, j) => {
      const d = data[j];
      if (d instanceof Uint8Array) out.set(e.name, d);
      else if (d) skipped.push(d);
    });
  }
  return out;
}

/**
 * Reads an extracted payload directory (`manifests/` and `release-manifests/` with `release-metadata` and
 * `image-references`), checking the layout like upstream `ValidateDirectory`. Links that leave the directory,
 * FIFOs and devices are refused; file count and sizes are capped by `limits` before anything is read.
 */
export async function readPayloadDirectory(root: string, limits: ExtractLimits = {}): Promise<PayloadFiles> {
  return typedErrors(root, () => readDirectory(root, limits));
}

async function readDirectory(root: string, limits: ExtractLimits): Promise<PayloadFiles> {
  for (const rel of [
    'manifests',
    'release-manifests',
    'release-manifests/release-metadata',
    'release-manifests/image-references',
  ]) {
    try {
      await stat(join(root, rel));
    } catch {
      throw new PayloadError(
        'PayloadMissingFile',
        `${join(root, rel)} does not exist; a payload directory needs manifests/, release-manifests/, release-manifests/release-metadata and release-manifests/image-references`,
        rel,
      );
    }
  }
  const realRoot = await realpath(root);
  const budget: DirBudget = { limits: resolveLimits(limits), files: 0, bytes: 0 };
  const manifestsDir = await insideRoot(join(root, 'manifests'), realRoot, join(root, 'manifests'));
  const releaseDir = await insideRoot(join(root, 'release-manifests'), realRoot, join(root, 'release-manifests'));
  const skippedLinks: SkippedLink[] = [];
  const manifests = await readFlatDir(manifestsDir, realRoot, budget, 'manifests', skippedLinks);
  const releaseManifests = await readFlatDir(releaseDir, realRoot, budget, 'release-manifests', skippedLinks);
  return { manifests, releaseManifests, skippedLinks };
}
