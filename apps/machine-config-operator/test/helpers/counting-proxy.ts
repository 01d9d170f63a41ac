/**
 * A real HTTP reverse proxy on loopback in front of the sandbox API server that records every request's method and
 * path, so a test can count what the components write (watches stream through unchanged).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@keelson/kube';

/** One proxied request. */
export interface ProxiedRequest {
  method: string;
  path: string;
  /** The server's status code, once it answered. */
  status?: number;
}

/** The running proxy. */
export interface CountingProxy {
  /** Requests seen so far (in arrival order). */
  readonly requests: ProxiedRequest[];
  /** The non-GET requests since `from` (an index into {@link requests}). */
  writesSince(from: number): ProxiedRequest[];
  /** A kubeconfig like `base` whose server is this proxy. */
  kubeConfig(base: KubeConfig): KubeConfig;
  stop(): Promise<void>;
}

/** Starts a proxy to `target` (an `http://host:port` URL). */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const requests: ProxiedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const seen: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '' };
    requests.push(seen);
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        if (up.statusCode !== undefined) seen.status = up.statusCode;
        res.writeHead(up.statusCode ?? 502, up.headers);
        res.flushHeaders();
        up.pipe(res);
      },
    );
    out.on('error', () => {
      res.destroy();
    });
    req.pipe(out);
    res.on('close', () => {
      out.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    requests,
    writesSince: (from) => requests.slice(from).filter((r) => r.method !== 'GET'),
    kubeConfig(base) {
      const kc = new KubeConfig();
      kc.loadFromString(base.exportConfig());
      const cluster = kc.getCurrentCluster();
      if (cluster === null) throw new Error('kubeconfig has no current cluster');
      kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? { ...c, server: url } : c));
      return kc;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
