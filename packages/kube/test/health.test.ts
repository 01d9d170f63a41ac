import { afterEach, describe, expect, it } from 'vitest';
import { Registry, WorkQueue, startHealthServer, type HealthServer } from '../src/index.js';

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('health and metrics server (real HTTP on 127.0.0.1)', () => {
  it('serves /healthz, /readyz with checks and /metrics from the registry', async () => {
    const registry = new Registry();
    const q = new WorkQueue<string>({ name: 'demo', registry });
    q.add('x');
    let ready = false;
    server = await startHealthServer({ registry, readyChecks: { informers: () => ready } });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    let r = await fetch(`${server.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('ok');

    r = await fetch(`${server.url}/readyz`);
    expect(r.status).toBe(500);
    expect(await r.text()).toBe('[+]ping ok\n[-]informers failed\nreadyz check failed\n');

    ready = true;
    r = await fetch(`${server.url}/readyz?verbose`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('[+]ping ok\n[+]informers ok\nreadyz check passed\n');

    server.addHealthCheck('leader', () => {
      throw new Error('lease expired');
    });
    r = await fetch(`${server.url}/healthz`);
    expect(r.status).toBe(500);
    expect(await r.text()).toContain('[-]leader failed: lease expired');

    r = await fetch(`${server.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(await r.text()).toContain('workqueue_depth{name="demo"} 1');

    r = await fetch(`${server.url}/nope`);
    expect(r.status).toBe(404);
    r = await fetch(`${server.url}/healthz`, { method: 'POST' });
    expect(r.status).toBe(405);
  });

  it('uses default Node metrics when no registry is given', async () => {
    server = await startHealthServer();
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('reports a typed error when the port is taken', async () => {
    server = await startHealthServer();
    await expect(startHealthServer({ port: server.port })).rejects.toMatchObject({ code: 'KUBE_INVALID_ARGUMENT' });
  });
});
