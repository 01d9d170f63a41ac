/**
 * The metrics and health endpoint (`--listen`, default 0.0.0.0:9099): `/metrics`, `/healthz`, `/readyz`. With a
 * serving certificate it is HTTPS and `/metrics` needs a client certificate as upstream release-4.20
 * (openshift/cluster-version-operator `pkg/cvo/metrics.go` `RunMetrics`, `authHandler`): trusted by the cluster's
 * client CA (authentication) and with the Common Name of Prometheus' service account (authorization). The serving
 * certificate and the client CA are reloaded when they change.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { TLSSocket } from 'node:tls';
import type { Registry } from '@keelson/kube';
import { CvoError } from './errors.js';

/** A running endpoint. */
export interface MetricsServer {
  /** e.g. `http://127.0.0.1:9099`. */
  url: string;
  close(): Promise<void>;
}

/** Parses `host:port` (IPv6 in brackets). */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(listen);
  const port = Number(m?.[3]);
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new CvoError(
      'InvalidFlag',
      '--listen',
      `--listen ${JSON.stringify(listen)}: expected HOST:PORT, e.g. 0.0.0.0:9099`,
    );
  return { host: m[1] ?? m[2] ?? '', port };
}

/** The Common Name allowed to read `/metrics` (upstream `metricsAllowedClientCommonName`). */
export const METRICS_ALLOWED_CLIENT_CN = 'system:serviceaccount:openshift-monitoring:prometheus-k8s';

/** Client-certificate checks of `/metrics` over HTTPS (upstream `MetricsOptions.Disable{Authentication,Authorization}`). */
export interface MetricsAuth {
  authentication: boolean;
  authorization: boolean;
  /** The client CA bundle (PEM), undefined while unknown. */
  clientCA(): string | undefined;
  /** Registers a callback for client CA changes. */
  onClientCAChange?(f: () => void): void;
}

/** Upstream `authHandler.ServeHTTP`: undefined when allowed, else the HTTP error to send. */
export function checkClient(
  socket: TLSSocket | undefined,
  auth: Pick<MetricsAuth, 'authentication' | 'authorization' | 'clientCA'>,
): { code: number; message: string } | undefined {
  if (!auth.authentication && !auth.authorization) return undefined;
  const peer = socket?.getPeerCertificate();
  if (!peer || Object.keys(peer).length === 0) return { code: 401, message: 'client certificate required' };
  if (auth.authentication) {
    if (auth.clientCA() === undefined) return { code: 500, message: 'internal server error' };
    if (!socket?.authorized) return { code: 401, message: 'client certificate not trusted' };
  }
  if (auth.authorization) {
    const raw = (peer.subject as Record<string, string | string[] | undefined> | undefined)?.['CN'];
    const cn = Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? '');
    if (cn !== METRICS_ALLOWED_CLIENT_CN) return { code: 403, message: `unauthorized common name: ${cn}` };
  }
  return undefined;
}

/** Starts the endpoint. `ready()` decides `/readyz`. */
export async function startMetricsServer(opts: {
  listen: string;
  registry: Registry;
  ready: () => boolean;
  certFile?: string;
  keyFile?: string;
  /** Client-certificate checks over HTTPS (default: none). */
  auth?: MetricsAuth;
  /** Reports reload failures of the serving certificate. */
  onReloadError?: (e: Error) => void;
}): Promise<MetricsServer> {
  const { host, port } = parseListen(opts.listen);
  if (opts.auth && opts.auth.authorization && !opts.auth.authentication)
    throw new CvoError(
      'InvalidOptions',
      'metricsAuth',
      'invalid configuration: cannot enable authorization without authentication',
    );
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(code, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(405, 'method not allowed\n');
      return;
    }
    if (path === '/healthz' || path === '/livez') {
      send(200, 'ok');
      return;
    }
    if (path === '/readyz') {
      if (opts.ready()) send(200, 'ok');
      else send(500, '[-]leader-or-standby failed\nreadyz check failed\n');
      return;
    }
    if (path === '/metrics') {
      const socket = req.socket;
      const denied = opts.auth && socket instanceof TLSSocket ? checkClient(socket, opts.auth) : undefined;
      if (denied) {
        send(denied.code, `${denied.message}\n`);
        return;
      }
      opts.registry.metrics().then(
        (m) => {
          send(200, m, opts.registry.contentType);
        },
        (e: unknown) => {
          send(500, `internal error: ${(e as Error).message}\n`);
        },
      );
      return;
    }
    send(404, 'not found\n');
  };
  let server: http.Server | https.Server;
  let watcher: FSWatcher | undefined;
  if (opts.certFile !== undefined || opts.keyFile !== undefined) {
    if (opts.certFile === undefined || opts.keyFile === undefined)
      throw new CvoError(
        'InvalidFlag',
        '--serving-cert-file',
        'both --serving-cert-file and --serving-key-file are required for HTTPS',
      );
    const tls = await startTls(opts.certFile, opts.keyFile, handler, opts.auth, opts.onReloadError);
    server = tls.server;
    watcher = tls.watcher;
  } else server = http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => {
      reject(
        new CvoError(
          'InvalidFlag',
          '--listen',
          `cannot listen on ${opts.listen}: ${e.message}; choose a free address`,
          { cause: e },
        ),
      );
    });
    server.listen(port, host === '' ? undefined : host, resolve);
  });
  const a = server.address() as AddressInfo;
  const shown =
    a.address === '0.0.0.0' || a.address === '::' ? '127.0.0.1' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `${server instanceof https.Server ? 'https' : 'http'}://${shown}:${a.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        watcher?.close();
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/**
 * The HTTPS server: client certificates requested but checked per request (upstream `tls.RequestClientCert`, so the
 * answer is an HTTP 401/403 and not a TLS alert), the serving pair re-read when its directory changes (a Secret
 * volume swaps a symlink) and the client CA swapped in when it changes.
 */
async function startTls(
  certFile: string,
  keyFile: string,
  handler: http.RequestListener,
  auth: MetricsAuth | undefined,
  onReloadError: ((e: Error) => void) | undefined,
): Promise<{ server: https.Server; watcher: FSWatcher | undefined }> {
  const clientAuth = auth !== undefined && (auth.authentication || auth.authorization);
  const context = async (): Promise<https.ServerOptions> => {
    const [cert, key] = await Promise.all([readFile(certFile), readFile(keyFile)]);
    const ca = auth?.clientCA();
    return { cert, key, ...(clientAuth && ca !== undefined ? { ca } : {}) };
  };
  let current = await context();
  const server = https.createServer(
    { ...current, minVersion: 'TLSv1.2', ...(clientAuth ? { requestCert: true, rejectUnauthorized: false } : {}) },
    handler,
  );
  const reload = (): void => {
    context().then(
      (c) => {
        current = c;
        server.setSecureContext(current);
      },
      (e: unknown) => onReloadError?.(e as Error),
    );
  };
  auth?.onClientCAChange?.(reload);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(certFile), { persistent: false }, reload);
    watcher.on('error', () => undefined);
  } catch {
    watcher = undefined;
  }
  return { server, watcher };
}
