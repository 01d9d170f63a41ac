import * as http from 'node:http';
import * as https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, KubeError, type KubeStatus } from './errors.js';
import type { ResourceDescriptor } from './resources.js';
import type { KubeList, KubeObject, WatchEvent } from './types.js';
import { WatchLineSplitter } from './watch-lines.js';

/** Query parameters of a request; `undefined` values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** Options of {@link KubeClient.request}. */
export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Content type of `body` (default `application/json`). */
  contentType?: string;
  signal?: AbortSignal;
}

/** Options of list calls. */
export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  signal?: AbortSignal;
}

/** Options of watch calls. */
export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Ask the server to end the watch after this many seconds. */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/** Patch flavours understood by the API server. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** Options of patch calls. */
export interface PatchOptions {
  namespace?: string;
  /** Patch flavour (default `merge`). */
  type?: PatchType;
  /** Patch the `status` subresource. */
  status?: boolean;
  /** Field manager (required by the server for `apply`). */
  fieldManager?: string;
  /** Take ownership of conflicting fields (`apply` only). */
  force?: boolean;
  signal?: AbortSignal;
}

/** Options of delete calls. */
export interface DeleteOptions {
  namespace?: string;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Only delete if the object still has this resourceVersion. */
  resourceVersion?: string;
  signal?: AbortSignal;
}

/** Options of {@link KubeClient}. */
export interface KubeClientOptions {
  /** `User-Agent` header (default `keelson-kube/0.1`). */
  userAgent?: string;
  /** Socket inactivity limit for non-watch requests (default 60 s); watches rely on their server-side timeout. */
  requestTimeoutMs?: number;
}

/** Longest watch event line accepted (a larger one means a broken or hostile server). */
export const MAX_WATCH_LINE_BYTES = 64 * 1024 * 1024;

interface Prepared {
  base: URL;
  headers: Record<string, string>;
  agent: http.Agent;
  mod: typeof http | typeof https;
}

/**
 * A small REST client for Kubernetes over node:http/https. Authentication and TLS come from a client-node
 * `KubeConfig` (token, client certificate, CA, `insecure-skip-tls-verify`); connections are kept alive.
 * Failed requests throw {@link KubeApiError} carrying the server's `Status`.
 */
export class KubeClient {
  /** The kubeconfig this client was built from. */
  readonly kubeConfig: KubeConfig;
  private prepared: Promise<Prepared> | undefined;
  private readonly userAgent: string;
  private readonly requestTimeoutMs: number;

  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    this.kubeConfig = kubeConfig;
    this.userAgent = options.userAgent ?? 'keelson-kube/0.1';
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  /** Build a client from kubeconfig YAML text. */
  static fromKubeconfigString(yaml: string, options: KubeClientOptions = {}): KubeClient {
    const kc = new KubeConfig();
    try {
      kc.loadFromString(yaml);
    } catch (err) {
      throw new KubeError(
        'KUBE_CONFIG',
        `cannot parse kubeconfig: ${(err as Error).message}; pass a valid kubeconfig YAML document`,
        { cause: err },
      );
    }
    if (!kc.getCurrentCluster()) {
      throw new KubeError(
        'KUBE_CONFIG',
        'kubeconfig has no current-context with a cluster: set current-context to a context that names a cluster with a server URL',
      );
    }
    return new KubeClient(kc, options);
  }

  /**
   * Build a client from a kubeconfig file (`--kubeconfig`), or from the default kubeconfig when `path` is undefined.
   * @throws KubeError `KUBE_CONFIG` when the file cannot be read or parsed, or names no cluster.
   */
  static fromKubeconfigFile(path: string | undefined, options: KubeClientOptions = {}): KubeClient {
    const kc = new KubeConfig();
    const what = path ?? 'the default kubeconfig (KUBECONFIG, ~/.kube/config or in-cluster)';
    try {
      if (path !== undefined) kc.loadFromFile(path);
      else kc.loadFromDefault();
    } catch (err) {
      throw new KubeError(
        'KUBE_CONFIG',
        `cannot load kubeconfig ${what}: ${(err as Error).message}; pass --kubeconfig FILE or set KUBECONFIG`,
        { cause: err },
      );
    }
    if (!kc.getCurrentCluster()) {
      throw new KubeError(
        'KUBE_CONFIG',
        `kubeconfig ${what} has no current-context with a cluster: set current-context to a context that names a cluster with a server URL`,
      );
    }
    return new KubeClient(kc, options);
  }

  /** Build a client from the default kubeconfig (`KUBECONFIG`, `~/.kube/config` or in-cluster). */
  static fromDefault(options: KubeClientOptions = {}): KubeClient {
    const kc = new KubeConfig();
    kc.loadFromDefault();
    return new KubeClient(kc, options);
  }

  private prepare(): Promise<Prepared> {
    this.prepared ??= (async () => {
      const cluster = this.kubeConfig.getCurrentCluster();
      if (!cluster) {
        throw new KubeError(
          'KUBE_CONFIG',
          'kubeconfig has no current cluster: set current-context to a context whose cluster has a server URL',
        );
      }
      let base: URL;
      try {
        base = new URL(cluster.server);
      } catch (err) {
        throw new KubeError(
          'KUBE_CONFIG',
          `kubeconfig cluster "${cluster.name}" has an invalid server URL ${JSON.stringify(cluster.server)}`,
          { cause: err },
        );
      }
      if (base.protocol !== 'http:' && base.protocol !== 'https:') {
        throw new KubeError(
          'KUBE_CONFIG',
          `kubeconfig cluster "${cluster.name}" server must be http(s), got ${base.protocol}`,
        );
      }
      const opts: https.RequestOptions = {};
      const isHttps = base.protocol === 'https:';
      // client-node refuses plain-HTTP clusters unless skipTLSVerify is set; there is no TLS to verify on http:,
      // so credentials are computed from a copy that says so (loopback sandboxes serve plain HTTP).
      const kc = isHttps ? this.kubeConfig : plainHttpCopy(this.kubeConfig, cluster.name);
      await kc.applyToHTTPSOptions(opts);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') headers[k] = v;
      headers['User-Agent'] = this.userAgent;
      headers['Accept'] = 'application/json';
      const agentOpts: https.AgentOptions = { keepAlive: true, maxSockets: 64 };
      if (isHttps) {
        if (opts.ca !== undefined) agentOpts.ca = opts.ca;
        if (opts.cert !== undefined) agentOpts.cert = opts.cert;
        if (opts.key !== undefined) agentOpts.key = opts.key;
        if (opts.rejectUnauthorized !== undefined) agentOpts.rejectUnauthorized = opts.rejectUnauthorized;
        if (opts.servername !== undefined) agentOpts.servername = opts.servername;
      }
      const agent = isHttps ? new https.Agent(agentOpts) : new http.Agent({ keepAlive: true, maxSockets: 64 });
      return { base, headers, agent, mod: isHttps ? https : http };
    })();
    return this.prepared;
  }

  private url(p: Prepared, path: string, query?: Query): URL {
    const u = new URL(p.base.href.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u;
  }

  private open(
    method: string,
    path: string,
    options: RequestOptions,
    timeoutMs?: number,
  ): Promise<http.IncomingMessage> {
    return this.prepare().then(
      (p) =>
        new Promise<http.IncomingMessage>((resolve, reject) => {
          const u = this.url(p, path, options.query);
          const headers: Record<string, string> = { ...p.headers };
          let payload: Buffer | undefined;
          if (options.body !== undefined) {
            payload = Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
            headers['Content-Type'] = options.contentType ?? 'application/json';
            headers['Content-Length'] = String(payload.length);
          }
          const reqOpts: http.RequestOptions = { method, headers, agent: p.agent };
          if (options.signal !== undefined) reqOpts.signal = options.signal;
          const req = p.mod.request(u, reqOpts, resolve);
          if (timeoutMs !== undefined && timeoutMs > 0) {
            req.setTimeout(timeoutMs, () => {
              req.destroy(new Error(`no response within ${timeoutMs} ms`));
            });
          }
          req.on('error', (err) => {
            if (options.signal?.aborted)
              reject(new KubeError('KUBE_ABORTED', `${method} ${path} aborted`, { cause: err }));
            else
              reject(
                new KubeError(
                  'KUBE_NETWORK',
                  `${method} ${path}: cannot reach the API server at ${p.base.origin}: ${err.message}`,
                  { cause: err },
                ),
              );
          });
          req.end(payload);
        }),
    );
  }

  /** Perform a request and decode the JSON answer; non-2xx answers throw {@link KubeApiError}. */
  async request<R>(method: string, path: string, options: RequestOptions = {}): Promise<R> {
    const res = await this.open(method, path, options, this.requestTimeoutMs);
    const text = await readBody(res, method, path);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw new KubeApiError(method, path, status, parseStatus(text));
    if (text.length === 0) return undefined as R;
    try {
      return JSON.parse(text) as R;
    } catch (err) {
      throw new KubeError(
        'KUBE_BAD_RESPONSE',
        `${method} ${path}: the server answered ${status} with a body that is not JSON`,
        { cause: err },
      );
    }
  }

  /**
   * Open a watch on `path` and call `onEvent` for each event line. Resolves when the server ends the stream;
   * rejects with {@link KubeApiError} (e.g. 410 Gone) when the server refuses the watch, or with a
   * `KUBE_NETWORK` error when the connection breaks.
   */
  async watch<T extends KubeObject>(
    path: string,
    query: Query,
    onEvent: (ev: WatchEvent<T>) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const opts: RequestOptions = { query: { ...query, watch: 'true' } };
    if (signal !== undefined) opts.signal = signal;
    const res = await this.open('GET', path, opts);
    const status = res.statusCode ?? 0;
    if (status !== 200) {
      const text = await readBody(res, 'GET', path);
      throw new KubeApiError('GET', path, status, parseStatus(text));
    }
    res.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      const lines = new WatchLineSplitter(MAX_WATCH_LINE_BYTES);
      let failed = false;
      const fail = (err: Error): void => {
        if (failed) return;
        failed = true;
        res.destroy();
        reject(err);
      };
      res.on('data', (chunk: string) => {
        if (failed) return;
        for (const line of lines.push(chunk)) {
          const err = deliverWatchLine(path, line, onEvent);
          if (err !== undefined) {
            fail(err);
            return;
          }
        }
        if (lines.overflowed) {
          fail(
            new KubeError(
              'KUBE_BAD_RESPONSE',
              `watch ${path}: event line exceeds ${MAX_WATCH_LINE_BYTES} bytes; refusing it`,
            ),
          );
        }
      });
      res.on('end', () => {
        if (!failed) resolve();
      });
      res.on('aborted', () => {
        fail(new KubeError('KUBE_NETWORK', `watch ${path}: connection closed by the server mid-stream`));
      });
      res.on('error', (err) => {
        if (signal?.aborted) {
          failed = true;
          resolve();
        } else fail(new KubeError('KUBE_NETWORK', `watch ${path}: ${err.message}`, { cause: err }));
      });
      res.on('close', () => {
        if (!failed && !res.complete) {
          if (signal?.aborted) {
            failed = true;
            resolve();
          } else fail(new KubeError('KUBE_NETWORK', `watch ${path}: connection closed before the stream ended`));
        }
      });
    });
  }

  /** Typed access to one kind. */
  resource<T extends KubeObject>(d: ResourceDescriptor<T>): ResourceClient<T> {
    return new ResourceClient<T>(this, d);
  }

  /** Close kept-alive connections. */
  async close(): Promise<void> {
    if (this.prepared === undefined) return;
    try {
      (await this.prepared).agent.destroy();
    } catch {
      // preparation failed: nothing to close
    }
    this.prepared = undefined;
  }
}

function plainHttpCopy(kc: KubeConfig, clusterName: string): KubeConfig {
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === clusterName ? { ...c, skipTLSVerify: true } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return copy;
}

function readBody(res: http.IncomingMessage, method: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', (err) => {
      reject(new KubeError('KUBE_NETWORK', `${method} ${path}: ${err.message}`, { cause: err }));
    });
  });
}

function parseStatus(text: string): KubeStatus | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? v : undefined;
  } catch {
    return text.length > 0 ? { message: text.slice(0, 500) } : undefined;
  }
}

/** URL path of a collection (`namespace` only for namespaced kinds). */
export function collectionPath(d: ResourceDescriptor, namespace?: string): string {
  const prefix = d.group === '' ? `/api/${d.version}` : `/apis/${d.group}/${d.version}`;
  if (d.namespaced && namespace !== undefined && namespace !== '')
    return `${prefix}/namespaces/${encodeURIComponent(namespace)}/${d.plural}`;
  return `${prefix}/${d.plural}`;
}

/** URL path of one object. */
export function objectPath(d: ResourceDescriptor, name: string, namespace?: string): string {
  if (name === '') throw new KubeError('KUBE_INVALID_ARGUMENT', `${d.kind}: object name is empty; set metadata.name`);
  if (d.namespaced && (namespace === undefined || namespace === '')) {
    throw new KubeError(
      'KUBE_INVALID_ARGUMENT',
      `${d.kind} "${name}" is namespaced: pass a namespace (or set metadata.namespace)`,
    );
  }
  return `${collectionPath(d, namespace)}/${encodeURIComponent(name)}`;
}

function withSignal(o: RequestOptions, signal: AbortSignal | undefined): RequestOptions {
  if (signal !== undefined) o.signal = signal;
  return o;
}

/** Typed CRUD, patch and watch for one kind (see {@link KubeClient.resource}). */
export class ResourceClient<T extends KubeObject> {
  /** The client used for requests. */
  readonly client: KubeClient;
  /** The kind served. */
  readonly descriptor: ResourceDescriptor<T>;
  constructor(client: KubeClient, descriptor: ResourceDescriptor<T>) {
    this.client = client;
    this.descriptor = descriptor;
  }

  /** GET one object. */
  get(name: string, namespace?: string, signal?: AbortSignal): Promise<T> {
    return this.client.request<T>('GET', objectPath(this.descriptor, name, namespace), withSignal({}, signal));
  }

  /** LIST objects (one page; see {@link ResourceClient.listAll}). */
  list(opts: ListOptions = {}): Promise<KubeList<T>> {
    return this.client.request<KubeList<T>>(
      'GET',
      collectionPath(this.descriptor, opts.namespace),
      withSignal(
        {
          query: {
            labelSelector: opts.labelSelector,
            fieldSelector: opts.fieldSelector,
            limit: opts.limit,
            continue: opts.continue,
            resourceVersion: opts.resourceVersion,
          },
        },
        opts.signal,
      ),
    );
  }

  /** LIST every page; returns all items and the resourceVersion of the list. */
  async listAll(opts: Omit<ListOptions, 'continue'> = {}): Promise<KubeList<T>> {
    const items: T[] = [];
    let cont: string | undefined;
    let last: KubeList<T>;
    do {
      const o: ListOptions = { ...opts };
      if (cont !== undefined) o.continue = cont;
      last = await this.list(o);
      items.push(...last.items);
      cont = last.metadata.continue || undefined;
    } while (cont !== undefined);
    return { ...last, items };
  }

  /** POST a new object (namespace from `metadata.namespace`). */
  create(obj: T, signal?: AbortSignal): Promise<T> {
    const body = { apiVersion: apiVersion(this.descriptor), kind: this.descriptor.kind, ...obj };
    return this.client.request<T>(
      'POST',
      collectionPath(this.descriptor, nsOf(this.descriptor, obj)),
      withSignal({ body }, signal),
    );
  }

  /** PUT an object (optimistic concurrency through `metadata.resourceVersion`). */
  update(obj: T, signal?: AbortSignal): Promise<T> {
    const body = { apiVersion: apiVersion(this.descriptor), kind: this.descriptor.kind, ...obj };
    return this.client.request<T>(
      'PUT',
      objectPath(this.descriptor, obj.metadata.name ?? '', nsOf(this.descriptor, obj)),
      withSignal({ body }, signal),
    );
  }

  /** PUT the `status` subresource. */
  updateStatus(obj: T, signal?: AbortSignal): Promise<T> {
    const body = { apiVersion: apiVersion(this.descriptor), kind: this.descriptor.kind, ...obj };
    return this.client.request<T>(
      'PUT',
      objectPath(this.descriptor, obj.metadata.name ?? '', nsOf(this.descriptor, obj)) + '/status',
      withSignal({ body }, signal),
    );
  }

  /** PATCH an object (merge patch by default). */
  patch(name: string, patch: unknown, opts: PatchOptions = {}): Promise<T> {
    const type = opts.type ?? 'merge';
    if (type === 'apply' && opts.fieldManager === undefined) {
      throw new KubeError(
        'KUBE_INVALID_ARGUMENT',
        `${this.descriptor.kind} "${name}": server-side apply needs opts.fieldManager`,
      );
    }
    const path = objectPath(this.descriptor, name, opts.namespace) + (opts.status === true ? '/status' : '');
    return this.client.request<T>(
      'PATCH',
      path,
      withSignal(
        {
          body: patch,
          contentType: PATCH_CONTENT_TYPES[type],
          query: { fieldManager: opts.fieldManager, force: opts.force },
        },
        opts.signal,
      ),
    );
  }

  /** DELETE an object. */
  delete(name: string, opts: DeleteOptions = {}): Promise<unknown> {
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.propagationPolicy !== undefined) body['propagationPolicy'] = opts.propagationPolicy;
    if (opts.resourceVersion !== undefined) body['preconditions'] = { resourceVersion: opts.resourceVersion };
    return this.client.request<unknown>(
      'DELETE',
      objectPath(this.descriptor, name, opts.namespace),
      withSignal({ body }, opts.signal),
    );
  }

  /** WATCH the collection; see {@link KubeClient.watch}. */
  watch(opts: WatchOptions, onEvent: (ev: WatchEvent<T>) => void): Promise<void> {
    return this.client.watch<T>(
      collectionPath(this.descriptor, opts.namespace),
      {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        resourceVersion: opts.resourceVersion,
        allowWatchBookmarks: opts.allowWatchBookmarks,
        timeoutSeconds: opts.timeoutSeconds,
      },
      onEvent,
      opts.signal,
    );
  }
}

function apiVersion(d: ResourceDescriptor): string {
  return d.group === '' ? d.version : `${d.group}/${d.version}`;
}

function nsOf(d: ResourceDescriptor, obj: KubeObject): string | undefined {
  if (!d.namespaced) return undefined;
  const ns = obj.metadata.namespace;
  if (ns === undefined || ns === '') {
    throw new KubeError(
      'KUBE_INVALID_ARGUMENT',
      `${d.kind} "${obj.metadata.name ?? obj.metadata.generateName ?? ''}" is namespaced: set metadata.namespace`,
    );
  }
  return ns;
}

/** Decodes one watch event line and hands it to `onEvent`; returns the error that ends the watch, if any. */
function deliverWatchLine<T extends KubeObject>(
  path: string,
  line: string,
  onEvent: (ev: WatchEvent<T>) => void,
): Error | undefined {
  let ev: WatchEvent<T>;
  try {
    ev = JSON.parse(line) as WatchEvent<T>;
  } catch (err) {
    return new KubeError(
      'KUBE_BAD_RESPONSE',
      `watch ${path}: undecodable event line ${JSON.stringify(line.slice(0, 120))}`,
      { cause: err },
    );
  }
  try {
    onEvent(ev);
  } catch (err) {
    return err instanceof Error
      ? err
      : new KubeError('KUBE_BAD_RESPONSE', `watch ${path}: event handler failed: ${String(err)}`);
  }
  return undefined;
}
