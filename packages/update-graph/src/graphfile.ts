/** Reading a graph document from a file, with its size checked before it is read. */
import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs';
import { UpdateGraphError } from './errors.js';
import { Graph, type GraphParseOptions } from './graph.js';

/** Largest graph file read (the same 16 MiB the client accepts from an update service). */
export const MAX_GRAPH_FILE_BYTES = 16 << 20;

/**
 * Reads and parses a graph JSON file. The file must be a regular file no larger than `maxBytes`, checked on the
 * open descriptor before anything is read, and at most `maxBytes + 1` bytes are ever read (a file that grows is refused
 * too). Errors are {@link UpdateGraphError}s with code `GRAPH_FILE`, or the parse errors of {@link Graph.parse}.
 */
export function readGraphFile(path: string, options: GraphParseOptions & { maxBytes?: number } = {}): Graph {
  const max = options.maxBytes ?? MAX_GRAPH_FILE_BYTES;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new UpdateGraphError('GRAPH_FILE', `${path}: ${(e as Error).message}`, { cause: e });
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      throw new UpdateGraphError('GRAPH_FILE', `${path}: not a regular file`, { hint: 'give a graph JSON file' });
    if (st.size > max) {
      throw new UpdateGraphError(
        'GRAPH_FILE',
        `${path}: ${st.size} bytes, above the ${max}-byte limit for a graph file`,
        { hint: 'a full OpenShift graph is a few MB; check the file' },
      );
    }
    const buf = Buffer.alloc(Math.min(st.size, max) + 1);
    let n = 0;
    for (;;) {
      const r = readSync(fd, buf, n, buf.length - n, n);
      if (r === 0) break;
      n += r;
      if (n > max)
        throw new UpdateGraphError('GRAPH_FILE', `${path}: grew above the ${max}-byte limit while it was read`);
      if (n === buf.length) break;
    }
    text = buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
  const { maxBytes: _m, ...parseOptions } = options;
  return Graph.parse(text, parseOptions);
}
