/**
 * Load generator for bench/server.bench.ts, run as a child process (`node bench/server-load.ts`, Node ≥ 23 strips the
 * types): opens CONNECTIONS keep-alive TLS sockets to the server and, on each, sends GET requests one after the other
 * (one in flight per socket, like a keep-alive HTTP/1.1 client) for DURATION_MS. Responses are parsed just enough
 * to be checked (status 200, Content-Length body fully read) so that the client costs far less per request than
 * the server it measures. Prints one JSON line: requests, elapsed ms, errors, bytes, and a latency sample.
 *
 * Input (environment): MCS_URL (https://host:port), MCS_PATH, MCS_ACCEPT, MCS_CA (PEM file), MCS_CONNECTIONS,
 * MCS_DURATION_MS.
 */
import { readFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';

const url = new URL(process.env['MCS_URL'] ?? 'https://127.0.0.1:22623');
const path = process.env['MCS_PATH'] ?? '/config/worker';
const accept = process.env['MCS_ACCEPT'] ?? 'application/vnd.coreos.ignition+json;version=3.5.0';
const ca = readFileSync(process.env['MCS_CA'] ?? 'ca.crt');
const connections = Number(process.env['MCS_CONNECTIONS'] ?? '16');
const durationMs = Number(process.env['MCS_DURATION_MS'] ?? '3000');

const request = Buffer.from(
  `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: ${accept}\r\nUser-Agent: keelson-mcs-bench\r\n\r\n`,
);
const HEADER_END = Buffer.from('\r\n\r\n');

interface Totals {
  requests: number;
  errors: number;
  bytes: number;
  latencies: number[];
}
const totals: Totals = { requests: 0, errors: 0, bytes: 0, latencies: [] };

/** Runs one keep-alive connection until `deadline`; resolves when it closed. */
function runConnection(deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const socket: TLSSocket = connect({ host: url.hostname, port: Number(url.port), ca, servername: 'localhost' });
    let pending: Buffer = Buffer.alloc(0);
    let bodyLeft = -1; // -1: reading headers
    let sentAt = 0;
    const send = (): void => {
      if (performance.now() >= deadline) {
        socket.end();
        return;
      }
      sentAt = performance.now();
      socket.write(request);
    };
    const finishResponse = (): void => {
      totals.requests++;
      // keep a bounded sample (every 8th) of latencies for the percentiles
      if ((totals.requests & 7) === 0) totals.latencies.push(performance.now() - sentAt);
      send();
    };
    socket.on('secureConnect', send);
    socket.on('data', (chunk: Buffer) => {
      totals.bytes += chunk.length;
      if (bodyLeft > 0) {
        if (chunk.length < bodyLeft) {
          bodyLeft -= chunk.length;
          return;
        }
        chunk = chunk.subarray(bodyLeft);
        bodyLeft = -1;
        finishResponse();
        if (chunk.length === 0) return;
      }
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const end = pending.indexOf(HEADER_END);
      if (end < 0) return;
      const head = pending.toString('latin1', 0, end);
      const status = head.slice(9, 12);
      const m = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (status !== '200' || m?.[1] === undefined) {
        totals.errors++;
        socket.destroy();
        return;
      }
      const length = Number(m[1]);
      const have = pending.length - end - 4;
      pending = Buffer.alloc(0);
      if (have >= length) finishResponse();
      else bodyLeft = length - have;
    });
    socket.on('error', () => {
      totals.errors++;
    });
    socket.on('close', () => {
      resolve();
    });
  });
}

const t0 = performance.now();
const deadline = t0 + durationMs;
await Promise.all(Array.from({ length: connections }, () => runConnection(deadline)));
const elapsed = performance.now() - t0;
process.stdout.write(
  JSON.stringify({
    requests: totals.requests,
    ms: elapsed,
    errors: totals.errors,
    bytes: totals.bytes,
    latencies: totals.latencies,
  }) + '\n',
);
