import { mkdtempSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGraphServer,
  Graph,
  pickFcosUpdate,
  UpdateGraphClient,
  type GraphDocument,
  type GraphServer,
} from '../src/index.js';
import { CINCINNATI, readText, ZINCATI } from './helpers.js';

const GRAPH_DATA = fileURLToPath(new URL('graph-data', CINCINNATI));

/** Writes release-metadata files for 4.15.20..4.15.22 and 4.16.0..4.16.11 on amd64 and arm64 (a chain plus skip edges). */
function releasesDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ug-releases-'));
  const versions = [...[20, 21, 22].map((z) => `4.15.${z}`), ...Array.from({ length: 12 }, (_, z) => `4.16.${z}`)];
  for (const arch of ['amd64', 'arm64']) {
    versions.forEach((v, i) => {
      const previous = versions.slice(Math.max(0, i - 3), i);
      const digest = `${arch === 'amd64' ? 'a' : 'b'}${String(i).padStart(63, '0')}`;
      writeFileSync(
        join(dir, `${v}-${arch}.json`),
        JSON.stringify({
          kind: 'cincinnati-metadata-v0',
          version: v,
          arch,
          payload: `quay.io/openshift-release-dev/ocp-release@sha256:${digest}`,
          previous,
          metadata: { url: `https://access.redhat.com/errata/${v}` },
        }),
      );
    });
  }
  writeFileSync(join(dir, 'README.txt'), 'ignored');
  return dir;
}

describe('createGraphServer with graph-data', () => {
  let srv: GraphServer;
  let base: string;
  beforeAll(async () => {
    srv = createGraphServer({ releases: releasesDir(), graphData: GRAPH_DATA, prefix: '/api/upgrades_info' });
    base = await srv.listen(0, '127.0.0.1');
  });
  afterAll(() => srv.close());
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

  it('builds nodes with +arch, arch/manifestref metadata and channels from graph-data', () => {
    const n = srv.graph.nodes.find((x) => x.version === '4.16.2+arm64')!;
    expect(n.metadata['io.openshift.upgrades.graph.release.arch']).toBe('arm64');
    expect(n.metadata['io.openshift.upgrades.graph.release.manifestref']).toMatch(/^sha256:b/);
    expect(n.metadata['io.openshift.upgrades.graph.release.channels']).toBe('stable-4.16');
    expect(srv.warnings).toEqual([]);
  });

  it('serves channel/arch-filtered graphs at /graph and /v1/graph; conditional edges from the PromQL risk', async () => {
    for (const p of ['/graph', '/v1/graph']) {
      const r = await get(`/api/upgrades_info${p}?channel=stable-4.16&arch=arm64`, { accept: 'application/json' });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const doc = (await r.json()) as GraphDocument;
      const g = Graph.parse(doc);
      expect(g.nodes.every((x) => !x.version.includes('+'))).toBe(true);
      expect(g.nodes.every((x) => x.payload.includes('sha256:b'))).toBe(true);
      expect(g.nodes.some((x) => 'io.openshift.upgrades.graph.release.arch' in x.metadata)).toBe(false);
      const cond = doc
        .conditionalEdges!.flatMap((c) => c.edges.map((e) => `${e.from}>${e.to}:${c.risks.map((x) => x.name).join()}`))
        .sort();
      // only 4.16.7..4.16.9 are predecessors of 4.16.10; none matches ^4.(15.(0-22)|16.[0-3])[+] → no conditional edge survives, and no edge is removed
      expect(cond).toEqual([]);
    }
  });

  it('a predecessor matching the from regex turns into a conditional edge (the block removes the plain edge)', async () => {
    const dir = releasesDir();
    writeFileSync(
      join(dir, '4.16.10-amd64.json'),
      JSON.stringify({
        version: '4.16.10',
        arch: 'amd64',
        payload: 'quay.io/x@sha256:' + 'c'.repeat(64),
        previous: ['4.16.2', '4.16.8', '4.16.9'],
      }),
    );
    const s = createGraphServer({ releases: dir, graphData: GRAPH_DATA });
    const url = await s.listen();
    try {
      const client = new UpdateGraphClient();
      const r = await client.fetch({
        upstream: `${url}/graph`,
        channel: 'stable-4.16',
        version: '4.16.2',
        arch: 'amd64',
        id: '01234567-0123-0123-0123-0123456789ab',
      });
      expect(r.conditionalUpdates.map((c) => [c.release.version, c.risks.map((x) => x.name)])).toEqual([
        ['4.16.10', ['HyperShiftNodePoolSkewBinaryDownload']],
      ]);
      expect(r.updates.map((u) => u.version)).not.toContain('4.16.10');
      expect(r.updates.map((u) => u.version).sort()).toEqual(['4.16.3', '4.16.4', '4.16.5']);
      const r9 = await client.fetch({ upstream: `${url}/graph`, channel: 'stable-4.16', version: '4.16.9' });
      expect(r9.updates.map((u) => u.version)).toContain('4.16.10');
      expect(r9.conditionalUpdates).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('strict Accept check and {kind, value} errors', async () => {
    // node:http sends no Accept header at all (fetch would add */*)
    const noAccept = await new Promise<{ status: number; type: string | undefined }>((resolve, reject) => {
      httpGet(`${base}/api/upgrades_info/v1/graph?channel=stable-4.16`, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] });
      }).on('error', reject);
    });
    expect(noAccept).toEqual({ status: 200, type: 'application/vnd.redhat.cincinnati.v1+json' });
    for (const a of ['*/*', '*', 'application/*'])
      expect(
        (await get('/api/upgrades_info/v1/graph?channel=stable-4.16', { accept: a })).headers.get('content-type'),
      ).toBe('application/json');
    const v1 = await get('/api/upgrades_info/v1/graph?channel=stable-4.16', {
      accept: 'application/vnd.redhat.cincinnati.v1+json',
    });
    expect(v1.headers.get('content-type')).toBe('application/vnd.redhat.cincinnati.v1+json');
    const bad = await get('/api/upgrades_info/v1/graph?channel=stable-4.16', {
      accept: 'application/json, text/plain',
    });
    expect(bad.status).toBe(406);
    expect(((await bad.json()) as { kind: string }).kind).toBe('invalid_content_type');
    const missing = await get('/api/upgrades_info/v1/graph', { accept: 'application/json' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      kind: 'missing_params',
      value: 'mandatory client parameters missing: channel',
    });
    const inv = await get('/api/upgrades_info/v1/graph?channel=Stable_4', { accept: 'application/json' });
    expect(await inv.json()).toEqual({
      kind: 'invalid_params',
      value: "invalid client parameters: channel 'Stable_4' does not match regex '^[0-9a-z\\-\\.]+$'",
    });
    expect((await get('/api/upgrades_info/v1/graph?channel=stable-4.16&arch=x86_64')).status).toBe(400);
    expect((await get('/elsewhere')).status).toBe(404);
    const head = await fetch(`${base}/api/upgrades_info/v1/graph?channel=stable-4.16`, {
      method: 'HEAD',
      headers: { accept: 'application/json' },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(`${base}/api/upgrades_info/v1/graph?channel=stable-4.16`, { method: 'POST' })).status).toBe(
      405,
    );
    expect((await get('/api/upgrades_info/v1/openapi')).status).toBe(200);
    const client = new UpdateGraphClient();
    await expect(
      client.fetch({ upstream: `${base}/api/upgrades_info/v1/graph`, channel: 'BAD', version: '4.16.1' }),
    ).rejects.toThrow('ResponseFailed: unexpected HTTP status: 400 Bad Request');
  });

  it('an empty channel answers an empty graph; the client reports VersionNotFound', async () => {
    const client = new UpdateGraphClient();
    await expect(
      client.fetch({ upstream: `${base}/api/upgrades_info/v1/graph`, channel: 'fast-4.99', version: '4.16.1' }),
    ).rejects.toThrow(
      'VersionNotFound: currently reconciling cluster version 4.16.1 not found in the "fast-4.99" channel',
    );
  });

  it('graph-builder mode serves the unfiltered graph (all arches, +arch versions) without parameters', async () => {
    const gb = createGraphServer({ releases: releasesDir(), graphData: GRAPH_DATA, mode: 'graph-builder' });
    const u = await gb.listen();
    try {
      const doc = (await (
        await fetch(`${u}/v1/graph`, { headers: { accept: 'application/json' } })
      ).json()) as GraphDocument;
      expect(doc.nodes).toHaveLength(30);
      expect(doc.nodes.every((n) => /\+(amd64|arm64)$/.test(n.version))).toBe(true);
    } finally {
      await gb.close();
    }
  });

  it('rejects cyclic release metadata with a typed error', () => {
    expect(() =>
      createGraphServer({
        releases: [
          { version: '4.1.0', payload: 'a', previous: ['4.1.1'] },
          { version: '4.1.1', payload: 'b', previous: ['4.1.0'] },
        ],
      }),
    ).toThrow(/update cycle/);
  });
});

describe('FCOS dialect server + client', () => {
  const doc = JSON.parse(readText(ZINCATI)) as GraphDocument;
  const start = 1591279200;
  let srv: GraphServer;
  let base: string;
  beforeAll(async () => {
    srv = createGraphServer({ fcos: { streams: { stable: { x86_64: doc } }, now: () => (start + 1440 * 60) * 1000 } });
    base = await srv.listen();
  });
  afterAll(() => srv.close());

  it('throttles the rollout by wariness (progress 0.5 half-way through 2880 minutes)', async () => {
    const client = new UpdateGraphClient();
    const eager = await client.fetchFcos({ base, basearch: 'x86_64', stream: 'stable', rolloutWariness: 0.1 });
    expect(eager.graph.edges).toHaveLength(2);
    const booted = doc.nodes[0]!.payload;
    expect(pickFcosUpdate(eager.graph, booted).target?.version).toBe('32.20200601.1.1');
    const wary = await client.fetchFcos({ base, basearch: 'x86_64', stream: 'stable', rolloutWariness: 0.9 });
    expect(wary.graph.edges).toHaveLength(0);
    expect(pickFcosUpdate(wary.graph, booted).target).toBeUndefined();
    expect(pickFcosUpdate(eager.graph, booted, ['32.20200601.1.1']).target).toBeUndefined();
  });
  it('unknown stream → 400', async () => {
    const r = await fetch(`${base}/v1/graph?basearch=x86_64&stream=nope`);
    expect(r.status).toBe(400);
  });
  it('dead-end nodes lose their outgoing edges', async () => {
    const dead: GraphDocument = {
      nodes: doc.nodes.map((n, i) =>
        i === 0
          ? {
              ...n,
              metadata: {
                ...n.metadata,
                'org.fedoraproject.coreos.updates.deadend': 'true',
                'org.fedoraproject.coreos.updates.deadend_reason': 'https://x',
              },
            }
          : n,
      ),
      edges: doc.edges,
    };
    const s = createGraphServer({
      fcos: { streams: { testing: { aarch64: dead } }, now: () => (start + 10_000 * 60) * 1000 },
    });
    const u = await s.listen();
    try {
      const r = await new UpdateGraphClient().fetchFcos({
        base: u,
        basearch: 'aarch64',
        stream: 'testing',
        rolloutWariness: 0.5,
      });
      expect(r.graph.edges.map(([a, b]) => [a, b])).toEqual([[1, 2]]);
      expect(pickFcosUpdate(r.graph, doc.nodes[0]!.payload)).toMatchObject({
        deadend: true,
        deadendReason: 'https://x',
        target: undefined,
      });
    } finally {
      await s.close();
    }
  });
});
