/**
 * startMachineConfigServer: the two listeners of the MCS with the same handler — HTTPS (default :22623, certificate
 * and key files re-read when they change) and plain HTTP (default :22624) — in cluster or bootstrap mode.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeClient, Registry, nullLogger, type Logger } from '@keelson/kube';
import { clientFrom } from '../common/runtime.js';
import { Counter } from 'prom-client';
import { kubeconfigFromSecretDir, BOOTSTRAP_TOKEN_DIR } from './kubeconfig.js';
import { handleRequest } from './handler.js';
import { applyServerLimits, DEFAULT_SERVER_LIMITS, httpServerOptions, type ServerLimits } from './limits.js';
import { ServedConfigCache } from './serve-config.js';
import { BootstrapConfigSource, ClusterConfigSource, type ConfigSource } from './source.js';

/** Upstream ports. */
export const SECURE_PORT = 22623;
export const INSECURE_PORT = 22624;

/** Options of {@link startMachineConfigServer}. */
export interface MachineConfigServerOptions {
  /** Kubeconfig file (cluster mode; default: KUBECONFIG / in-cluster). */
  readonly kubeconfig?: string;
  /** Or a ready client. */
  readonly client?: KubeClient;
  /** API server URL written into the node kubeconfig (`--apiserver-url`). */
  readonly apiserverURL: string;
  /** TLS certificate and key files (`--cert`, `--key`); without them no HTTPS listener is started. */
  readonly cert?: string;
  readonly key?: string;
  /** Ports (0 = any free port); `null` disables a listener. */
  readonly securePort?: number | null;
  readonly insecurePort?: number | null;
  /** Listen address (default all interfaces; tests use 127.0.0.1). */
  readonly host?: string;
  /** Bootstrap mode: serve master/arbiter from this directory (default /etc/mcs/bootstrap). */
  readonly bootstrapDir?: string;
  readonly bootstrap?: boolean;
  /** Directory with the node-bootstrapper `token` and `ca.crt` (default /etc/mcs/bootstrap-token). */
  readonly bootstrapTokenDir?: string;
  /** Do not append /etc/kubernetes/kubeconfig (no token directory). */
  readonly noKubeconfig?: boolean;
  readonly logger?: Logger;
  readonly registry?: Registry;
  /** Connection limits of both listeners (timeouts, connection cap); unset fields keep DEFAULT_SERVER_LIMITS. */
  readonly limits?: Partial<ServerLimits>;
}

/** A running machine-config-server. */
export interface MachineConfigServer {
  /** `https://host:port` when HTTPS is on. */
  readonly secureUrl: string | undefined;
  /** `http://host:port` when HTTP is on. */
  readonly insecureUrl: string | undefined;
  /** Cache statistics. */
  readonly cache: ServedConfigCache;
  stop(): Promise<void>;
}

function listen(server: Server | HttpsServer, port: number, host: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server | HttpsServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}

/** Starts the server (the sources are synced before listening). */
export async function startMachineConfigServer(opts: MachineConfigServerOptions): Promise<MachineConfigServer> {
  const logger = opts.logger ?? nullLogger;
  let ownClient: KubeClient | undefined;
  let source: ConfigSource;
  const cache = new ServedConfigCache();
  if (opts.bootstrap === true) source = new BootstrapConfigSource(opts.bootstrapDir);
  else {
    let client = opts.client;
    if (!client) {
      ownClient = clientFrom(opts.kubeconfig, { userAgent: 'machine-config-server' });
      client = ownClient;
    }
    source = new ClusterConfigSource(client, logger, {
      pool: (name) => {
        cache.dropPool(name);
      },
      all: () => {
        cache.clear();
      },
    });
  }
  await source.start();
  const registry = opts.registry ?? new Registry();
  const requests = new Counter({
    name: 'mcs_requests_total',
    help: 'Requests served by the machine-config-server by HTTP code',
    labelNames: ['code'],
    registers: [registry],
  });
  const tokenDir = opts.bootstrapTokenDir ?? BOOTSTRAP_TOKEN_DIR;
  const handlerOpts = {
    source,
    cache,
    logger,
    onRequest: (code: number) => {
      requests.inc({ code: String(code) });
    },
    ...(opts.noKubeconfig === true
      ? {}
      : { kubeconfig: (ca: Buffer | undefined) => kubeconfigFromSecretDir(tokenDir, opts.apiserverURL, ca) }),
  };
  const handler = (req: Parameters<typeof handleRequest>[1], res: Parameters<typeof handleRequest>[2]): void =>
    void handleRequest(handlerOpts, req, res);
  const servers: (Server | HttpsServer)[] = [];
  const watchers: FSWatcher[] = [];
  let secureUrl: string | undefined;
  let insecureUrl: string | undefined;
  const host = opts.host;
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...opts.limits };
  const shown = host === undefined || host === '' || host === '0.0.0.0' ? '127.0.0.1' : host;
  if (opts.securePort !== null && opts.cert !== undefined && opts.key !== undefined) {
    const certFile = opts.cert;
    const keyFile = opts.key;
    const https = createHttpsServer(
      {
        cert: await readFile(certFile),
        key: await readFile(keyFile),
        handshakeTimeout: limits.handshakeTimeoutMs,
        ...httpServerOptions(limits),
      },
      handler,
    );
    applyServerLimits(https, limits);
    const reload = (): void => {
      void Promise.all([readFile(certFile), readFile(keyFile)])
        .then(([cert, key]) => {
          https.setSecureContext({ cert, key });
        })
        .catch((e: unknown) => {
          logger.error('could not reload serving certificate', { error: (e as Error).message });
        });
    };
    for (const f of [certFile, keyFile]) watchers.push(watch(f, reload));
    servers.push(https);
    const port = await listen(https, opts.securePort ?? SECURE_PORT, host);
    secureUrl = `https://${shown}:${port}`;
    logger.info('Launching server', { url: secureUrl });
  }
  if (opts.insecurePort !== null) {
    const http = createHttpServer(httpServerOptions(limits), handler);
    applyServerLimits(http, limits);
    servers.push(http);
    const port = await listen(http, opts.insecurePort ?? INSECURE_PORT, host);
    insecureUrl = `http://${shown}:${port}`;
    logger.info('Launching server', { url: insecureUrl });
  }
  return {
    secureUrl,
    insecureUrl,
    cache,
    async stop() {
      for (const w of watchers) w.close();
      await Promise.all(servers.map(close));
      await source.stop();
      await ownClient?.close();
    },
  };
}
