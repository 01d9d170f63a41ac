/**
 * Hostile-input suite of @keelson/update-graph (issue 14 item 10): regular expressions from graph data run on a
 * linear-time engine, graph files are size-capped before reading, PromQL queries honour their timeout.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyEdgeAddRemove,
  applySecondaryMetadata,
  builderGraphToDocument,
  compileLinearRegex,
  graphFromReleases,
  PromQLCondition,
  readGraphFile,
  UpdateGraphError,
} from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'ug-hostile-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('linear-time regular expressions', () => {
  it('classic catastrophic patterns match in linear time (RE2 semantics)', () => {
    const evil = [
      ['^(a+)+b$', 'a'.repeat(5000) + 'c'],
      ['^(a|aa)+$', 'a'.repeat(5000) + 'b'],
      ['(x+x+)+y', 'x'.repeat(5000)],
      ['^4[.]16[.]1-(a+)+b$', '4.16.1-' + 'a'.repeat(5000) + '+amd64'],
    ] as const;
    for (const [p, s] of evil) expect(compileLinearRegex(p).test(s)).toBe(false);
    expect(compileLinearRegex('4[.]10[.][01][+]').test('4.10.1+amd64')).toBe(true);
    // unanchored search, like Rust's Regex::is_match
    expect(compileLinearRegex('10[.]1').test('4.10.1')).toBe(true);
  });

  it('backtracking-only syntax is refused like upstream (RE2 has no back-references or look-around)', () => {
    expect(() => compileLinearRegex('(a)\\1')).toThrow();
    expect(() => compileLinearRegex('a(?=b)')).toThrow();
    expect(() => compileLinearRegex('a'.repeat(5000))).toThrow(/limit/);
  });

  it('a blocked-edges regex against a crafted version string removes the edge without backtracking', () => {
    const pre = 'a'.repeat(64);
    const g = graphFromReleases([
      { version: `4.16.1-${pre}`, arch: 'amd64', payload: 'p1' },
      { version: '4.16.2', arch: 'amd64', payload: 'p2', previous: [`4.16.1-${pre}`] },
    ]);
    applySecondaryMetadata(g, {
      version: '1.0.0',
      rawMetadata: {},
      blockedEdges: [
        { file: 'x', to: '4.16.2', from: '^4[.]16[.]1-(a+)+(a+)+$' },
        { file: 'y', to: '4.16.2', from: '^4[.]16[.]1-(a+)+b$' },
      ],
      conditionalEdges: [],
      channels: [],
      warnings: [],
    });
    applyEdgeAddRemove(g);
    // the last block wins (it replaces remove_regex) and does not match: the edge stays
    expect(builderGraphToDocument(g).edges).toHaveLength(1);
  });
});

describe('graph files', () => {
  it('refuses a file above the cap before reading it', () => {
    const f = join(dir, 'big.json');
    writeFileSync(f, '');
    truncateSync(f, 17 << 20);
    expect(() => readGraphFile(f)).toThrow(UpdateGraphError);
    expect(() => readGraphFile(f)).toThrow(/above the 16777216-byte limit/);
    expect(() => readGraphFile(join(dir, 'none.json'))).toThrow(
      expect.objectContaining({ code: 'GRAPH_FILE' }) as Error,
    );
  });

  it('refuses a FIFO or a device without blocking', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => readGraphFile(fifo)).toThrow(/not a regular file/);
    expect(() => readGraphFile('/dev/zero')).toThrow(/not a regular file/);
  });

  it('reads a normal graph file', () => {
    const f = join(dir, 'g.json');
    writeFileSync(f, JSON.stringify({ nodes: [{ version: '4.1.0', payload: 'p', metadata: {} }], edges: [] }));
    expect(readGraphFile(f).nodes).toHaveLength(1);
  });
});

describe('PromQL timeout', () => {
  it('a query to a Prometheus that never answers fails after timeoutMs', async () => {
    const held: { end(): void }[] = [];
    const srv = createServer((_req, res) => {
      held.push(res);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    try {
      const c = new PromQLCondition({ url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, timeoutMs: 300 });
      await expect(c.match({ type: 'PromQL', promql: { promql: 'vector(1)' } })).rejects.toThrow(/300 ms/);
    } finally {
      for (const h of held) h.end();
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});
