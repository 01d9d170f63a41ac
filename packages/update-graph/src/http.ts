/**
 * Small HTTP helper over undici: custom CA, HTTP(S) proxy via CONNECT, overall timeout,
 * abort signal, response size limit.
 */
import { STATUS_CODES } from 'node:http';
import { Agent, interceptors, ProxyAgent, request, type Dispatcher } from 'undici';

/** TLS / proxy settings shared by the graph client and the PromQL client. */
export interface HttpTransportOptions {
  /** PEM CA bundle (string or bytes) trusted instead of the system roots. */
  readonly ca?: string | Buffer;
  /** TLS server name (SNI and certificate check) when it differs from the host connected to (e.g. an IP). */
  readonly servername?: string;
  /** HTTP proxy URL (`http://host:port`); HTTPS targets are tunnelled with CONNECT. */
  readonly proxy?: string;
  /** Hosts that bypass the proxy (exact host names, `*` for all). */
  readonly noProxy?: readonly string[];
  /** Deadline to establish a connection, TCP and TLS (default 30 s, like oc's dialer). */
  readonly connectTimeoutMs?: number;
  /** Longest silence once connected, waiting for headers or between body chunks (default 30 s). */
  readonly idleTimeoutMs?: number;
}

/** Default of {@link HttpTransportOptions.connectTimeoutMs}. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Default of {@link HttpTransportOptions.idleTimeoutMs}. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** True when `host` must bypass the proxy (exact host, `.suffix`/`suffix` domain match, or `*`). */
export function bypassesProxy(host: string, noProxy: readonly string[] | undefined): boolean {
  if (!noProxy) return false;
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return noProxy.some((raw) => {
    const e = raw.trim().toLowerCase();
    if (e === '') return false;
    if (e === '*') return true;
    const d = e.startsWith('.') ? e.slice(1) : e;
    return h === d || h.endsWith(`.${d}`);
  });
}

/**
 * Creates an undici dispatcher for these transport options (redirects followed, up to 10, like Go's
 * http.Client). With `noProxy`, requests to listed hosts go direct.
 */
export function createDispatcher(opts: HttpTransportOptions): Dispatcher {
  const timeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const idle = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const connect = {
    ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
    ...(opts.servername !== undefined ? { servername: opts.servername } : {}),
    timeout,
  };
  const deadlines = { headersTimeout: idle, bodyTimeout: idle };
  const direct = new Agent({ connect, ...deadlines }).compose(interceptors.redirect({ maxRedirections: 10 }));
  if (opts.proxy === undefined) return direct;
  const proxied = new ProxyAgent({ uri: opts.proxy, requestTls: connect, proxyTls: connect, ...deadlines }).compose(
    interceptors.redirect({ maxRedirections: 10 }),
  );
  if (!opts.noProxy || opts.noProxy.length === 0) return proxied;
  return new RoutingDispatcher(direct, proxied, opts.noProxy);
}

/** Sends each request direct or through the proxy depending on its origin host. */
class RoutingDispatcher extends Agent {
  private readonly direct: Dispatcher;
  private readonly proxied: Dispatcher;
  private readonly noProxy: readonly string[];
  constructor(direct: Dispatcher, proxied: Dispatcher, noProxy: readonly string[]) {
    super();
    this.direct = direct;
    this.proxied = proxied;
    this.noProxy = noProxy;
  }
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = options.origin instanceof URL ? options.origin : new URL(String(options.origin));
    return (bypassesProxy(origin.hostname, this.noProxy) ? this.direct : this.proxied).dispatch(options, handler);
  }
  /**
   * Closes both routes and this agent. undici's promise form of `close()` calls `this.close(callback)`, so the
   * callback form must do the work (calling `super.close()` without a callback here recursed without end).
   */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const done = Promise.all([
      this.direct.close(),
      this.proxied.close(),
      new Promise<void>((resolve) => {
        super.close(() => {
          resolve();
        });
      }),
    ]).then(() => undefined);
    if (callback === undefined) return done;
    void done.then(callback, callback);
  }
}

/** Result of {@link httpGet}. */
export interface HttpResult {
  readonly status: number;
  /** Go-style status line: `500 Internal Server Error`. */
  readonly statusLine: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** Errors of {@link httpGet}: phase `request` (connect/headers) or `body`. */
export class HttpFailure extends Error {
  readonly phase: 'request' | 'body';
  readonly kind: 'timeout' | 'aborted' | 'too-large' | 'network';
  constructor(
    phase: 'request' | 'body',
    kind: 'timeout' | 'aborted' | 'too-large' | 'network',
    message: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.phase = phase;
    this.kind = kind;
  }
}

/** GET with an overall deadline and a size limit. The body is only read when status is 200. */
export async function httpGet(
  url: URL,
  options: {
    dispatcher: Dispatcher;
    headers: Record<string, string>;
    timeoutMs: number;
    maxBytes: number;
    signal?: AbortSignal | undefined;
    readBodyOnError?: boolean;
  },
): Promise<HttpResult> {
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort(new Error(`timeout after ${options.timeoutMs} ms`));
  }, options.timeoutMs);
  const onAbort = (): void => {
    ctrl.abort(options.signal?.reason ?? new Error('aborted'));
  };
  if (options.signal) {
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  }
  const kindOf = (): 'timeout' | 'aborted' | 'network' =>
    timedOut ? 'timeout' : options.signal?.aborted ? 'aborted' : 'network';
  try {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'GET',
        headers: options.headers,
        dispatcher: options.dispatcher,
        signal: ctrl.signal,
      });
    } catch (err) {
      const kind = kindOf();
      const why =
        kind === 'timeout'
          ? `context deadline exceeded (timeout after ${options.timeoutMs} ms)`
          : kind === 'aborted'
            ? 'context canceled'
            : describe(err);
      throw new HttpFailure('request', kind, why, err);
    }
    const statusText = STATUS_CODES[res.statusCode] ?? '';
    const statusLine = `${res.statusCode} ${statusText}`.trim();
    if (res.statusCode !== 200 && !options.readBodyOnError) {
      res.body.resume();
      res.body.on('error', () => undefined);
      return { status: res.statusCode, statusLine, headers: res.headers, body: Buffer.alloc(0) };
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      res.body.destroy();
      throw new HttpFailure(
        'body',
        'too-large',
        `response body of ${declared} bytes exceeds the ${options.maxBytes}-byte limit`,
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        const b = chunk as Buffer;
        size += b.length;
        if (size > options.maxBytes) {
          res.body.destroy();
          throw new HttpFailure('body', 'too-large', `response body exceeds the ${options.maxBytes}-byte limit`);
        }
        chunks.push(b);
      }
    } catch (err) {
      if (err instanceof HttpFailure) throw err;
      const kind = kindOf();
      const why =
        kind === 'timeout'
          ? `context deadline exceeded (Client.Timeout or context cancellation while reading body; timeout after ${options.timeoutMs} ms)`
          : kind === 'aborted'
            ? 'context canceled'
            : describe(err);
      throw new HttpFailure('body', kind, why, err);
    }
    return { status: res.statusCode, statusLine, headers: res.headers, body: Buffer.concat(chunks) };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const code = (err as { code?: unknown }).code;
  let msg = err.message;
  if (cause instanceof Error && !msg.includes(cause.message)) msg += `: ${cause.message}`;
  if (typeof code === 'string' && !msg.includes(code)) msg += ` (${code})`;
  return msg;
}
