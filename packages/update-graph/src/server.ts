/**
 * `createGraphServer`: an OpenShift Update Service (graph-builder + policy-engine) over node:http,
 * optionally also serving the Fedora CoreOS dialect.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GraphDocument } from './graph.js';
import { buildGraph, filterGraph, readReleasesDir, type GraphData, type ReleaseInput } from './graphdata.js';
import { applyFcosPolicy, computeWariness } from './fcos.js';

/** Options of {@link createGraphServer}. */
export interface GraphServerOptions {
  /** Release metadata: a directory of release-metadata JSON files, a list, or an already built graph-builder document. */
  readonly releases?: string | readonly ReleaseInput[] | GraphDocument;
  /** cincinnati-graph-data directory (or parsed data). */
  readonly graphData?: string | GraphData;
  /** Path prefix, e.g. `/api/upgrades_info` (default ''). */
  readonly prefix?: string;
  /** Mandatory query parameters (default `['channel']`). */
  readonly mandatoryParams?: readonly string[];
  /** `policy-engine` (default: channel/arch filtering) or `graph-builder` (the unfiltered graph, no parameters). */
  readonly mode?: 'policy-engine' | 'graph-builder';
  /** Default architecture when `arch` is absent (default `amd64`). */
  readonly defaultArch?: string;
  /** Fedora CoreOS graphs per stream and basearch, served at `/v1/graph?basearch&stream`. */
  readonly fcos?: {
    readonly streams: Readonly<Record<string, Readonly<Record<string, GraphDocument>>>>;
    readonly now?: () => number;
  };
}

/** A running or startable graph server. */
export interface GraphServer {
  /** The node:http server. */
  readonly server: Server;
  /** The unfiltered graph-builder graph. */
  readonly graph: GraphDocument;
  /** Warnings from graph-data parsing. */
  readonly warnings: readonly string[];
  /** Starts listening; resolves to the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const CHANNEL_RE = /^[0-9a-z\-.]+$/;
const ARCH_RE = /^[0-9a-z]+$/;
const V1 = 'application/vnd.redhat.cincinnati.v1+json';

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json', head = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(text),
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD',
  });
  res.end(head ? undefined : text);
}

function openapi(prefix: string): unknown {
  return {
    openapi: '3.0.0',
    info: { title: 'Cincinnati', version: '0.1.0', description: 'Update graph (keelson implementation)' },
    paths: {
      [`${prefix}/v1/graph`]: {
        get: {
          parameters: [
            { name: 'channel', in: 'query', required: true, schema: { type: 'string', pattern: CHANNEL_RE.source } },
            { name: 'arch', in: 'query', required: false, schema: { type: 'string', pattern: ARCH_RE.source } },
          ],
          responses: {
            '200': { description: 'the update graph' },
            '400': { description: 'missing or invalid parameters' },
            '406': { description: 'unacceptable Accept header' },
          },
        },
      },
    },
  };
}

/** Creates the server (not yet listening). Building the graph happens synchronously here. */
export function createGraphServer(options: GraphServerOptions): GraphServer {
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const mandatory = options.mandatoryParams ?? ['channel'];
  const defaultArch = options.defaultArch ?? 'amd64';
  let graph: GraphDocument = { version: 1, nodes: [], edges: [], conditionalEdges: [] };
  let warnings: string[] = [];
  if (options.releases !== undefined) {
    const releases = typeof options.releases === 'string' ? readReleasesDir(options.releases) : options.releases;
    const built = buildGraph({
      releases,
      ...(options.graphData !== undefined ? { graphData: options.graphData } : {}),
    });
    graph = built.graph;
    warnings = built.warnings;
  }
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const head = req.method === 'HEAD';
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD' });
      res.end();
      return;
    }
    if (req.method !== 'GET' && !head) {
      send(res, 405, { kind: 'method_not_allowed', value: `method ${req.method ?? ''} not allowed` });
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      send(res, 400, { kind: 'invalid_params', value: 'invalid request URL' });
      return;
    }
    const path = url.pathname;
    if (options.fcos && path === '/v1/graph' && (url.searchParams.has('stream') || url.searchParams.has('basearch'))) {
      serveFcos(res, url, options.fcos, head);
      return;
    }
    if (path === `${prefix}/openapi` || path === `${prefix}/v1/openapi`) {
      send(res, 200, openapi(prefix), 'application/json', head);
      return;
    }
    if (path !== `${prefix}/graph` && path !== `${prefix}/v1/graph`) {
      send(res, 404, { kind: 'does_not_exist', value: `no such path: ${path}` });
      return;
    }
    const accept = req.headers['accept'];
    const type = responseType(accept);
    if (type === undefined) {
      send(res, 406, {
        kind: 'invalid_content_type',
        value: `invalid content type: ${accept ?? ''}; accepted: application/json, ${V1}`,
      });
      return;
    }
    if (options.mode === 'graph-builder') send(res, 200, graph, type, head);
    else serveFiltered(res, url, graph, type, head, { mandatory, defaultArch });
  };
  const server = createServer(handler);
  return serverOf(server, graph, warnings);
}

type FcosGraphs = NonNullable<GraphServerOptions['fcos']>;

/** The media type answered for an `Accept` header (Cincinnati's default when absent); undefined when refused. */
function responseType(accept: string | undefined): string | undefined {
  if (accept === undefined) return V1;
  if (accept === 'application/json' || accept === '*' || accept === '*/*' || accept === 'application/*')
    return 'application/json';
  if (accept === V1) return V1;
  return undefined;
}

/** The FCOS-style `/v1/graph?stream=&basearch=` answer with the rollout wariness of the client applied. */
function serveFcos(res: ServerResponse, url: URL, fcos: FcosGraphs, head: boolean): void {
  const stream = url.searchParams.get('stream');
  const basearch = url.searchParams.get('basearch');
  const doc = stream !== null && basearch !== null ? fcos.streams[stream]?.[basearch] : undefined;
  if (!doc) {
    send(res, 400, {
      kind: 'invalid_scope',
      value: `unknown or missing stream/basearch: stream=${stream ?? ''} basearch=${basearch ?? ''}`,
    });
    return;
  }
  const wariness = computeWariness(
    url.searchParams.get('rollout_wariness') ?? undefined,
    url.searchParams.get('node_uuid') ?? undefined,
  );
  const now = Math.floor((fcos.now ?? Date.now)() / 1000);
  send(res, 200, applyFcosPolicy(doc, wariness, now), 'application/json', head);
}

/** The policy-engine answer: mandatory and well-formed client parameters, the graph filtered by channel and arch. */
function serveFiltered(
  res: ServerResponse,
  url: URL,
  graph: GraphDocument,
  type: string,
  head: boolean,
  params: { mandatory: readonly string[]; defaultArch: string },
): void {
  const { mandatory, defaultArch } = params;
  const missing = mandatory.filter((p) => !url.searchParams.get(p));
  if (missing.length > 0) {
    send(res, 400, { kind: 'missing_params', value: `mandatory client parameters missing: ${missing.join(', ')}` });
    return;
  }
  const channel = url.searchParams.get('channel') ?? undefined;
  if (channel !== undefined && !CHANNEL_RE.test(channel)) {
    send(res, 400, {
      kind: 'invalid_params',
      value: `invalid client parameters: channel '${channel}' does not match regex '^[0-9a-z\\-\\.]+$'`,
    });
    return;
  }
  const arch = url.searchParams.get('arch') ?? defaultArch;
  if (!ARCH_RE.test(arch)) {
    send(res, 400, {
      kind: 'invalid_params',
      value: `invalid client parameters: arch '${arch}' does not match regex '^[0-9a-z]+$'`,
    });
    return;
  }
  send(res, 200, filterGraph(graph, channel, arch), type, head);
}

function serverOf(server: Server, graph: GraphDocument, warnings: string[]): GraphServer {
  return {
    server,
    graph,
    warnings,
    listen: (port = 0, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const a = server.address() as AddressInfo;
          resolve(`http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
