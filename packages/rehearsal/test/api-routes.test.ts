/** The rehearsal proxy counts requests by route (verb, path pattern, client) and, after markUpdate, for the update. */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeOf, startApiProxy, type ApiProxy } from '../src/api-proxy.js';

describe('routeOf', () => {
  it('replaces names and namespaces, and tells a list from a get', () => {
    expect(routeOf('get', '/api/v1/nodes/worker-0')).toBe('get /api/v1/nodes/{name}');
    expect(routeOf('get', '/api/v1/nodes')).toBe('list /api/v1/nodes');
    expect(routeOf('watch', '/api/v1/namespaces/openshift-dns/pods')).toBe('watch /api/v1/namespaces/{ns}/pods');
    expect(routeOf('create', '/api/v1/namespaces/x/pods/p-1/eviction')).toBe(
      'create /api/v1/namespaces/{ns}/pods/{name}/eviction',
    );
    expect(routeOf('get', '/api/v1/namespaces/openshift-dns')).toBe('get /api/v1/namespaces/{ns}');
    expect(routeOf('update', '/apis/config.openshift.io/v1/clusterversions/version/status')).toBe(
      'update /apis/config.openshift.io/v1/clusterversions/{name}/status',
    );
    expect(routeOf('get', '/apis/apps/v1/namespaces/a/deployments/b')).toBe(
      'get /apis/apps/v1/namespaces/{ns}/deployments/{name}',
    );
    expect(routeOf('get', '/version')).toBe('get /version');
  });
});

describe('proxy counts by route', () => {
  let upstream: Server;
  let proxy: ApiProxy;
  beforeAll(async () => {
    upstream = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    proxy = await startApiProxy({ target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await proxy.close();
    upstream.close();
  });
  const send = (method: string, path: string, ua: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request(`${proxy.url}${path}`, { method, headers: { 'user-agent': ua } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });

  it('counts the whole run and, from markUpdate on, the update apart', async () => {
    await send('GET', '/api/v1/nodes/a', 'machine-config-daemon/v0.1');
    proxy.markUpdate();
    await send('GET', '/api/v1/nodes/b', 'machine-config-daemon/v0.1');
    await send('PATCH', '/api/v1/nodes/b', 'keelson-kube/0.1');
    const c = proxy.counts();
    expect(c.byRoute).toEqual({
      'get /api/v1/nodes/{name} (machine-config-daemon)': 2,
      'patch /api/v1/nodes/{name} (keelson-kube)': 1,
    });
    expect(c.update).toEqual({
      total: 2,
      byVerb: { get: 1, patch: 1 },
      byRoute: {
        'get /api/v1/nodes/{name} (machine-config-daemon)': 1,
        'patch /api/v1/nodes/{name} (keelson-kube)': 1,
      },
    });
    expect(c.total).toBe(3);
  });
});
