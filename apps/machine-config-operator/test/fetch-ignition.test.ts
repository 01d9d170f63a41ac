/**
 * A virtual machine's first-boot Ignition fetch against a real loopback HTTP server: retried like Ignition (5xx and
 * connection errors forever, well past the former 30-attempt limit), a 4xx fails the boot at once, and the machine's
 * abort signal ends the wait.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  decideIgnitionRetry,
  fetchIgnition,
  IGNITION_ACCEPT,
  IgnitionFetchError,
} from '../src/virtual/fetch-ignition.js';

let server: Server | undefined;

/** A server answering `answer(n)` to its n-th request (0-based); resolves its base URL. */
async function serve(answer: (n: number) => { status: number; body?: string }, seen: string[] = []): Promise<string> {
  let n = 0;
  server = createServer((req, res) => {
    seen.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.accept ?? ''}`);
    const a = answer(n++);
    res.writeHead(a.status, { 'Content-Type': 'application/json' });
    res.end(a.body ?? '');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s !== undefined) await new Promise((resolve) => s.close(resolve));
});

describe('decideIgnitionRetry', () => {
  it('retries network errors and 5xx, is done on 200, fails on anything else', () => {
    expect(decideIgnitionRetry(200)).toBe('done');
    expect(decideIgnitionRetry(undefined)).toBe('retry');
    expect(decideIgnitionRetry(500)).toBe('retry');
    expect(decideIgnitionRetry(503)).toBe('retry');
    expect(decideIgnitionRetry(404)).toBe('fail');
    expect(decideIgnitionRetry(403)).toBe('fail');
  });
});

describe('fetchIgnition', () => {
  it('keeps retrying HTTP 500 past 30 attempts until the server answers', async () => {
    const seen: string[] = [];
    const url = await serve(
      (n) => (n < 45 ? { status: 500 } : { status: 200, body: '{"ignition":{"version":"3.5.0"}}' }),
      seen,
    );
    const body = await fetchIgnition(url, 'worker', { delayMs: 1, maxDelayMs: 2 });
    expect(body).toBe('{"ignition":{"version":"3.5.0"}}');
    expect(seen).toHaveLength(46);
    expect(seen[0]).toBe(`GET /config/worker ${IGNITION_ACCEPT}`);
  });

  it('retries a server that is not listening yet', async () => {
    // reserve a port, close it, then start answering on it after a few refused attempts
    const url = await serve(() => ({ status: 200, body: 'late' }));
    const port = Number(new URL(url).port);
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    const pending = fetchIgnition(url, 'master', { delayMs: 5, maxDelayMs: 20 });
    await new Promise((r) => setTimeout(r, 150));
    server = createServer((_req, res) => res.end('late'));
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
    await expect(pending).resolves.toBe('late');
  });

  it('fails at once on a 4xx, as Ignition fails the boot', async () => {
    const seen: string[] = [];
    const url = await serve(() => ({ status: 404 }), seen);
    const err = await fetchIgnition(url, 'nope', { delayMs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IgnitionFetchError);
    expect((err as IgnitionFetchError).code).toBe('VIRTUAL_IGNITION_FETCH');
    expect((err as Error).message).toContain('HTTP 404');
    expect(seen).toHaveLength(1);
  });

  it('stops when the machine is stopped (abort signal)', async () => {
    const url = await serve(() => ({ status: 500 }));
    const ac = new AbortController();
    const pending = fetchIgnition(url, 'worker', { delayMs: 20, maxDelayMs: 50, signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await expect(pending).rejects.toThrow(/machine was stopped/);
  });

  it('honours an explicit attempt bound', async () => {
    const url = await serve(() => ({ status: 503 }));
    await expect(fetchIgnition(url, 'worker', { delayMs: 1, attempts: 3 })).rejects.toThrow(
      /gave up after 3 attempts\): GET .* HTTP 503/,
    );
  });
});
