/**
 * Connection limits of the machine-config-server's listeners. Upstream (openshift/machine-config-operator
 * pkg/server/api.go, APIServer.Serve) runs Go's http.Server without timeouts; a server on port 22623 that every node
 * (and anything else on the machine network) can reach must not keep a connection that sends nothing forever, so
 * each listener bounds: the TLS handshake, the request headers, the whole request, idle keep-alive connections,
 * sockets without any traffic, and the number of open connections.
 */
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';

/** Limits of one listener (milliseconds and counts). */
export interface ServerLimits {
  /** Time to receive the complete request headers (Node `headersTimeout`). */
  readonly headersTimeoutMs: number;
  /** Time to receive the complete request (Node `requestTimeout`). */
  readonly requestTimeoutMs: number;
  /** Idle time of a kept-alive connection between requests (Node `keepAliveTimeout`). */
  readonly keepAliveTimeoutMs: number;
  /** A socket without any traffic in either direction for this long is closed (covers connections sending nothing). */
  readonly idleTimeoutMs: number;
  /** Time to complete the TLS handshake (HTTPS listener). */
  readonly handshakeTimeoutMs: number;
  /** Open connections per listener; connections beyond are closed at once. */
  readonly maxConnections: number;
}

/**
 * Defaults: an Ignition fetch is one short GET answered with at most a few MB, so a client gets 10 s for its
 * headers and 30 s for its request; kept-alive connections are closed after 5 s idle, silent sockets after 30 s.
 */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  handshakeTimeoutMs: 10_000,
  maxConnections: 4096,
};

/** Options of `node:http` createServer for these limits (the interval at which Node checks the request timers). */
export function httpServerOptions(l: ServerLimits): {
  keepAlive: true;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    keepAlive: true,
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(l.headersTimeoutMs / 4))),
  };
}

/** Applies the socket-level limits (idle timeout, connection cap) to a listener. */
export function applyServerLimits(server: Server | HttpsServer, l: ServerLimits): void {
  server.maxConnections = l.maxConnections;
  // Node's server.timeout: a socket with no activity for this long emits 'timeout'; without a listener of ours the
  // server destroys it
  server.setTimeout(l.idleTimeoutMs);
}
