import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { PayloadError, UnsafeArchiveError } from './errors.js';

/** A blob expected on disk: its digest and, when the descriptor declares it, its size. */
export interface BlobExpectation {
  digest: string;
  size?: number;
}

/** An open, verified regular blob file; `size` is the number of bytes that were verified. */
export interface VerifiedBlob {
  handle: FileHandle;
  size: number;
}

const CHUNK = 1024 * 1024;

/**
 * Opens a blob file for reading, refusing anything but a regular file: a FIFO would block forever, a symlink to
 * `/dev/zero` would never end. The file is checked before opening (so a FIFO is never opened) and again on the
 * open descriptor (so a swap in between is caught); it is opened non-blocking.
 */
export async function openRegularFile(path: string, where: string): Promise<FileHandle> {
  const s = await stat(path).catch((e: unknown) => {
    throw new PayloadError(
      'InvalidImageLayout',
      `${where}: ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the blob is missing`,
      path,
    );
  });
  if (!s.isFile()) throw notRegular(path, where);
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw notRegular(path, where);
  } catch (e) {
    await handle.close();
    throw e;
  }
  return handle;
}

function notRegular(path: string, where: string): UnsafeArchiveError {
  return new UnsafeArchiveError(
    'UnsafeArchive',
    `${where}: ${path} is not a regular file (FIFO, device, directory or a link to one); blobs must be regular files`,
    path,
  );
}

function tooLarge(where: string, n: number, max: number, path: string): UnsafeArchiveError {
  return new UnsafeArchiveError(
    'ArchiveLimitExceeded',
    `${where}: blob is ${n} bytes, above the ${max}-byte limit; refusing`,
    path,
  );
}

/**
 * Hashes an open blob, reading at most `max` bytes (the declared size, else the file size, never more than
 * `limit`), and checks its size and digest. A blob larger than declared is a mismatch, not an endless read.
 */
export async function verifyOpenBlob(
  handle: FileHandle,
  want: BlobExpectation,
  where: string,
  limit: number,
  path: string,
): Promise<number> {
  const fileSize = (await handle.stat()).size;
  const declared = want.size;
  if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) {
    throw new PayloadError(
      'InvalidImageLayout',
      `${where}: descriptor size ${String(declared)} is not a non-negative integer`,
      path,
    );
  }
  const bound = declared ?? fileSize;
  if (bound > limit) throw tooLarge(where, bound, limit, path);
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, bound + 1));
  let pos = 0;
  // read one byte past the bound so that a longer file is detected without reading it all
  while (pos <= bound) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, bound + 1 - pos), pos);
    if (bytesRead === 0) break;
    h.update(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  if (pos !== bound || (declared !== undefined && fileSize !== declared)) {
    throw new UnsafeArchiveError(
      'DigestMismatch',
      `${where}: blob ${want.digest} has ${pos > bound ? `more than ${bound}` : pos} bytes, its descriptor declares ${bound}; the blob is corrupt or was tampered with`,
      want.digest,
    );
  }
  const got = `sha256:${h.digest('hex')}`;
  if (got !== want.digest) {
    throw new UnsafeArchiveError(
      'DigestMismatch',
      `${where}: digest mismatch: expected ${want.digest}, got ${got}; the blob is corrupt or was tampered with`,
      want.digest,
    );
  }
  return pos;
}

/** Opens and verifies a blob file; the caller closes `handle`. */
export async function openVerifiedBlob(
  path: string,
  want: BlobExpectation,
  where: string,
  limit: number,
): Promise<VerifiedBlob> {
  const handle = await openRegularFile(path, where);
  try {
    const size = await verifyOpenBlob(handle, want, where, limit, path);
    return { handle, size };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/** Reads a small blob (manifest, index, config) whole, refusing non-regular files, over-size and digest mismatch. */
export async function readVerifiedBlob(
  path: string,
  want: BlobExpectation,
  where: string,
  limit: number,
): Promise<Buffer> {
  const { handle, size } = await openVerifiedBlob(path, want, where, limit);
  try {
    const buf = Buffer.alloc(size);
    let pos = 0;
    while (pos < size) {
      const { bytesRead } = await handle.read(buf, pos, size - pos, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
    }
    if (pos !== size || `sha256:${createHash('sha256').update(buf).digest('hex')}` !== want.digest) {
      throw new UnsafeArchiveError(
        'DigestMismatch',
        `${where}: blob ${want.digest} changed while it was read; refusing it`,
        want.digest,
      );
    }
    return buf;
  } finally {
    await handle.close();
  }
}

/** Reads a small regular file whole (at most `limit` bytes), refusing FIFOs, devices and larger files. */
export async function readSmallFile(path: string, where: string, limit: number): Promise<Buffer> {
  const handle = await openRegularFile(path, where);
  try {
    const size = (await handle.stat()).size;
    if (size > limit) throw tooLarge(where, size, limit, path);
    const buf = Buffer.alloc(size);
    let pos = 0;
    while (pos < size) {
      const { bytesRead } = await handle.read(buf, pos, size - pos, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
    }
    return buf.subarray(0, pos);
  } finally {
    await handle.close();
  }
}
