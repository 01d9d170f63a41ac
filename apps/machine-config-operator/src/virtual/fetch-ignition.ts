/**
 * How a booting machine gets its config: Ignition's GET of `<server>/config/<pool>` with the Accept header of
 * Ignition 2.x (the spec 3.5.0 media type plus a catch-all with q=0.1), over HTTP or HTTPS with the
 * cluster's root CA, retried like Ignition does until it answers 200.
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
export function httpGet(url: string, headers: Record<string, string>, ca?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method: 'GET', headers, ...(ca !== undefined ? { ca } : {}) }, (res) => {
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
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new IgnitionFetchError(url, `GET ${url} timed out`)));
    req.end();
  });
}

/** Fetches the pool's config, retrying failures (`attempts`, doubling delay from `delayMs`, capped at 5 s). */
export async function fetchIgnition(serverUrl: string, pool: string, opts: { ca?: string; attempts?: number; delayMs?: number; signal?: AbortSignal } = {}): Promise<string> {
  const url = `${serverUrl.replace(/\/$/, '')}/config/${encodeURIComponent(pool)}`;
  const attempts = opts.attempts ?? 30;
  let delay = opts.delayMs ?? 200;
  let last = '';
  for (let i = 0; i < attempts; i++) {
    if (opts.signal?.aborted === true) break;
    try {
      const r = await httpGet(url, { Accept: IGNITION_ACCEPT, 'User-Agent': 'Ignition/2.20.0' }, opts.ca);
      if (r.status === 200) return r.body;
      last = `GET ${url}: HTTP ${r.status}`;
    } catch (e) {
      last = `GET ${url}: ${(e as Error).message}`;
    }
    await new Promise((res) => setTimeout(res, delay));
    delay = Math.min(5000, delay * 2);
  }
  throw new IgnitionFetchError(url, `could not fetch the Ignition config: ${last}`);
}
