/** The metrics and health endpoint (`--listen`, default 0.0.0.0:9099): `/metrics`, `/healthz`, `/readyz`; HTTPS with a serving certificate. */
import { readFile } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
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

/** Starts the endpoint. `ready()` decides `/readyz`. */
export async function startMetricsServer(opts: {
  listen: string;
  registry: Registry;
  ready: () => boolean;
  certFile?: string;
  keyFile?: string;
}): Promise<MetricsServer> {
  const { host, port } = parseListen(opts.listen);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(code, { 'Content-Type': type, 'Cache-Control': 'no-store' });
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
  if (opts.certFile !== undefined || opts.keyFile !== undefined) {
    if (opts.certFile === undefined || opts.keyFile === undefined)
      throw new CvoError(
        'InvalidFlag',
        '--serving-cert-file',
        'both --serving-cert-file and --serving-key-file are required for HTTPS',
      );
    const [cert, key] = await Promise.all([readFile(opts.certFile), readFile(opts.keyFile)]);
    server = https.createServer({ cert, key }, handler);
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
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
