import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  availableUpdates,
  Graph,
  GraphValidationError,
  parseGraphNode,
  UpdateGraphClient,
  UpdateRetrievalError,
  type ConditionalUpdate,
  type Release,
} from '../src/index.js';
import { createDispatcher } from '../src/http.js';
import {
  CANDIDATE_412,
  E2E,
  makeCerts,
  readText,
  serve,
  serveProxy,
  serveTls,
  STABLE_47,
  STABLE_49,
  ZINCATI,
  type Running,
} from './helpers.js';

interface Vector {
  name: string;
  function: string;
  input: Record<string, unknown> & { graph?: string; raw?: string; httpStatus?: number };
  expected: Record<string, unknown> & { error?: string | null; query?: string };
}
const vectorsDoc = JSON.parse(
  readFileSync(new URL('./fixtures/upstream/vectors/cvo-cincinnati-vectors.json', import.meta.url), 'utf8'),
) as { vectors: Vector[] };

const nilIfEmpty = <T>(l: T[]): T[] | null => (l.length === 0 ? null : l);
const plainCu = (l: ConditionalUpdate[]): unknown => nilIfEmpty(l.map((c) => ({ release: c.release, risks: c.risks })));

describe('cvo-cincinnati-vectors.json', () => {
  let server: Running;
  let current: Vector | undefined;
  beforeAll(async () => {
    server = await serve((_req, res) => {
      const v = current!;
      if (v.input.httpStatus !== undefined) {
        res.writeHead(v.input.httpStatus);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(v.input.graph ?? '');
    });
  });
  afterAll(() => server.close());
  const client = new UpdateGraphClient({ timeoutMs: 5000 });

  for (const v of vectorsDoc.vectors) {
    it(v.name, async () => {
      if (v.function.startsWith('json.Unmarshal')) {
        const raw = JSON.parse(v.input.raw!) as unknown;
        if (v.expected.error) {
          expect(() => parseGraphNode(raw)).toThrow(v.expected.error);
        } else {
          expect(parseGraphNode(raw)).toEqual({
            version: v.expected['version'],
            payload: v.expected['payload'],
            metadata: v.expected['metadata'],
          });
        }
        return;
      }
      current = v;
      const before = server.requests.length;
      const params = {
        upstream: `${server.url}/graph`,
        channel: v.input['channel'] as string,
        version: v.input['version'] as string,
        arch: v.input['desiredArch'] as string,
        currentArch: v.input['currentArch'] as string,
        id: v.input['clusterID'] as string,
      };
      const run = client.fetch(params);
      if (typeof v.expected.error === 'string') {
        const err = await run.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(UpdateRetrievalError);
        const msg = (err as Error).message;
        if (v.name.includes('not JSON')) expect(msg.startsWith('ResponseInvalid: ')).toBe(true);
        else expect(msg).toBe(v.expected.error);
      } else {
        const res = await run;
        expect(res.current).toEqual(v.expected['current']);
        expect(nilIfEmpty(res.updates)).toEqual(v.expected['availableUpdates']);
        expect(plainCu(res.conditionalUpdates)).toEqual(v.expected['conditionalUpdates']);
      }
      const req = server.requests[before]!;
      expect(req.headers['accept']).toBe('application/json');
      expect(req.headers['user-agent']).toBeUndefined();
      expect(req.url).toBe(`/graph?${v.expected.query}`);
    });
  }
});

describe('Graph model', () => {
  it('loads the real e2e graphs', () => {
    const g47 = Graph.parse(readText(STABLE_47));
    expect(g47.nodes).toHaveLength(102);
    expect(g47.edges).toHaveLength(3244);
    expect(g47.conditionalEdges).toHaveLength(2);
    expect(Graph.parse(readText(STABLE_49)).nodes).toHaveLength(90);
    expect(Graph.parse(readText(CANDIDATE_412)).edges).toHaveLength(10);
  });
  it('rejects out-of-range indices, non-integer indices, duplicates and cycles with JSON paths', () => {
    const node = (v: string) => ({ version: v, payload: `p${v}` });
    const err = (doc: unknown): GraphValidationError => {
      try {
        Graph.parse(doc);
      } catch (e) {
        return e as GraphValidationError;
      }
      throw new Error('expected failure');
    };
    expect(err({ nodes: [node('4.1.0')], edges: [[0, 5]] }).path).toBe('$.edges[0][1]');
    expect(err({ nodes: [node('4.1.0')], edges: [[0, 5]] }).message).toMatch(/out of range/);
    expect(err({ nodes: [node('4.1.0')], edges: [[-1, 0]] }).path).toBe('$.edges[0][0]');
    expect(err({ nodes: [node('4.1.0')], edges: [[0, 0.5]] }).path).toBe('$.edges[0][1]');
    expect(err({ nodes: [node('4.1.0'), node('4.1.0')] }).path).toBe('$.nodes[1].version');
    expect(
      err({
        nodes: [node('4.1.0'), node('4.1.1'), node('4.1.2')],
        edges: [
          [0, 1],
          [1, 2],
          [2, 0],
        ],
      }).message,
    ).toBe('$.edges: cycle 4.1.0 -> 4.1.1 -> 4.1.2 -> 4.1.0');
    expect(err({ nodes: [node('4.1.0')], edges: [[0, 0]] }).code).toBe('GRAPH_INVALID');
    expect(err('[]').message).toMatch(/must be a JSON object/);
    expect(err({ nodes: [{ version: 4, payload: 'x' }] }).path).toBe('$.nodes[0].version');
  });
  it('looks up by version, payload and SemVer equality', () => {
    const g = Graph.parse(readText(STABLE_47));
    const i = g.indexOf('4.7.4');
    expect(i).toBeGreaterThanOrEqual(0);
    expect(g.indexOfPayload(g.nodes[i]!.payload)).toBe(i);
    expect(g.findBySemver('4.7.4+amd64')).toBe(i);
    expect(g.node('9.9.9')).toBeUndefined();
    expect(g.conditionalFrom('4.7.0').map((c) => c.to)).toEqual(['4.7.4']);
  });
  it('parses the FCOS dialect (free-form versions)', () => {
    expect(() => Graph.parse(readText(ZINCATI))).toThrow(GraphValidationError);
    const g = Graph.parse(readText(ZINCATI), { dialect: 'fcos' });
    expect(g.successors(0).map((i) => g.nodes[i]!.version)).toEqual(['32.20200601.1.1']);
  });
});

describe('availableUpdates on the real stable-4.7 graph', () => {
  const g = Graph.parse(readText(STABLE_47));
  it('4.7.0 has recommended updates and a conditional update to 4.7.4 (PromQL risk)', () => {
    const r = availableUpdates(g, '4.7.0', { channel: 'stable-4.7' });
    expect(r.current.version).toBe('4.7.0');
    expect(r.updates.length).toBeGreaterThan(0);
    expect(r.updates.some((u: Release) => u.version === '4.7.4')).toBe(false);
    expect(r.conditionalUpdates.map((c) => [c.release.version, c.risks.map((x) => x.name)])).toEqual([
      ['4.7.4', ['VSphereNodeNameChanges']],
    ]);
    for (const u of r.updates) expect(u.channels).toContain('stable-4.7');
  });
  it('unknown version → VersionNotFound', () => {
    expect(() => availableUpdates(g, '4.1.0', { channel: 'stable-4.7' })).toThrow(
      'VersionNotFound: currently reconciling cluster version 4.1.0 not found in the "stable-4.7" channel',
    );
  });
});

describe('UpdateGraphClient over loopback HTTP', () => {
  let files: Running;
  beforeAll(async () => {
    files = await serve((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const channel = u.searchParams.get('channel');
      const arch = u.searchParams.get('arch');
      const name = `134475077ed4eeaedf3c339f12915b9cdaf7d194_${channel}_${arch}_v1.json`;
      try {
        const body = readFileSync(new URL(name, E2E));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      } catch {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"kind":"does_not_exist","value":"no such channel"}');
      }
    });
  });
  afterAll(() => files.close());

  it('replays the real graph files: stable-4.9 / candidate-4.12 multi', async () => {
    const client = new UpdateGraphClient();
    const r = await client.fetch({
      upstream: `${files.url}/api/upgrades_info/v1/graph`,
      channel: 'stable-4.9',
      version: '4.9.0',
      arch: 'amd64',
      id: '01234567-0123-0123-0123-0123456789ab',
    });
    expect(r.url).toBe(
      `${files.url}/api/upgrades_info/v1/graph?arch=amd64&channel=stable-4.9&id=01234567-0123-0123-0123-0123456789ab&version=4.9.0`,
    );
    expect(r.graph.nodes).toHaveLength(90);
    expect(r.updates.length).toBeGreaterThan(0);
    const multi = await client.fetchGraph({
      upstream: `${files.url}/graph`,
      channel: 'candidate-4.12',
      version: '4.12.0',
      arch: 'Multi',
    });
    const m = await client.fetch({
      upstream: `${files.url}/graph`,
      channel: 'candidate-4.12',
      version: multi.graph.nodes[0]!.version,
      arch: 'Multi',
    });
    expect(m.url).toContain('arch=multi');
    expect(m.current.architecture).toBe('Multi');
    await client.close();
  });

  it('keeps existing upstream query parameters and sorts keys', async () => {
    const client = new UpdateGraphClient();
    const r = await client.fetchGraph({
      upstream: `${files.url}/graph?zz=1&b=two%20words`,
      channel: 'stable-4.9',
      version: '4.9.0',
    });
    expect(r.url).toBe(`${files.url}/graph?arch=amd64&b=two+words&channel=stable-4.9&version=4.9.0&zz=1`);
  });

  it('follows redirects like Go http.Client', async () => {
    const redirector = await serve((req, res) => {
      res.writeHead(302, { location: `${files.url}/graph${(req.url ?? '').slice((req.url ?? '').indexOf('?'))}` });
      res.end();
    });
    try {
      const r = await new UpdateGraphClient().fetch({
        upstream: `${redirector.url}/old`,
        channel: 'stable-4.9',
        version: '4.9.0',
      });
      expect(r.graph.nodes).toHaveLength(90);
    } finally {
      await redirector.close();
    }
  });

  it('404 → ResponseFailed with the Go status line', async () => {
    const client = new UpdateGraphClient();
    await expect(
      client.fetch({ upstream: `${files.url}/graph`, channel: 'nope-1.0', version: '4.9.0' }),
    ).rejects.toThrow('ResponseFailed: unexpected HTTP status: 404 Not Found');
  });

  it('input validation reasons', async () => {
    const client = new UpdateGraphClient();
    const reason = async (p: Parameters<UpdateGraphClient['fetch']>[0]): Promise<string> =>
      client.fetch(p).then(
        () => 'ok',
        (e: unknown) => (e as UpdateRetrievalError).reason,
      );
    expect(await reason({ upstream: '', channel: 'c', version: '4.1.0' })).toBe('InvalidURL');
    expect(await reason({ upstream: 'not a url', channel: 'c', version: '4.1.0' })).toBe('InvalidURL');
    expect(await reason({ upstream: 'ftp://127.0.0.1/x', channel: 'c', version: '4.1.0' })).toBe('InvalidURL');
    expect(await reason({ upstream: files.url, channel: '', version: '4.1.0' })).toBe('NoChannel');
    expect(await reason({ upstream: files.url, channel: 'c', version: '' })).toBe('NoCurrentVersion');
    expect(await reason({ upstream: files.url, channel: 'c', version: 'v4' })).toBe('InvalidCurrentVersion');
    expect(await reason({ upstream: files.url, channel: 'c', version: '4.1.0', id: 'not-a-uuid' })).toBe(
      'InvalidRequest',
    );
  });

  it('connection refused → RemoteFailed', async () => {
    const s = await serve((_q, r) => r.end());
    const url = s.url;
    await s.close();
    const client = new UpdateGraphClient({ timeoutMs: 5000 });
    const e = await client.fetch({ upstream: `${url}/graph`, channel: 'c', version: '4.1.0' }).catch((x: unknown) => x);
    expect((e as UpdateRetrievalError).reason).toBe('RemoteFailed');
    expect((e as UpdateRetrievalError).message).toContain(`Get "${url}/graph?`);
  });
});

describe('hostile responses', () => {
  let hostile: Running;
  beforeAll(async () => {
    hostile = await serve((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/garbage') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"nodes": [ {"version": "4.1.0", "payload": ');
      } else if (path === '/huge') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1 << 20, 0x20);
        let sent = 0;
        const pump = (): void => {
          while (sent < 50) {
            sent++;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end('{}');
        };
        res.on('error', () => undefined);
        pump();
      } else if (path === '/huge-declared') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 << 20) });
        res.write('{');
      } else if (path === '/range') {
        res.writeHead(200);
        res.end(JSON.stringify({ nodes: [{ version: '4.1.0', payload: 'a' }], edges: [[0, 7]] }));
      } else if (path === '/cycle') {
        res.writeHead(200);
        res.end(
          JSON.stringify({
            nodes: [
              { version: '4.1.0', payload: 'a' },
              { version: '4.1.1', payload: 'b' },
            ],
            edges: [
              [0, 1],
              [1, 0],
            ],
          }),
        );
      } else if (path === '/slowloris') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const t = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(t));
      } else if (path === '/noheaders') {
        // never answer
      }
    });
  });
  afterAll(() => hostile.close());
  const p = (path: string) => ({ upstream: `${hostile.url}${path}`, channel: 'c', version: '4.1.0' });

  it('garbage JSON → ResponseInvalid', async () => {
    const e = (await new UpdateGraphClient().fetch(p('/garbage')).catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(e.reason).toBe('ResponseInvalid');
  });
  it('50 MB streamed body → ResponseFailed size limit', async () => {
    const e = (await new UpdateGraphClient({ maxBytes: 4 << 20 })
      .fetch(p('/huge'))
      .catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(e.reason).toBe('ResponseFailed');
    expect(e.message).toContain('exceeds the 4194304-byte limit');
  });
  it('50 MB declared Content-Length → refused before reading', async () => {
    const e = (await new UpdateGraphClient({ maxBytes: 1 << 20 })
      .fetch(p('/huge-declared'))
      .catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(e.reason).toBe('ResponseFailed');
    expect(e.message).toContain('52428800 bytes exceeds');
  });
  it('out-of-range index → ResponseInvalid naming the path', async () => {
    const e = (await new UpdateGraphClient().fetch(p('/range')).catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(e.message).toBe('ResponseInvalid: $.edges[0][1]: node index 7 is out of range (the graph has 1 nodes)');
  });
  it('cycle → ResponseInvalid', async () => {
    const e = (await new UpdateGraphClient().fetch(p('/cycle')).catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(e.message).toBe('ResponseInvalid: $.edges: cycle 4.1.0 -> 4.1.1 -> 4.1.0');
  });
  it('slow-loris body → ResponseFailed timeout', async () => {
    const e = (await new UpdateGraphClient({ timeoutMs: 400 })
      .fetch(p('/slowloris'))
      .catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(e.reason).toBe('ResponseFailed');
    expect(e.message).toContain('timeout after 400 ms');
  });
  it('no response headers → RemoteFailed timeout; abort signal → RemoteFailed canceled', async () => {
    const e = (await new UpdateGraphClient({ timeoutMs: 300 })
      .fetch(p('/noheaders'))
      .catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(e.reason).toBe('RemoteFailed');
    expect(e.message).toContain('deadline exceeded');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const a = (await new UpdateGraphClient({ timeoutMs: 10_000 })
      .fetch({ ...p('/noheaders'), signal: ac.signal })
      .catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(a.reason).toBe('RemoteFailed');
    expect(a.message).toContain('context canceled');
  });
});

describe('TLS with a custom CA and an HTTP proxy', () => {
  const certs = makeCerts();
  let tls: Running;
  let plain: Running;
  let proxy: Awaited<ReturnType<typeof serveProxy>>;
  const body = readFileSync(STABLE_49);
  beforeAll(async () => {
    tls = await serveTls(
      (_q, r) => {
        r.writeHead(200, { 'content-type': 'application/json' });
        r.end(body);
      },
      certs.key,
      certs.cert,
    );
    plain = await serve((_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json' });
      r.end(body);
    });
    proxy = await serveProxy();
  });
  afterAll(async () => {
    await tls.close();
    await plain.close();
    await proxy.close();
  });
  const params = (base: string) => ({ upstream: `${base}/graph`, channel: 'stable-4.9', version: '4.9.0' });

  it('trusts the given CA bundle', async () => {
    const r = await new UpdateGraphClient({ ca: certs.caCert }).fetch(params(tls.url));
    expect(r.graph.nodes).toHaveLength(90);
  });
  it('rejects a server signed by another CA → RemoteFailed', async () => {
    const e = (await new UpdateGraphClient({ ca: certs.otherCa })
      .fetch(params(tls.url))
      .catch((x: unknown) => x)) as UpdateRetrievalError;
    expect(e.reason).toBe('RemoteFailed');
  });
  it('tunnels HTTPS through the proxy with CONNECT', async () => {
    const r = await new UpdateGraphClient({ ca: certs.caCert, proxy: proxy.url }).fetch(params(tls.url));
    expect(r.graph.nodes).toHaveLength(90);
    expect(proxy.connects).toContain(`127.0.0.1:${tls.port}`);
  });
  it('NO_PROXY hosts bypass the proxy', async () => {
    const before = proxy.connects.length + proxy.requests.length;
    const r = await new UpdateGraphClient({ ca: certs.caCert, proxy: proxy.url, noProxy: ['127.0.0.1'] }).fetch(
      params(tls.url),
    );
    expect(r.graph.nodes).toHaveLength(90);
    expect(proxy.connects.length + proxy.requests.length).toBe(before);
  });
  it('closes a client with NO_PROXY routing (promise and callback forms) without recursing', async () => {
    const c = new UpdateGraphClient({ ca: certs.caCert, proxy: proxy.url, noProxy: ['127.0.0.1'] });
    await c.fetch(params(tls.url));
    await expect(c.close()).resolves.toBeUndefined();
    const d = createDispatcher({ proxy: proxy.url, noProxy: ['127.0.0.1'] });
    await new Promise<void>((resolve) => {
      d.close(() => {
        resolve();
      });
    });
  });
  it('sends plain HTTP through the proxy', async () => {
    const before = proxy.connects.length + proxy.requests.length;
    const r = await new UpdateGraphClient({ proxy: proxy.url }).fetch(params(plain.url));
    expect(r.updates.length).toBeGreaterThan(0);
    expect(proxy.connects.length + proxy.requests.length).toBeGreaterThan(before);
  });
});

describe('FCOS dialect client', () => {
  it('sends the Zincati query and parses the response', async () => {
    const s = await serve((_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json' });
      r.end(readFileSync(ZINCATI));
    });
    try {
      const { url, graph } = await new UpdateGraphClient().fetchFcos({
        base: s.url,
        basearch: 'x86_64',
        stream: 'stable',
        osVersion: '32.20200517.1.0',
        osChecksum: 'abc',
        nodeUuid: 'deadbeef',
        platform: 'metal',
        rolloutWariness: 0.5,
      });
      expect(url).toBe(
        `${s.url}/v1/graph?basearch=x86_64&group=default&node_uuid=deadbeef&os_checksum=abc&os_version=32.20200517.1.0&platform=metal&rollout_wariness=0.500000&stream=stable`,
      );
      expect(graph.nodes).toHaveLength(3);
      expect(s.requests[0]!.headers['accept']).toBe('application/json');
    } finally {
      await s.close();
    }
  });
});
