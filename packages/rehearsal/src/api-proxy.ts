/**
 * A loopback HTTP proxy in front of the embedded API server: every component of the rehearsal talks to the API through
 * it, so it counts requests by verb, evictions and PDB refusals (429 on `pods/eviction`), and injects API errors at a
 * given rate (`--fault api-errors=RATE`) the way an overloaded apiserver answers: 500 InternalError Status objects.
 * Watches and streams pass through untouched.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ApiCounts } from './report.js';

/**
 * How the proxy reaches an API server over HTTPS and stands in for its admin (`rehearse --kubeconfig`): a request that
 * carries `Authorization: Bearer <adminToken>` is sent with the kubeconfig's credentials instead (its bearer token or
 * exec-plugin token, its client certificate); any other request keeps its own credentials (the components'
 * ServiceAccount tokens) and gets no client certificate, so the server authenticates who actually asks.
 */
export interface ProxyUpstream {
  /** The token the rehearsal's admin kubeconfig (pointed at the proxy) carries. */
  adminToken: string;
  /** PEM CA bundle of the server (default: the system's). */
  ca?: string;
  /** `insecure-skip-tls-verify: true` in the kubeconfig. */
  insecureSkipTlsVerify?: boolean;
  /** The kubeconfig's credentials. */
  admin: { authorization?: string; cert?: string; key?: string };
}

/** Options of {@link startApiProxy}. */
export interface ApiProxyOptions {
  /** Upstream API server base URL (plain HTTP on loopback, or any URL with {@link ApiProxyOptions.upstream}). */
  target: string;
  /** TLS and admin credentials of the target (`rehearse --kubeconfig`). */
  upstream?: ProxyUpstream;
  /** Fraction 0..1 of non-watch requests answered with an injected 500 (default 0). */
  errorRate?: number;
  /** Seed of the injection PRNG (default 1), so a rehearsal is repeatable. */
  seed?: number;
}

/** A running proxy. */
export interface ApiProxy {
  url: string;
  counts(): ApiCounts;
  /** Starts the `update` counts (requests from now on), e.g. when the update is requested. */
  markUpdate(): void;
  /** Changes the injected error rate. */
  setErrorRate(rate: number): void;
  close(): Promise<void>;
}

function verbOf(req: IncomingMessage, url: URL): string {
  switch (req.method) {
    case 'GET':
      return url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1' ? 'watch' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return (req.method ?? 'other').toLowerCase();
  }
}

/**
 * The route of a request as `verb path-pattern`, names replaced: `get /api/v1/nodes/{name}`,
 * `list /apis/machineconfiguration.openshift.io/v1/machineconfigpools`, `create /api/v1/namespaces/{ns}/pods/{name}/eviction`.
 * A GET of a collection is `list` (or `watch`), of one object `get`.
 */
export function routeOf(verb: string, pathname: string): string {
  const segs = pathname.split('/').filter((x) => x !== '');
  const prefix = segs[0] === 'api' ? 2 : segs[0] === 'apis' ? 3 : segs.length;
  const out = segs.slice(0, prefix);
  let rest = segs.slice(prefix);
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    out.push('namespaces', '{ns}');
    rest = rest.slice(2);
  }
  const [resource, name, ...sub] = rest;
  if (resource !== undefined) out.push(resource);
  if (name !== undefined) out.push(resource === 'namespaces' ? '{ns}' : '{name}', ...sub);
  const v = verb === 'get' && resource !== undefined && name === undefined ? 'list' : verb;
  return `${v} /${out.join('/')}`;
}

/** Who sent a request: its User-Agent up to the first `/` (`ClusterVersionOperator`, `machine-config-daemon`). */
function clientOf(req: IncomingMessage): string {
  const ua = req.headers['user-agent'] ?? '';
  return `(${ua.split('/')[0]?.trim() || 'unknown'})`;
}

/** mulberry32 */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The headers and TLS options of one upstream request: the admin token swapped for the kubeconfig's credentials. */
export function upstreamAuth(
  u: ProxyUpstream | undefined,
  headers: IncomingHttpHeaders,
  host: string,
): { headers: IncomingHttpHeaders; ca?: string; cert?: string; key?: string; rejectUnauthorized?: boolean } {
  const out: IncomingHttpHeaders = { ...headers, host };
  if (u === undefined) return { headers: out };
  const tls = { ...(u.ca !== undefined ? { ca: u.ca } : {}), rejectUnauthorized: u.insecureSkipTlsVerify !== true };
  if (headers.authorization !== `Bearer ${u.adminToken}`) return { headers: out, ...tls };
  delete out.authorization;
  if (u.admin.authorization !== undefined) out.authorization = u.admin.authorization;
  return {
    headers: out,
    ...tls,
    ...(u.admin.cert !== undefined && u.admin.key !== undefined ? { cert: u.admin.cert, key: u.admin.key } : {}),
  };
}

/** Starts the proxy on 127.0.0.1. */
export async function startApiProxy(opts: ApiProxyOptions): Promise<ApiProxy> {
  const target = new URL(opts.target);
  let rate = opts.errorRate ?? 0;
  const rand = prng(opts.seed ?? 1);
  const counts: ApiCounts = { total: 0, byVerb: {}, evictions: 0, pdbRefusals: 0, injectedErrors: 0, byRoute: {} };
  let update: Required<ApiCounts>['update'] | undefined;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const verb = verbOf(req, url);
    counts.total++;
    counts.byVerb[verb] = (counts.byVerb[verb] ?? 0) + 1;
    const route = `${routeOf(verb, url.pathname)} ${clientOf(req)}`;
    const byRoute = (counts.byRoute ??= {});
    byRoute[route] = (byRoute[route] ?? 0) + 1;
    if (update !== undefined) {
      update.total++;
      update.byVerb[verb] = (update.byVerb[verb] ?? 0) + 1;
      update.byRoute[route] = (update.byRoute[route] ?? 0) + 1;
    }
    const eviction = req.method === 'POST' && /\/pods\/[^/]+\/eviction$/.test(url.pathname);
    if (eviction) counts.evictions++;
    if (verb !== 'watch' && rate > 0 && rand() < rate) {
      counts.injectedErrors++;
      const body = JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `keelson rehearse: injected API error (api-errors=${rate})`,
        reason: 'InternalError',
        code: 500,
      });
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const upstream = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: `${target.pathname.replace(/\/$/, '')}${req.url ?? '/'}`,
        ...upstreamAuth(opts.upstream, req.headers, target.host),
      },
      (up) => {
        if (eviction && up.statusCode === 429) counts.pdbRefusals++;
        res.writeHead(up.statusCode ?? 502, up.headers);
        // watches: the client waits for the response head before the first event arrives
        res.flushHeaders();
        up.pipe(res);
      },
    );
    upstream.on('error', (e) => {
      if (!res.headersSent) {
        const body = JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `proxy: ${e.message}`,
          reason: 'ServiceUnavailable',
          code: 503,
        });
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(body);
      } else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({
      ...counts,
      byVerb: { ...counts.byVerb },
      byRoute: { ...counts.byRoute },
      ...(update !== undefined
        ? { update: { total: update.total, byVerb: { ...update.byVerb }, byRoute: { ...update.byRoute } } }
        : {}),
    }),
    markUpdate: () => {
      update = { total: 0, byVerb: {}, byRoute: {} };
    },
    setErrorRate: (r) => {
      rate = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
