import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { KubeError } from './errors.js';

/** A named check; return false or throw to fail it. */
export type HealthCheck = () => boolean | Promise<boolean>;

/** Options of {@link startHealthServer}. */
export interface HealthServerOptions {
  /** Port (default 0: any free port). */
  port?: number;
  /** Address to bind (default 127.0.0.1; '' every interface). */
  host?: string;
  /** Registry served on `/metrics` (default: a new registry with Node default metrics). */
  registry?: Registry;
  /** Liveness checks for `/healthz` (a `ping` check is always present). */
  healthChecks?: Record<string, HealthCheck>;
  /** Readiness checks for `/readyz` (plus every liveness check). */
  readyChecks?: Record<string, HealthCheck>;
  /** Serve HTTPS instead of HTTP (see {@link HealthServerTls}). */
  tls?: HealthServerTls;
  /**
   * Decides access to `/metrics` (e.g. a client certificate check over HTTPS): undefined allows, else the HTTP status
   * and message answered. Health endpoints stay open, as a kubelet probe has no client certificate.
   */
  authorizeMetrics?: (req: http.IncomingMessage) => { code: number; message: string } | undefined;
}

/**
 * HTTPS serving: the pair is re-read when the certificate's directory changes (a Secret volume swaps a symlink), as
 * library-go's dynamic serving certificates. With `requestClientCert` the server asks for a client certificate but
 * lets every handshake through (Go's `tls.RequestClientCert`), so a denial is an HTTP 401/403, not a TLS alert.
 */
export interface HealthServerTls {
  certFile: string;
  keyFile: string;
  /** Ask clients for a certificate (verified later by `authorizeMetrics`). */
  requestClientCert?: boolean;
  /** The CA bundle (PEM) client certificates are verified against; undefined while unknown. */
  clientCA?: () => string | undefined;
  /** Registers a callback run when the client CA changes (the TLS context is rebuilt). */
  onClientCAChange?: (reload: () => void) => void;
  /** Reports a failed reload (the previous pair keeps serving). */
  onReloadError?: (e: Error) => void;
}

/** A running health and metrics server. */
export interface HealthServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** The registry served on `/metrics`. */
  readonly registry: Registry;
  /** Add or replace a liveness check. */
  addHealthCheck(name: string, check: HealthCheck): void;
  /** Add or replace a readiness check. */
  addReadyCheck(name: string, check: HealthCheck): void;
  /** Close the server (open keep-alive connections are closed too). */
  close(): Promise<void>;
}

async function runChecks(checks: Map<string, HealthCheck>): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of checks) {
    let pass: boolean;
    let why = '';
    try {
      pass = await check();
    } catch (err) {
      pass = false;
      why = `: ${(err as Error).message}`;
    }
    if (!pass) ok = false;
    lines.push(pass ? `[+]${name} ok` : `[-]${name} failed${why}`);
  }
  return { ok, lines };
}

/**
 * Serve `/healthz`, `/readyz` (kube-apiserver style: `ok`, or per-check `[+]name ok` / `[-]name failed` lines with
 * `?verbose` or on failure, HTTP 500 when a check fails) and `/metrics` (Prometheus text format from prom-client).
 */
export async function startHealthServer(options: HealthServerOptions = {}): Promise<HealthServer> {
  const registry =
    options.registry ??
    (() => {
      const r = new Registry();
      collectDefaultMetrics({ register: r });
      return r;
    })();
  const health = new Map<string, HealthCheck>([['ping', () => true]]);
  for (const [k, v] of Object.entries(options.healthChecks ?? {})) health.set(k, v);
  const ready = new Map<string, HealthCheck>();
  for (const [k, v] of Object.entries(options.readyChecks ?? {})) ready.set(k, v);

  const handler: http.RequestListener = (req, res) => {
    const u = new URL(req.url ?? '/', 'http://localhost');
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(code, { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      send(405, 'method not allowed\n');
      return;
    }
    const verbose = u.searchParams.has('verbose');
    const check = async (checks: Map<string, HealthCheck>, what: string): Promise<void> => {
      const r = await runChecks(checks);
      if (r.ok && !verbose) send(200, 'ok');
      else if (r.ok) send(200, `${r.lines.join('\n')}\n${what} check passed\n`);
      else send(500, `${r.lines.join('\n')}\n${what} check failed\n`);
    };
    const route = async (): Promise<void> => {
      switch (u.pathname) {
        case '/healthz':
        case '/livez':
          return check(health, u.pathname.slice(1));
        case '/readyz':
          return check(new Map([...health, ...ready]), 'readyz');
        case '/metrics': {
          const denied = options.authorizeMetrics?.(req);
          if (denied) send(denied.code, `${denied.message}\n`);
          else send(200, await registry.metrics(), registry.contentType);
          return;
        }
        default: {
          send(404, 'not found\n');
          return;
        }
      }
    };
    route().catch((err: unknown) => {
      send(500, `internal error: ${(err as Error).message}\n`);
    });
  };
  const tls = options.tls ? await startTls(options.tls, handler) : undefined;
  const server: http.Server | https.Server = tls?.server ?? http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      reject(
        new KubeError(
          'KUBE_INVALID_ARGUMENT',
          `health server cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${err.message}; choose a free port`,
          { cause: err },
        ),
      );
    });
    // '' listens on every interface (Go's `:port`)
    const host = options.host ?? '127.0.0.1';
    if (host === '') server.listen(options.port ?? 0, resolve);
    else server.listen(options.port ?? 0, host, resolve);
  });
  const addr = server.address() as AddressInfo;
  // a wildcard address is reachable on loopback: the URL names that
  const host =
    addr.address === '0.0.0.0' || addr.address === '::'
      ? '127.0.0.1'
      : addr.family === 'IPv6'
        ? `[${addr.address}]`
        : addr.address;
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${addr.port}`,
    port: addr.port,
    registry,
    addHealthCheck: (n, c) => void health.set(n, c),
    addReadyCheck: (n, c) => void ready.set(n, c),
    close: () =>
      new Promise<void>((resolve, reject) => {
        tls?.watcher?.close();
        server.close((err) => {
          if (err) reject(err);
          else resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/** The HTTPS server of {@link HealthServerTls}: TLS 1.2+, the pair and client CA reloaded on change. */
async function startTls(
  o: HealthServerTls,
  handler: http.RequestListener,
): Promise<{ server: https.Server; watcher: FSWatcher | undefined }> {
  const context = async (): Promise<https.ServerOptions> => {
    const [cert, key] = await Promise.all([readFile(o.certFile), readFile(o.keyFile)]);
    const ca = o.clientCA?.();
    return { cert, key, ...(o.requestClientCert === true && ca !== undefined ? { ca } : {}) };
  };
  const server = https.createServer(
    {
      ...(await context()),
      minVersion: 'TLSv1.2',
      ...(o.requestClientCert === true ? { requestCert: true, rejectUnauthorized: false } : {}),
    },
    handler,
  );
  const reload = (): void => {
    context().then(
      (c) => {
        server.setSecureContext(c);
      },
      (e: unknown) => o.onReloadError?.(e as Error),
    );
  };
  o.onClientCAChange?.(reload);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(o.certFile), { persistent: false }, reload);
    watcher.on('error', () => undefined);
  } catch {
    watcher = undefined;
  }
  return { server, watcher };
}
