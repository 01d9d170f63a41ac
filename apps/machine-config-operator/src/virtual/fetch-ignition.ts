/**
 * How a booting machine gets its config: Ignition's GET of `<server>/config/<pool>` with the Accept header of
 * Ignition 2.x (the spec 3.5.0 media type plus a catch-all with q=0.1), over HTTP or HTTPS with the
 * cluster's root CA, retried like Ignition does until it answers 200 (each attempt waits 10 s for an answer).
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Accept header sent by Ignition for spec 3.5. */
export const IGNITION_ACCEPT = 'application/vnd.coreos.ignition+json;version=3.5.0, */*;q=0.1';

/** The server did not give a config. */
export class IgnitionFetchError extends Error {
  readonly code = 'VIRTUAL_IGNITION_FETCH';
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = 'IgnitionFetchError';
  }
}

/** Maximum size of a served config. */
export const MAX_CONFIG_BYTES = 32 * 1024 * 1024;

/** One GET; resolves status and body. */
export function httpGet(
  url: string,
  headers: Record<string, string>,
  ca?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(
      u,
      { method: 'GET', headers, ...(ca !== undefined ? { ca } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_CONFIG_BYTES) {
            req.destroy(new IgnitionFetchError(url, `config from ${url} exceeds ${MAX_CONFIG_BYTES} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new IgnitionFetchError(url, `GET ${url} timed out`)));
    req.end();
  });
}

/** Ignition's first wait between failed attempts (coreos/ignition docs/operator-notes.md). */
export const IGNITION_INITIAL_BACKOFF_MS = 100;
/** Ignition's cap on the doubling wait. */
export const IGNITION_MAX_BACKOFF_MS = 5000;

/** Options of {@link fetchIgnition}. */
export interface FetchIgnitionOptions {
  /** PEM CA of the server's certificate (HTTPS). */
  ca?: string;
  /** Give up after this many attempts (default: never, as Ignition; the node's `signal` ends the wait). */
  attempts?: number;
  /** First wait between attempts (default {@link IGNITION_INITIAL_BACKOFF_MS}); doubles up to `maxDelayMs`. */
  delayMs?: number;
  /** Cap of the wait (default {@link IGNITION_MAX_BACKOFF_MS}). */
  maxDelayMs?: number;
  /** The machine powers off: stop retrying. */
  signal?: AbortSignal;
}

/** Whether Ignition retries after this answer: network errors and HTTP 5xx yes; any other non-200 fails the boot. */
export function decideIgnitionRetry(status: number | undefined): 'done' | 'retry' | 'fail' {
  if (status === 200) return 'done';
  if (status === undefined || status >= 500) return 'retry';
  return 'fail';
}

function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Fetches the pool's config like Ignition: network errors and HTTP 5xx (the MCS answers 500 until the pool has a
 * rendered config) are retried forever with a doubling wait from 100 ms capped at 5 s, until the server answers 200
 * or the machine's `signal` aborts; any other status fails at once, as it fails Ignition's boot.
 */
export async function fetchIgnition(serverUrl: string, pool: string, opts: FetchIgnitionOptions = {}): Promise<string> {
  const url = `${serverUrl.replace(/\/$/, '')}/config/${encodeURIComponent(pool)}`;
  const attempts = opts.attempts ?? Number.POSITIVE_INFINITY;
  const cap = opts.maxDelayMs ?? IGNITION_MAX_BACKOFF_MS;
  let delay = opts.delayMs ?? IGNITION_INITIAL_BACKOFF_MS;
  let last = 'no attempt made';
  for (let i = 0; i < attempts && opts.signal?.aborted !== true; i++) {
    let status: number | undefined;
    try {
      const r = await httpGet(url, { Accept: IGNITION_ACCEPT, 'User-Agent': 'Ignition/2.20.0' }, opts.ca);
      if (r.status === 200) return r.body;
      status = r.status;
      last = `GET ${url}: HTTP ${r.status}`;
    } catch (e) {
      last = `GET ${url}: ${(e as Error).message}`;
    }
    if (decideIgnitionRetry(status) === 'fail')
      throw new IgnitionFetchError(
        url,
        `the machine-config-server refused the Ignition config (${last}): check the pool name and the server`,
      );
    await sleepUnlessAborted(delay, opts.signal);
    delay = Math.min(cap, delay * 2);
  }
  const why =
    opts.signal?.aborted === true
      ? 'the machine was stopped while waiting for the server'
      : `gave up after ${attempts} attempts`;
  throw new IgnitionFetchError(url, `could not fetch the Ignition config (${why}): ${last}`);
}
