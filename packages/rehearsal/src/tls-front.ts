/**
 * `--hold`: an HTTPS front for the held cluster. The rehearsal's components reach the API server through a plain-HTTP
 * counting proxy on 127.0.0.1; kubectl does not send a bearer token over plain HTTP (it would be anonymous and
 * refused), so the admin gets a kubeconfig for this TLS listener (its own CA, a certificate for 127.0.0.1) that
 * forwards every request, watches included, to that proxy.
 */
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { buildKubeconfig, generateTls, kubeconfigYaml } from '@keelson/kube-sandbox';

/** A started front. */
export interface TlsFront {
  url: string;
  /** Kubeconfig for it with the given token. */
  kubeconfig(token: string): string;
  close(): Promise<void>;
}

/** Starts an HTTPS listener on 127.0.0.1 that forwards to `target` (an `http://` URL). */
export async function startTlsFront(target: string): Promise<TlsFront> {
  const to = new URL(target);
  const tls = await generateTls();
  const server = createServer({ key: tls.serverKey, cert: tls.serverCert }, (req, res) => {
    const up = httpRequest(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: to.host },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        res.flushHeaders();
        r.pipe(res);
      },
    );
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(503, { 'content-type': 'application/json' });
      res.end();
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    kubeconfig: (token) =>
      kubeconfigYaml(buildKubeconfig({ server: url, token, caCert: tls.caCert, name: 'keelson-rehearsal' })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
