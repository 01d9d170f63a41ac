/**
 * startMachineConfigServer: the two listeners of the MCS with the same handler — HTTPS (default :22623, certificate
 * and key files re-read when they change) and plain HTTP (default :22624) — in cluster or bootstrap mode, on the
 * `@keelson/kube` Manager as the other MCO processes.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { aborted, Manager, Registry, nullLogger, type KubeClient, type Logger } from '@keelson/kube';
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

function closeServer(server: Server | HttpsServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}

/**
 * The process's `@keelson/kube` Manager and the config source: in cluster mode the source reads the Manager's shared
 * informers (a given client stays open on stop, one made here is closed); bootstrap mode has no client.
 */
function managerAndSource(
  opts: MachineConfigServerOptions,
  logger: Logger,
  cache: ServedConfigCache,
): { mgr: Manager; source: ConfigSource } {
  if (opts.bootstrap === true)
    return { mgr: new Manager({ logger, health: false }), source: new BootstrapConfigSource(opts.bootstrapDir) };
  const client = opts.client ?? clientFrom(opts.kubeconfig, { userAgent: 'machine-config-server' });
  const mgr = new Manager({ client, closeClient: opts.client === undefined, logger, health: false });
  const source = new ClusterConfigSource(mgr, {
    pool: (name) => {
      cache.dropPool(name);
    },
    all: () => {
      cache.clear();
    },
  });
  return { mgr, source };
}

/**
 * Starts the server on a `@keelson/kube` Manager (no Lease: every control-plane node serves, as upstream's DaemonSet):
 * the informers start and sync before listening; the listeners are a runnable, so stop() closes them first, then the
 * informers, then the client.
 */
export async function startMachineConfigServer(opts: MachineConfigServerOptions): Promise<MachineConfigServer> {
  const logger = opts.logger ?? nullLogger;
  const cache = new ServedConfigCache();
  const { mgr, source } = managerAndSource(opts, logger, cache);
  let listeners: Listeners;
  try {
    await mgr.start();
    await source.start();
    listeners = await startListeners(opts, logger, handlerFor(opts, source, cache, logger));
  } catch (e) {
    await source.stop();
    await mgr.stop();
    throw e;
  }
  mgr.add({
    name: 'listeners',
    needLeaderElection: false,
    start: async (signal) => {
      await aborted(signal);
      await listeners.close();
      await source.stop();
    },
  });
  return {
    secureUrl: listeners.secureUrl,
    insecureUrl: listeners.insecureUrl,
    cache,
    stop: () => mgr.stop(),
  };
}

type Handler = (req: Parameters<typeof handleRequest>[1], res: Parameters<typeof handleRequest>[2]) => void;

/** The request handler of both listeners, counting `mcs_requests_total` by code. */
function handlerFor(
  opts: MachineConfigServerOptions,
  source: ConfigSource,
  cache: ServedConfigCache,
  logger: Logger,
): Handler {
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
  return (req, res) => void handleRequest(handlerOpts, req, res);
}

interface Listeners {
  readonly secureUrl: string | undefined;
  readonly insecureUrl: string | undefined;
  close(): Promise<void>;
}

/** Creates the HTTPS listener whose certificate and key are re-read when their files change. */
async function secureListener(
  certFile: string,
  keyFile: string,
  limits: ServerLimits,
  handler: Handler,
  logger: Logger,
  watchers: FSWatcher[],
): Promise<HttpsServer> {
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
        logger.error('could not reload serving certificate', { err: e });
      });
  };
  for (const f of [certFile, keyFile]) watchers.push(watch(f, reload));
  return https;
}

/** Opens the HTTPS (when a certificate is given) and HTTP listeners; a failure closes what was opened. */
async function startListeners(opts: MachineConfigServerOptions, logger: Logger, handler: Handler): Promise<Listeners> {
  const servers: (Server | HttpsServer)[] = [];
  const watchers: FSWatcher[] = [];
  const close = async (): Promise<void> => {
    for (const w of watchers) w.close();
    await Promise.all(servers.map(closeServer));
  };
  let secureUrl: string | undefined;
  let insecureUrl: string | undefined;
  const host = opts.host;
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...opts.limits };
  const shown = host === undefined || host === '' || host === '0.0.0.0' ? '127.0.0.1' : host;
  try {
    if (opts.securePort !== null && opts.cert !== undefined && opts.key !== undefined) {
      const https = await secureListener(opts.cert, opts.key, limits, handler, logger, watchers);
      servers.push(https);
      secureUrl = `https://${shown}:${await listen(https, opts.securePort ?? SECURE_PORT, host)}`;
      logger.info('Launching server', { url: secureUrl });
    }
    if (opts.insecurePort !== null) {
      const http = createHttpServer(httpServerOptions(limits), handler);
      applyServerLimits(http, limits);
      servers.push(http);
      insecureUrl = `http://${shown}:${await listen(http, opts.insecurePort ?? INSECURE_PORT, host)}`;
      logger.info('Launching server', { url: insecureUrl });
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { secureUrl, insecureUrl, close };
}
