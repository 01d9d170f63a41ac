import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeApiError, KubeClient, MachineConfigPools } from '../src/index.js';

// A deliberately misbehaving API server on 127.0.0.1: the real sandbox never answers like this, so these
// failure modes need their own loopback server.
let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(handler: http.RequestListener): Promise<KubeClient> {
  server = http.createServer(handler);
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:${port}" } }]
users: [{ name: u, user: { token: t0k3n } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;
  return KubeClient.fromKubeconfigString(kubeconfig, { requestTimeoutMs: 300 });
}

describe('hostile or broken servers are refused safely', () => {
  it('sends the bearer token and rejects an undecodable watch line with KUBE_BAD_RESPONSE', async () => {
    let auth: string | undefined;
    const client = await serve((req, res) => {
      auth = req.headers.authorization;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"2"}}}\n');
      res.write('this is not json\n');
    });
    const seen: string[] = [];
    await expect(
      client.resource(MachineConfigPools).watch({}, (e) => seen.push(`${e.type} ${e.object.metadata.name ?? ''}`)),
    ).rejects.toMatchObject({
      code: 'KUBE_BAD_RESPONSE',
      message: expect.stringContaining('undecodable event line "this is not json"') as unknown,
    });
    expect(seen).toEqual(['ADDED a']);
    expect(auth).toBe('Bearer t0k3n');
    await client.close();
  });

  it('turns a non-JSON error page into a KubeApiError with the text as message', async () => {
    const client = await serve((_req, res) => {
      res.writeHead(503, { 'Content-Type': 'text/html' });
      res.end('<html>maintenance</html>');
    });
    const err = await client
      .resource(MachineConfigPools)
      .get('x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(503);
    expect((err as KubeApiError).reason).toBe('ServiceUnavailable');
    expect((err as KubeApiError).message).toContain('<html>maintenance</html>');
    await client.close();
  });

  it('gives up on a server that never answers after requestTimeoutMs', async () => {
    const client = await serve(() => {
      /* never respond */
    });
    await expect(client.resource(MachineConfigPools).list()).rejects.toMatchObject({
      code: 'KUBE_NETWORK',
      message: expect.stringContaining('no response within 300 ms') as unknown,
    });
    await client.close();
  });

  it('rejects a 2xx answer that is not JSON', async () => {
    const client = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"items": [');
    });
    await expect(client.resource(MachineConfigPools).list()).rejects.toMatchObject({ code: 'KUBE_BAD_RESPONSE' });
    await client.close();
  });
});
