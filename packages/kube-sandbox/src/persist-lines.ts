/**
 * Reading a file as a stream of lines with bounded memory: chunks of `CHUNK_BYTES` read synchronously (start-up
 * runs before the server listens), one line decoded and handed over at a time. No line may exceed
 * `MAX_LINE_BYTES` (far below V8's string limit; the API server refuses bodies long before that).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { SandboxError } from './errors.js';

const CHUNK_BYTES = 8 * 1024 * 1024;

/** Longest line accepted in the snapshot or the log. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

function openIfExists(file: string): number | undefined {
  try {
    return openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxError('SNAPSHOT_UNREADABLE', `cannot read ${file}: ${(e as Error).message}`);
  }
}

/**
 * Calls `onLine` for every line of `file` (without its newline; line numbers from 1; a last line without a
 * newline included). Returns false when the file does not exist.
 * @throws SandboxError SNAPSHOT_UNREADABLE (I/O error, or a line longer than MAX_LINE_BYTES)
 */
export function forEachLine(file: string, onLine: (line: string, lineNumber: number) => void): boolean {
  const fd = openIfExists(file);
  if (fd === undefined) return false;
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let pieces: Buffer[] = [];
    let pending = 0;
    let n = 0;
    const emit = (last: Buffer): void => {
      const line = pieces.length === 0 ? last.toString('utf8') : Buffer.concat([...pieces, last]).toString('utf8');
      pieces = [];
      pending = 0;
      onLine(line, ++n);
    };
    for (;;) {
      let got: number;
      try {
        got = readSync(fd, buf, 0, CHUNK_BYTES, null);
      } catch (e) {
        throw new SandboxError('SNAPSHOT_UNREADABLE', `cannot read ${file}: ${(e as Error).message}`);
      }
      if (got === 0) break;
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl !== -1 && nl < got; nl = buf.indexOf(10, start)) {
        emit(buf.subarray(start, nl));
        start = nl + 1;
      }
      if (start < got) {
        pending += got - start;
        if (pending > MAX_LINE_BYTES) {
          throw new SandboxError(
            'SNAPSHOT_UNREADABLE',
            `cannot read ${file}: line ${n + 1} is longer than ${MAX_LINE_BYTES} bytes; delete the directory to start empty`,
          );
        }
        pieces.push(Buffer.from(buf.subarray(start, got)));
      }
    }
    if (pieces.length > 0) emit(Buffer.alloc(0));
    return true;
  } finally {
    closeSync(fd);
  }
}
