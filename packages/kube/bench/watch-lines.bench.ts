// The watch stream's line splitting: the client's WatchLineSplitter against the append-and-search-from-the-start
// buffer it replaced, on a large line received in many small chunks and on large chunks holding many lines.
import { test } from 'vitest';
import { WatchLineSplitter } from '../src/watch-lines.js';

/** The former algorithm: append the chunk, search the whole buffer from its start, cut the line off. */
function appendAndSearch(chunks: readonly string[]): number {
  let buf = '';
  let count = 0;
  for (const chunk of chunks) {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      if (buf.slice(0, nl).trim().length > 0) count++;
      buf = buf.slice(nl + 1);
    }
  }
  return count;
}

function splitter(chunks: readonly string[]): number {
  const s = new WatchLineSplitter(64 * 1024 * 1024);
  let count = 0;
  for (const chunk of chunks) count += s.push(chunk).length;
  return count;
}

function chunked(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const event = (i: number): string =>
  JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: `node-${i}`, labels: { a: 'b'.repeat(300) } } } });

// One 1 MiB event (a large ConfigMap or MachineConfig) in 16 KiB socket reads.
const bigLine = chunked(`${JSON.stringify({ type: 'ADDED', object: { data: 'x'.repeat(1 << 20) } })}\n`, 16 << 10);
// 5,000 Node events arriving together in 1 MiB reads.
const manyLines = chunked(Array.from({ length: 5000 }, (_, i) => `${event(i)}\n`).join(''), 1 << 20);

test('one 1 MiB event in 16 KiB chunks', async ({ bench }) => {
  await bench.compare(
    bench('append and search from the start (former)', () => {
      if (appendAndSearch(bigLine) !== 1) throw new Error('lost the line');
    }),
    bench('WatchLineSplitter', () => {
      if (splitter(bigLine) !== 1) throw new Error('lost the line');
    }),
  );
});

test('5,000 events in 1 MiB chunks', async ({ bench }) => {
  await bench.compare(
    bench('append and search from the start (former)', () => {
      if (appendAndSearch(manyLines) !== 5000) throw new Error('lost lines');
    }),
    bench('WatchLineSplitter', () => {
      if (splitter(manyLines) !== 5000) throw new Error('lost lines');
    }),
  );
});
