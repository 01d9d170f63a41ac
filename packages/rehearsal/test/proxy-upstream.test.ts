/**
 * `rehearse --kubeconfig`: the counting proxy in front of an HTTPS API server. The rehearsal's admin token is swapped
 * for the kubeconfig's credentials (bearer token and client certificate); every other request keeps its own
 * credentials and gets no client certificate, so the server authenticates who actually asks.
 */
import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTls, type TlsMaterial } from '@keelson/kube-sandbox';
import { startApiProxy, upstreamAuth, type ApiProxy } from '../src/api-proxy.js';

const ADMIN = 'rehearsal-admin-token';

describe('upstreamAuth', () => {
  const u = { adminToken: ADMIN, ca: 'CA', admin: { authorization: 'Bearer real', cert: 'C', key: 'K' } };
  it('swaps the admin token for the kubeconfig credentials, and only it', () => {
    expect(upstreamAuth(u, { authorization: `Bearer ${ADMIN}`, accept: 'x' }, 'h:1')).toEqual({
      headers: { authorization: 'Bearer real', accept: 'x', host: 'h:1' },
      ca: 'CA',
      cert: 'C',
      key: 'K',
      rejectUnauthorized: true,
    });
    expect(upstreamAuth(u, { authorization: 'Bearer sa-token' }, 'h:1')).toEqual({
      headers: { authorization: 'Bearer sa-token', host: 'h:1' },
      ca: 'CA',
      rejectUnauthorized: true,
    });
    expect(upstreamAuth(u, {}, 'h:1')).toEqual({ headers: { host: 'h:1' }, ca: 'CA', rejectUnauthorized: true });
    // a client-certificate kubeconfig: the admin token is dropped, the certificate authenticates
    expect(
      upstreamAuth({ adminToken: ADMIN, admin: { cert: 'C', key: 'K' } }, { authorization: `Bearer ${ADMIN}` }, 'h'),
    ).toEqual({ headers: { host: 'h' }, cert: 'C', key: 'K', rejectUnauthorized: true });
    expect(upstreamAuth(undefined, { authorization: `Bearer ${ADMIN}` }, 'h')).toEqual({
      headers: { authorization: `Bearer ${ADMIN}`, host: 'h' },
    });
  });
});

describe('proxy in front of an HTTPS server', () => {
  let tls: TlsMaterial;
  let server: Server;
  let proxy: ApiProxy;
  beforeAll(async () => {
    tls = await generateTls();
    server = createServer(
      { key: tls.serverKey, cert: tls.serverCert, ca: tls.caCert, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const socket = req.socket;
        const peer = socket instanceof TLSSocket ? socket.getPeerCertificate() : undefined;
        const body = JSON.stringify({
          path: req.url,
          authorization: req.headers.authorization ?? null,
          clientCert: peer?.subject !== undefined ? peer.subject.CN : null,
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    proxy = await startApiProxy({
      target: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      upstream: { adminToken: ADMIN, ca: tls.caCert, admin: { cert: tls.clientCert, key: tls.clientKey } },
    });
  });
  afterAll(async () => {
    await proxy.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const get = (path: string, authorization?: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const req = request(`${proxy.url}${path}`, {
        ...(authorization !== undefined ? { headers: { authorization } } : {}),
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          resolve(JSON.parse(text) as Record<string, unknown>);
        });
      });
      req.on('error', reject);
      req.end();
    });

  it("authenticates the admin with the kubeconfig's certificate, anyone else as they are", async () => {
    const admin = await get('/api/v1/nodes', `Bearer ${ADMIN}`);
    expect(admin).toMatchObject({ path: '/api/v1/nodes', authorization: null });
    expect(admin['clientCert']).toEqual(expect.any(String));
    expect(await get('/api/v1/pods', 'Bearer sa-token')).toEqual({
      path: '/api/v1/pods',
      authorization: 'Bearer sa-token',
      clientCert: null,
    });
    expect(proxy.counts().total).toBe(2);
  });
});
