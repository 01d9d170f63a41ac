/**
 * HTTP routes of the machine-config-server (api.go): `/config/<pool>` (GET/HEAD, Accept-header version
 * negotiation), `/healthz` (GET/HEAD 200, else 405), anything else 404 (GET/HEAD) or 405. Errors have an empty
 * body with `Content-Length: 0`; successes are `application/json` with an explicit Content-Length.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AcceptHeaderError, negotiateIgnitionVersion } from '@keelson/machineconfig';
import type { Logger } from '@keelson/kube';
import { buildServedConfig, servedConfigKey, type ServedConfigCache } from './serve-config.js';
import type { ConfigSource } from './source.js';

/** Inputs of the handler. */
export interface HandlerOptions {
  readonly source: ConfigSource;
  readonly cache: ServedConfigCache;
  readonly logger: Logger;
  /** Renders the bootstrap kubeconfig (CA from the ConfigMap when present); absent: not appended. */
  readonly kubeconfig?: (ca: Buffer | undefined) => Promise<string>;
  /** Counts requests per code (metrics). */
  readonly onRequest?: (code: number) => void;
}

function empty(res: ServerResponse, code: number): void {
  res.writeHead(code, { 'Content-Length': '0' });
  res.end();
}

const isRead = (m: string | undefined): boolean => m === 'GET' || m === 'HEAD';

const negotiated = new Map<string, string | AcceptHeaderError>();
const MAX_NEGOTIATED = 256;

/** negotiateIgnitionVersion memoized per Accept header (clients send the same few headers). */
function negotiate(accept: string): string {
  let v = negotiated.get(accept);
  if (v === undefined) {
    try {
      v = negotiateIgnitionVersion(accept);
    } catch (e) {
      if (!(e instanceof AcceptHeaderError)) throw e;
      v = e;
    }
    if (negotiated.size >= MAX_NEGOTIATED) negotiated.clear();
    negotiated.set(accept, v);
  }
  if (v instanceof AcceptHeaderError) throw v;
  return v;
}

/** Serves one request. */
export async function handleRequest(opts: HandlerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  let code: number;
  try {
    if (path.startsWith('/config/')) code = await serveConfig(opts, req, res, path);
    else if (path === '/healthz') {
      code = isRead(req.method) ? 200 : 405;
      empty(res, code);
    } else {
      code = isRead(req.method) ? 404 : 405;
      empty(res, code);
    }
  } catch (e) {
    opts.logger.error('request failed', { error: (e as Error).message, path });
    code = 500;
    if (!res.headersSent) empty(res, 500);
    else res.destroy();
  }
  opts.onRequest?.(code);
}

async function serveConfig(
  opts: HandlerOptions,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<number> {
  if (!isRead(req.method)) {
    empty(res, 405);
    return 405;
  }
  const pool =
    path
      .split('/')
      .filter((s) => s !== '')
      .pop() ?? '';
  const accept = req.headers.accept ?? '';
  const fields = { pool, address: req.socket.remoteAddress, userAgent: req.headers['user-agent'] ?? '', accept };
  let version: string;
  try {
    version = negotiate(accept);
  } catch (e) {
    if (!(e instanceof AcceptHeaderError)) throw e;
    opts.logger.error(e.message, fields);
    empty(res, 400);
    return 400;
  }
  let buf: Buffer;
  try {
    const r = await opts.source.resolve(pool);
    const key = servedConfigKey(pool, r.mc.metadata.name ?? '', version, r.revision);
    const spec = (r.controllerConfig?.spec ?? {}) as {
      kubeAPIServerServingCAData?: string;
      cloudProviderCAData?: string;
    };
    buf =
      opts.cache.peek(key) ??
      (await opts.cache.get(key, async () => {
        const kubeconfig = opts.kubeconfig ? await opts.kubeconfig(r.kubeconfigCA) : undefined;
        return Buffer.from(
          buildServedConfig({
            mc: r.mc,
            version,
            kubeAPIServerServingCAData: spec.kubeAPIServerServingCAData,
            cloudProviderCAData: spec.cloudProviderCAData,
            kubeconfig,
          }),
        );
      }));
  } catch (e) {
    opts.logger.error(`couldn't get config for req: ${(e as Error).message}`, fields);
    empty(res, 500);
    return 500;
  }
  opts.logger.debug('serving config', { ...fields, version });
  res.writeHead(200, { 'Content-Length': String(buf.length), 'Content-Type': 'application/json' });
  if (req.method === 'HEAD') res.end();
  else res.end(buf);
  return 200;
}
