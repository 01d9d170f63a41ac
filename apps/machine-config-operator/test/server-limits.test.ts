/**
 * machine-config-server connection limits (issue 24 §4): connections that send nothing, that stop in the middle of
 * their headers, or that idle after a kept-alive request are closed; connections beyond the cap are closed at once.
 * Real listeners on loopback with short limits; raw TCP/TLS clients.
 */
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTls } from '@keelson/kube-sandbox';
import { startMachineConfigServer, type MachineConfigServer } from '../src/server/server.js';

const LIMITS = {
  headersTimeoutMs: 400,
  requestTimeoutMs: 800,
  keepAliveTimeoutMs: 300,
  idleTimeoutMs: 600,
  handshakeTimeoutMs: 400,
  maxConnections: 40,
};

/** Opens a TCP connection and resolves with the socket and a promise of its close (with what it received). */
function open(url: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    let got = '';
    socket.on('data', (b: Buffer) => (got += b.toString()));
    const closed = new Promise<string>((r) =>
      socket.once('close', () => {
        r(got);
      }),
    );
    socket.once('error', () => undefined);
    socket.once('connect', () => {
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, rej) =>
      setTimeout(() => {
        rej(new Error(`${what} still open after ${ms} ms`));
      }, ms),
    ),
  ]);

describe('machine-config-server connection limits', () => {
  let dir: string;
  let mcs: MachineConfigServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcs-limits-'));
    const tls = await generateTls();
    writeFileSync(join(dir, 'tls.crt'), tls.serverCert);
    writeFileSync(join(dir, 'tls.key'), tls.serverKey);
    mcs = await startMachineConfigServer({
      bootstrap: true,
      bootstrapDir: dir,
      noKubeconfig: true,
      apiserverURL: 'https://api.example:6443',
      cert: join(dir, 'tls.crt'),
      key: join(dir, 'tls.key'),
      securePort: 0,
      insecurePort: 0,
      host: '127.0.0.1',
      limits: LIMITS,
    });
  });
  afterAll(async () => {
    await mcs.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('closes connections that send nothing (plain and TLS listeners)', async () => {
    const idle = await Promise.all(Array.from({ length: 30 }, () => open(mcs.insecureUrl ?? '')));
    const idleTls = await Promise.all(Array.from({ length: 5 }, () => open(mcs.secureUrl ?? '')));
    await within(Promise.all([...idle, ...idleTls].map((c) => c.closed)), 5000, 'idle connections');
  });

  it('closes a connection that stops in the middle of its headers', async () => {
    const c = await open(mcs.insecureUrl ?? '');
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const tick = setInterval(() => c.socket.write('X-Slow: 1\r\n'), 100); // keeps the socket busy, never ends
    try {
      const got = await within(c.closed, 5000, 'slow-header connection');
      expect(got).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(tick);
    }
  });

  it('closes a kept-alive connection idle after its request', async () => {
    const c = await open(mcs.insecureUrl ?? '');
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    const got = await within(c.closed, 5000, 'kept-alive connection');
    expect(got).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('closes a TLS client that never completes its handshake', async () => {
    const c = await open(mcs.secureUrl ?? '');
    c.socket.write(Buffer.from([0x16, 0x03, 0x01])); // the start of a ClientHello, nothing more
    await within(c.closed, 5000, 'half-handshake connection');
  });

  it('serves a real TLS client and caps the number of connections', async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.maxConnections }, () => open(mcs.insecureUrl ?? '')));
    const extra = await open(mcs.insecureUrl ?? '');
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await within(extra.closed, 2000, 'connection over the cap')).toBe('');
    for (const h of held) h.socket.destroy();
    const u = new URL(mcs.secureUrl ?? '');
    const t = tlsConnect({ port: Number(u.port), host: u.hostname, rejectUnauthorized: false });
    const answer = await new Promise<string>((resolve, reject) => {
      let got = '';
      t.on('data', (b: Buffer) => (got += b.toString()));
      t.once('secureConnect', () => t.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      t.once('close', () => {
        resolve(got);
      });
      t.once('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
