import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
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

describe('health and metrics server over HTTPS', () => {
  it('serves TLS with the given pair, reloads it on change and lets authorizeMetrics guard /metrics only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-health-tls-'));
    const pair = (cn: string): void => {
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${cn}`].concat([
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          'tls.key',
          '-out',
          'tls.crt',
        ]),
        { cwd: dir, stdio: 'pipe' },
      );
    };
    try {
      pair('first');
      let allow = false;
      server = await startHealthServer({
        port: 0,
        host: '0.0.0.0',
        tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
        authorizeMetrics: () => (allow ? undefined : { code: 403, message: 'forbidden' }),
      });
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const get = (path: string): Promise<{ status: number; body: string; cn: string }> =>
        new Promise((resolve, reject) => {
          const req = https.get(`${server?.url ?? ''}${path}`, { rejectUnauthorized: false, agent: false }, (res) => {
            const socket = res.socket;
            const cert = socket instanceof TLSSocket ? socket.getPeerCertificate() : undefined;
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => {
              resolve({ status: res.statusCode ?? 0, body, cn: String(cert?.subject.CN) });
            });
          });
          req.on('error', reject);
        });
      expect(await get('/healthz')).toEqual({ status: 200, body: 'ok', cn: 'first' });
      expect(await get('/metrics')).toMatchObject({ status: 403, body: 'forbidden\n' });
      allow = true;
      expect((await get('/metrics')).status).toBe(200);
      pair('second');
      const end = Date.now() + 10_000;
      while ((await get('/healthz')).cn !== 'second' && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect((await get('/healthz')).cn).toBe('second');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
