import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Upstream data copied into this package (see the README in each folder for provenance). */
export const UPSTREAM = new URL('./fixtures/upstream/', import.meta.url);
export const CINCINNATI = new URL('cincinnati/', UPSTREAM);
export const E2E = new URL('cincinnati/graphs/cincinnati-e2e/', UPSTREAM);
export const STABLE_47 = new URL('134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.7_amd64_v1.json', E2E);
export const STABLE_49 = new URL('134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.9_amd64_v1.json', E2E);
export const CANDIDATE_412 = new URL('134475077ed4eeaedf3c339f12915b9cdaf7d194_candidate-4.12_multi_v1.json', E2E);
export const ZINCATI = new URL('cincinnati/graphs/zincati/response.json', UPSTREAM);

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Running {
  url: string;
  port: number;
  requests: { url: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

function track(server: Server, requests: Running['requests'], scheme: string): Promise<Running> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `${scheme}://127.0.0.1:${port}`,
        port,
        requests,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

/** Plain node:http server on loopback recording requests. */
export function serve(handler: Handler): Promise<Running> {
  const requests: Running['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  return track(server, requests, 'http');
}

export function serveTls(handler: Handler, key: string, cert: string): Promise<Running> {
  const requests: Running['requests'] = [];
  const server = createHttpsServer({ key, cert }, (req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  return track(server, requests, 'https');
}

/** A tiny forward proxy: CONNECT tunnels and absolute-URI HTTP requests. */
export function serveProxy(): Promise<Running & { connects: string[] }> {
  const requests: Running['requests'] = [];
  const connects: string[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const target = new URL(req.url ?? '');
    const up = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return track(server, requests, 'http').then((r) => ({ ...r, connects }));
}

/** Generates a CA and a server certificate for 127.0.0.1 with the openssl CLI. */
export function makeCerts(san = 'IP:127.0.0.1'): { caCert: string; key: string; cert: string; otherCa: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ug-certs-'));
  const run = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=keelson-test-ca',
  ]);
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'other.key',
    '-out',
    'other.crt',
    '-days',
    '2',
    '-subj',
    '/CN=other-ca',
  ]);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1']);
  execFileSync('sh', ['-c', 'printf "subjectAltName=%s\\nbasicConstraints=CA:FALSE\\n" "$0" > ext.cnf', san], {
    cwd: dir,
  });
  run([
    'x509',
    '-req',
    '-in',
    'srv.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'srv.crt',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
  const r = (f: string): string => readFileSync(join(dir, f), 'utf8');
  return { caCert: r('ca.crt'), key: r('srv.key'), cert: r('srv.crt'), otherCa: r('other.crt') };
}

export function readText(u: URL): string {
  return readFileSync(u, 'utf8');
}
