/**
 * `UpdateGraphClient`: fetches an update graph the way the CVO does (OpenShift dialect) or the way
 * Zincati does (Fedora CoreOS dialect), with custom CA, HTTP proxy, timeout, abort and size limit.
 */
import type { Dispatcher } from 'undici';
import { GraphValidationError, UpdateRetrievalError } from './errors.js';
import { Graph } from './graph.js';
import { createDispatcher, httpGet, HttpFailure, type HttpTransportOptions } from './http.js';
import { formatSemver, parseSemver } from './semver.js';
import { availableUpdates, type AvailableUpdates } from './updates.js';
import type { ConditionRegistry } from './risk.js';
import { must } from './util.js';

/** Client construction options. */
export interface UpdateGraphClientOptions extends HttpTransportOptions {
  /** Overall request deadline in ms (CVO: 60 minutes; default here 60 s). */
  readonly timeoutMs?: number;
  /** Maximum accepted body size in bytes (default 16 MiB). */
  readonly maxBytes?: number;
  /** User-Agent header (not sent when undefined, like the CVO). */
  readonly userAgent?: string;
}

/** Parameters of {@link UpdateGraphClient.fetch}. */
export interface FetchUpdatesParams {
  /** Update service URL, e.g. `https://api.openshift.com/api/upgrades_info/v1/graph`. */
  readonly upstream: string | URL;
  /** Channel, e.g. `stable-4.18`. */
  readonly channel: string;
  /** Current cluster version (SemVer). */
  readonly version: string;
  /** Desired architecture (`amd64`, `arm64`, ..., or `Multi`/`multi`). Default `amd64`. */
  readonly arch?: string;
  /** Architecture the cluster currently runs (default: same as `arch`). */
  readonly currentArch?: string;
  /** Cluster ID (UUID), sent as `id`. */
  readonly id?: string;
  /** Registry used to prune matching rules. */
  readonly registry?: ConditionRegistry;
  /** Abort the request. */
  readonly signal?: AbortSignal;
}

/** Result of {@link UpdateGraphClient.fetch}. */
export interface FetchUpdatesResult extends AvailableUpdates {
  /** The exact URL requested. */
  url: string;
  /** The graph received. */
  graph: Graph;
}

/** Parameters of {@link UpdateGraphClient.fetchFcos} (Zincati's request). */
export interface FcosGraphParams {
  /** Base URL, e.g. `https://updates.coreos.fedoraproject.org` (`/v1/graph` is appended). */
  readonly base: string | URL;
  readonly basearch: string;
  readonly stream: string;
  readonly osVersion?: string;
  readonly osChecksum?: string;
  readonly group?: string;
  readonly nodeUuid?: string;
  readonly platform?: string;
  /** 0.0–1.0, sent with six decimals. */
  readonly rolloutWariness?: number;
  /** Booted from an OCI image (sends `oci=true`). */
  readonly oci?: boolean;
  readonly signal?: AbortSignal;
}

const UUID_RE = /^(urn:uuid:)?\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?$/;

/** Go's url.QueryEscape. */
function queryEscape(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Adds parameters to a URL's existing query and encodes the whole query sorted by key
 * (Go `url.Values.Encode`): the CVO sends `arch`, `channel`, `id`, `version`.
 */
export function buildGraphUrl(upstream: URL, params: readonly (readonly [string, string])[]): URL {
  const values = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(upstream.search)) {
    let l = values.get(k);
    if (!l) values.set(k, (l = []));
    l.push(v);
  }
  for (const [k, v] of params) {
    let l = values.get(k);
    if (!l) values.set(k, (l = []));
    l.push(v);
  }
  const keys = [...values.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const q = keys
    .flatMap((k) => must(values.get(k), 'values entry').map((v) => `${queryEscape(k)}=${queryEscape(v)}`))
    .join('&');
  const u = new URL(upstream.href);
  u.search = q;
  return u;
}

/** Client of the Cincinnati graph API. Reuse one instance: it keeps a connection pool. */
export class UpdateGraphClient {
  private readonly dispatcher: Dispatcher;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly userAgent: string | undefined;

  constructor(options: UpdateGraphClientOptions = {}) {
    this.dispatcher = createDispatcher(options);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxBytes = options.maxBytes ?? 16 << 20;
    this.userAgent = options.userAgent;
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /**
   * Builds the CVO request URL after validating the inputs (NoChannel, NoCurrentVersion,
   * InvalidCurrentVersion, InvalidURL, InvalidRequest).
   */
  requestUrl(params: Pick<FetchUpdatesParams, 'upstream' | 'channel' | 'version' | 'arch' | 'id'>): URL {
    const up = typeof params.upstream === 'string' ? params.upstream : params.upstream.href;
    if (up.length === 0)
      throw new UpdateRetrievalError('InvalidURL', 'No updateService server has been set to retrieve updates.', {
        hint: 'pass --upstream https://…/graph',
      });
    let url: URL;
    try {
      url = new URL(up);
    } catch (err) {
      throw new UpdateRetrievalError('InvalidURL', `failed to parse update service URL: ${JSON.stringify(up)}`, {
        cause: err,
        hint: 'use an absolute http(s) URL',
      });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UpdateRetrievalError(
        'InvalidURL',
        `unsupported protocol scheme ${JSON.stringify(url.protocol.replace(/:$/, ''))}`,
        { hint: 'use an http:// or https:// URL' },
      );
    }
    if (params.id !== undefined && !UUID_RE.test(params.id)) {
      throw new UpdateRetrievalError(
        'InvalidRequest',
        `invalid cluster ID: ${JSON.stringify(params.id)} is not a UUID`,
      );
    }
    if (!params.version)
      throw new UpdateRetrievalError(
        'NoCurrentVersion',
        'The cluster version does not have a semantic version assigned and cannot calculate valid upgrades.',
      );
    if (!params.channel)
      throw new UpdateRetrievalError('NoChannel', 'The update channel has not been configured.', {
        hint: 'pass --channel, e.g. stable-4.18',
      });
    let version: string;
    try {
      version = formatSemver(parseSemver(params.version));
    } catch (err) {
      throw new UpdateRetrievalError(
        'InvalidCurrentVersion',
        `The current cluster version ${JSON.stringify(params.version)} is not a valid semantic version and cannot be used to calculate upgrades: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const arch = params.arch ?? 'amd64';
    const query: [string, string][] = [
      ['arch', arch === 'Multi' ? 'multi' : arch],
      ['channel', params.channel],
    ];
    if (params.id !== undefined) query.push(['id', params.id]);
    query.push(['version', version]);
    return buildGraphUrl(url, query);
  }

  /** Downloads and validates a graph from a fully built URL. */
  async fetchGraphUrl(
    url: URL,
    options: { signal?: AbortSignal | undefined; dialect?: 'openshift' | 'fcos' } = {},
  ): Promise<Graph> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.userAgent !== undefined) headers['user-agent'] = this.userAgent;
    let res;
    try {
      res = await httpGet(url, {
        dispatcher: this.dispatcher,
        headers,
        timeoutMs: this.timeoutMs,
        maxBytes: this.maxBytes,
        signal: options.signal,
      });
    } catch (err) {
      if (err instanceof HttpFailure) {
        const reason = err.phase === 'request' ? 'RemoteFailed' : 'ResponseFailed';
        const hint =
          err.kind === 'too-large'
            ? 'the update service sent an oversized response; check the upstream URL or raise maxBytes'
            : err.kind === 'timeout'
              ? 'the update service did not answer in time; check connectivity, proxy and timeout'
              : 'check the upstream URL, proxy and CA bundle';
        throw new UpdateRetrievalError(reason, `Get ${JSON.stringify(url.href)}: ${err.message}`, { cause: err, hint });
      }
      throw err;
    }
    if (res.status !== 200) {
      throw new UpdateRetrievalError('ResponseFailed', `unexpected HTTP status: ${res.statusLine}`, {
        hint: 'check the channel and upstream URL; the service refused the request',
      });
    }
    try {
      return Graph.parse(res.body.toString('utf8'), { dialect: options.dialect ?? 'openshift' });
    } catch (err) {
      if (err instanceof GraphValidationError)
        throw new UpdateRetrievalError('ResponseInvalid', err.message, {
          cause: err,
          hint: 'the update service returned an invalid graph',
        });
      throw err;
    }
  }

  /** Fetches the graph for a channel/arch/version (the CVO's request) without interpreting it. */
  async fetchGraph(params: FetchUpdatesParams): Promise<{ url: string; graph: Graph }> {
    const url = this.requestUrl(params);
    const graph = await this.fetchGraphUrl(url, { signal: params.signal });
    return { url: url.href, graph };
  }

  /**
   * The CVO's GetUpdates: request, download, validate, then {@link availableUpdates}.
   * Throws {@link UpdateRetrievalError} with the CVO reason.
   */
  async fetch(params: FetchUpdatesParams): Promise<FetchUpdatesResult> {
    const { url, graph } = await this.fetchGraph(params);
    const arch = params.arch ?? 'amd64';
    const result = availableUpdates(graph, params.version, {
      channel: params.channel,
      desiredArch: arch === 'multi' ? 'Multi' : arch,
      currentArch: (params.currentArch ?? arch) === 'multi' ? 'Multi' : (params.currentArch ?? arch),
      ...(params.registry ? { registry: params.registry } : {}),
    });
    return { ...result, url, graph };
  }

  /** Fetches a Fedora CoreOS graph (`{base}/v1/graph?basearch&stream&…`) like Zincati. */
  async fetchFcos(params: FcosGraphParams): Promise<{ url: string; graph: Graph }> {
    let base: URL;
    try {
      base = new URL(typeof params.base === 'string' ? params.base : params.base.href);
    } catch (err) {
      throw new UpdateRetrievalError(
        'InvalidURL',
        `failed to parse update service URL: ${JSON.stringify(String(params.base))}`,
        { cause: err },
      );
    }
    if (!params.basearch || !params.stream)
      throw new UpdateRetrievalError('InvalidRequest', 'basearch and stream are required');
    const path = base.pathname.endsWith('/') ? `${base.pathname}v1/graph` : `${base.pathname}/v1/graph`;
    const u = new URL(base.href);
    u.pathname = path;
    const q: [string, string][] = [
      ['basearch', params.basearch],
      ['stream', params.stream],
    ];
    if (params.osVersion !== undefined) q.push(['os_version', params.osVersion]);
    if (params.osChecksum !== undefined) q.push(['os_checksum', params.osChecksum]);
    q.push(['group', params.group ?? 'default']);
    if (params.nodeUuid !== undefined) q.push(['node_uuid', params.nodeUuid]);
    if (params.platform !== undefined) q.push(['platform', params.platform]);
    if (params.rolloutWariness !== undefined) {
      if (!(params.rolloutWariness >= 0 && params.rolloutWariness <= 1))
        throw new UpdateRetrievalError(
          'InvalidRequest',
          `rollout_wariness ${params.rolloutWariness} is outside 0.0–1.0`,
        );
      q.push(['rollout_wariness', params.rolloutWariness.toFixed(6)]);
    }
    if (params.oci) q.push(['oci', 'true']);
    const url = buildGraphUrl(u, q);
    const graph = await this.fetchGraphUrl(url, { signal: params.signal, dialect: 'fcos' });
    return { url: url.href, graph };
  }
}
