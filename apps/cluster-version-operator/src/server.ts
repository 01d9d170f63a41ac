/**
 * The metrics and health endpoint (`--listen`, default 0.0.0.0:9099): `/metrics`, `/healthz`, `/readyz`. With a
 * serving certificate it is HTTPS and `/metrics` needs a client certificate as upstream release-4.20
 * (openshift/cluster-version-operator `pkg/cvo/metrics.go` `RunMetrics`, `authHandler`): trusted by the cluster's
 * client CA (authentication) and with the Common Name of Prometheus' service account (authorization). The serving
 * certificate and the client CA are reloaded when they change. The server itself is `@keelson/kube`'s health server,
 * run by the operator's Manager (`operator/start.ts`); this module holds the flag parsing and the client checks.
 */
import { TLSSocket } from 'node:tls';
import { parseListenFlag } from '@keelson/kube';
import { CvoError } from './errors.js';

/** Parses `host:port` (IPv6 in brackets; `@keelson/kube` `parseListenFlag`; an empty host is every interface). */
export function parseListen(listen: string): { host: string; port: number } {
  try {
    return parseListenFlag('--listen', listen, '');
  } catch (e) {
    throw new CvoError(
      'InvalidFlag',
      '--listen',
      `--listen ${JSON.stringify(listen)}: expected HOST:PORT, e.g. 0.0.0.0:9099`,
      { cause: e },
    );
  }
}

/** The Common Name allowed to read `/metrics` (upstream `metricsAllowedClientCommonName`). */
export const METRICS_ALLOWED_CLIENT_CN = 'system:serviceaccount:openshift-monitoring:prometheus-k8s';

/** Client-certificate checks of `/metrics` over HTTPS (upstream `MetricsOptions.Disable{Authentication,Authorization}`). */
export interface MetricsAuth {
  authentication: boolean;
  authorization: boolean;
  /** The client CA bundle (PEM), undefined while unknown. */
  clientCA(): string | undefined;
  /** Registers a callback for client CA changes. */
  onClientCAChange?(f: () => void): void;
}

/** Upstream `authHandler.ServeHTTP`: undefined when allowed, else the HTTP error to send. */
export function checkClient(
  socket: TLSSocket | undefined,
  auth: Pick<MetricsAuth, 'authentication' | 'authorization' | 'clientCA'>,
): { code: number; message: string } | undefined {
  if (!auth.authentication && !auth.authorization) return undefined;
  const peer = socket?.getPeerCertificate();
  if (!peer || Object.keys(peer).length === 0) return { code: 401, message: 'client certificate required' };
  if (auth.authentication) {
    if (auth.clientCA() === undefined) return { code: 500, message: 'internal server error' };
    if (!socket?.authorized) return { code: 401, message: 'client certificate not trusted' };
  }
  if (auth.authorization) {
    const raw = (peer.subject as Record<string, string | string[] | undefined> | undefined)?.['CN'];
    const cn = Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? '');
    if (cn !== METRICS_ALLOWED_CLIENT_CN) return { code: 403, message: `unauthorized common name: ${cn}` };
  }
  return undefined;
}
