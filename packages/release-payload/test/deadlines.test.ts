/**
 * Network deadlines of the registry client: a registry that never completes the connection fails within the connect
 * deadline and is not retried; one that goes silent fails on the idle deadline; retries are announced through onRetry.
 * Real sockets on loopback.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readRegistryImage, PayloadError, type RetryInfo } from '../src/index.js';

const servers: (Server | HttpServer)[] = [];
const sockets = new Set<Socket>();

async function listen(s: Server | HttpServer): Promise<number> {
  servers.push(s);
  s.on('connection', (c: Socket) => {
    sockets.add(c);
    c.on('close', () => sockets.delete(c));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as AddressInfo).port;
}

afterEach(async () => {
  for (const c of sockets) c.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('registry deadlines', () => {
  it('fails a registry that never completes the (TLS) connection within the connect deadline, without retrying', async () => {
    // accepts TCP but never answers the TLS ClientHello: the connection is never established
    const port = await listen(createServer(() => undefined));
    const retries: RetryInfo[] = [];
    const t = Date.now();
    const err = await readRegistryImage(`127.0.0.1:${port}/ocp/release:1`, {
      connectTimeoutMs: 300,
      idleTimeoutMs: 60_000,
      onRetry: (r) => retries.push(r),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^no connection to 127\\.0\\.0\\.1:${port} within 0\\.3 s: is the registry reachable \\(proxy, firewall, address\\)\\? --timeout raises the deadline$`,
      ),
    );
    expect(retries).toEqual([]);
    expect(Date.now() - t).toBeLessThan(20_000);
  });

  it('fails a registry that goes silent on the idle deadline, announcing each retry', async () => {
    const port = await listen(createServer(() => undefined)); // reads the request, never answers
    const retries: RetryInfo[] = [];
    const err = await readRegistryImage(`127.0.0.1:${port}/ocp/release:1`, {
      plainHttp: true,
      idleTimeoutMs: 200,
      retries: 2,
      onRetry: (r) => retries.push(r),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadError);
    expect((err as Error).message).toBe(
      `request to http://127.0.0.1:${port}/v2/ocp/release/manifests/1 failed after 2 attempts: 127.0.0.1:${port} sent nothing for 0.2 s`,
    );
    expect(retries).toEqual([
      {
        url: `http://127.0.0.1:${port}/v2/ocp/release/manifests/1`,
        attempt: 2,
        attempts: 2,
        reason: `127.0.0.1:${port} sent nothing for 0.2 s`,
        delayMs: 100,
      },
    ]);
  });

  it('announces retries on 5xx with the status', async () => {
    let n = 0;
    const port = await listen(
      createHttpServer((_req, res) => {
        n += 1;
        res.writeHead(n <= 2 ? 503 : 404).end();
      }),
    );
    const retries: RetryInfo[] = [];
    const err = await readRegistryImage(`127.0.0.1:${port}/ocp/release:1`, {
      plainHttp: true,
      onRetry: (r) => retries.push(r),
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/HTTP 404 \(no such image, tag or blob\)$/);
    expect(retries.map((r) => [r.attempt, r.reason, r.delayMs])).toEqual([
      [2, 'HTTP 503', 100],
      [3, 'HTTP 503', 400],
    ]);
  });
});
