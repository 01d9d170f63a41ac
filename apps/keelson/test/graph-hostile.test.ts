/**
 * `keelson graph` on hostile input (issue 14 item 10): `--prometheus` honours `--timeout` (a Prometheus that never
 * answers), `--graph` files are size-capped before they are read, and `graph serve` builds a graph whose blocked-edges
 * regex would backtrack exponentially in a backtracking engine. Real child processes and a real loopback HTTP server
 * that accepts queries and never answers them.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Run } from './cli-helpers.js';

function run(args: string[], timeout = 60_000): Promise<Run & { ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

let dir = '';
let silent: Server;
let promUrl = '';
const held: { end(): void }[] = [];

const md = (channels: string) => ({ 'io.openshift.upgrades.graph.release.channels': channels });
const graph = {
  nodes: [
    { version: '4.16.1', payload: 'quay.io/x@sha256:' + '1'.repeat(64), metadata: md('stable-4.16') },
    { version: '4.16.2', payload: 'quay.io/x@sha256:' + '2'.repeat(64), metadata: md('stable-4.16') },
  ],
  edges: [],
  conditionalEdges: [
    {
      edges: [{ from: '4.16.1', to: '4.16.2' }],
      risks: [
        {
          url: 'https://example.com/risk',
          name: 'SlowRisk',
          message: 'may break',
          matchingRules: [{ type: 'PromQL', promql: { promql: 'vector(1)' } }],
        },
      ],
    },
  ],
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keelson-graph-hostile-'));
  await writeFile(join(dir, 'graph.json'), JSON.stringify(graph));
  silent = createServer((_req, res) => {
    held.push(res);
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  promUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const h of held) h.end();
  silent.closeAllConnections();
  await new Promise<void>((r) => silent.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

describe('keelson graph, hostile input', () => {
  it('graph updates --prometheus gives up after --timeout when Prometheus never answers', async () => {
    const r = await run([
      'graph',
      'updates',
      '--graph',
      join(dir, 'graph.json'),
      '--channel',
      'stable-4.16',
      '--version',
      '4.16.1',
      '--prometheus',
      promUrl,
      '--timeout',
      '800ms',
      '--format',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.ms).toBeLessThan(30_000);
    const doc = JSON.parse(r.stdout) as {
      conditionalUpdates: { conditions?: { status: string; reason: string; message: string }[] }[];
    };
    const c = doc.conditionalUpdates[0]?.conditions?.[0];
    expect(c?.status).toBe('Unknown');
    expect(c?.message).toMatch(/800 ms|deadline|timeout/i);
  });

  it('refuses a --graph file above 16 MiB before reading it', async () => {
    const big = join(dir, 'big.json');
    await writeFile(big, '');
    await truncate(big, 17 * 1024 * 1024);
    const r = await run(['graph', 'updates', '--graph', big, '--channel', 'stable-4.16', '--version', '4.16.1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/above the 16777216-byte limit/);
  });

  it('graph serve starts at once although a blocked-edges regex would backtrack exponentially', async () => {
    const releases = join(dir, 'releases');
    const data = join(dir, 'graph-data');
    await mkdir(releases);
    await mkdir(join(data, 'blocked-edges'), { recursive: true });
    await mkdir(join(data, 'channels'), { recursive: true });
    await writeFile(join(data, 'version'), '1.0.0\n');
    await mkdir(join(data, 'raw'));
    await writeFile(join(data, 'raw', 'metadata.json'), '{}');
    const pre = 'a'.repeat(40);
    const versions = ['4.16.0', `4.16.1-${pre}`, '4.16.2'];
    for (const [i, v] of versions.entries()) {
      await writeFile(
        join(releases, `${v}.json`),
        JSON.stringify({
          kind: 'cincinnati-metadata-v0',
          version: v,
          payload: `quay.io/x@sha256:${String(i).repeat(64)}`,
          previous: versions.slice(0, i),
        }),
      );
    }
    await writeFile(
      join(data, 'channels', 'stable-4.16.yaml'),
      `name: stable-4.16\nversions:\n${versions.map((v) => `- ${v}`).join('\n')}\n`,
    );
    await writeFile(join(data, 'blocked-edges', '4.16.2.yaml'), 'to: 4.16.2\nfrom: ^4[.]16[.]1-(a+)+b$\n');
    const child = execFile(process.execPath, [
      BIN,
      'graph',
      'serve',
      '--releases',
      releases,
      '--graph-data',
      data,
      '--port',
      '0',
    ]);
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        const t = setTimeout(() => {
          reject(new Error(`graph serve did not start in 15 s: ${out}`));
        }, 15_000);
        child.stdout?.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /https?:\/\/\S+/.exec(out);
          if (m) {
            clearTimeout(t);
            resolve(m[0]);
          }
        });
        child.stderr?.on('data', (d: Buffer) => {
          out += d.toString();
        });
        child.on('exit', (code) => {
          clearTimeout(t);
          reject(new Error(`exited ${String(code)}: ${out}`));
        });
      });
      expect(line).toMatch(/127\.0\.0\.1/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
