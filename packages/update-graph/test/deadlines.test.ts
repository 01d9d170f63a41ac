/**
 * Connect and idle deadlines of the update-service client (defaults 30 s like oc): an upstream that never completes
 * the TLS connection, and one that accepts the request and never answers, fail on their deadline, not after the
 * overall request timeout. Real sockets on loopback.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpdateGraphClient, UpdateGraphError } from '../src/index.js';

const servers: Server[] = [];
const sockets = new Set<Socket>();

async function silentServer(): Promise<number> {
  const s = createServer((c) => {
    sockets.add(c);
    c.on('close', () => sockets.delete(c));
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as AddressInfo).port;
}

afterEach(async () => {
  for (const c of sockets) c.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('update-service client deadlines', () => {
  it('fails on the connect deadline when the TLS connection is never established', async () => {
    const port = await silentServer();
    const client = new UpdateGraphClient({ connectTimeoutMs: 300, timeoutMs: 60_000 });
    const t = Date.now();
    try {
      const err = await client
        .fetchGraph({
          upstream: `https://127.0.0.1:${port}/graph`,
          channel: 'stable-4.18',
          version: '4.18.1',
          arch: 'amd64',
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpdateGraphError);
      expect((err as Error).message).toMatch(/Connect Timeout Error|UND_ERR_CONNECT_TIMEOUT/);
      expect(Date.now() - t).toBeLessThan(20_000);
    } finally {
      await client.close();
    }
  });

  it('fails on the idle deadline when the upstream never answers', async () => {
    const port = await silentServer();
    const client = new UpdateGraphClient({ idleTimeoutMs: 300, timeoutMs: 60_000 });
    const t = Date.now();
    try {
      const err = await client
        .fetchGraph({
          upstream: `http://127.0.0.1:${port}/graph`,
          channel: 'stable-4.18',
          version: '4.18.1',
          arch: 'amd64',
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpdateGraphError);
      expect((err as Error).message).toMatch(/Headers Timeout Error|UND_ERR_HEADERS_TIMEOUT/);
      expect(Date.now() - t).toBeLessThan(20_000);
    } finally {
      await client.close();
    }
  });
});
