/**
 * Where conditional-update PromQL risks are evaluated: the in-cluster Thanos querier as upstream
 * (openshift/cluster-version-operator `pkg/clusterconditions/clusterconditions.go` `DefaultPromQLTarget`,
 * `pkg/clusterconditions/promql/promql.go` `NewPromQL` / `PromQL.Host`, flags in `cmd/cluster-version-operator/start.go`).
 */
import type { KubeClient } from '@keelson/kube';
import type { PromQLOptions } from '@keelson/update-graph';
import { CvoError } from '../errors.js';
import { Services } from './resources.js';

/** The PromQL target flags (`--metrics-url`, `--metrics-token-file`, …). */
export interface PromQLTarget {
  /** `--metrics-url` (default {@link DEFAULT_PROMQL_TARGET}.url). */
  url: string;
  /** `--metrics-token-file`: bearer token, re-read per query ('' = none). */
  tokenFile: string;
  /** `--metrics-ca-bundle-file`: service CA bundle, re-read per query ('' = system roots). */
  caBundleFile: string;
  /** `--use-dns-for-services`: connect to the URL's host; otherwise to the Service's ClusterIP. */
  useDNS: boolean;
  /** `--metrics-namespace` / `--metrics-service`: the Service looked up when not using DNS. */
  service: { namespace: string; name: string };
}

/** Upstream `DefaultPromQLTarget`. */
export const DEFAULT_PROMQL_TARGET: PromQLTarget = {
  url: 'https://thanos-querier.openshift-monitoring.svc.cluster.local:9091',
  tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
  caBundleFile: '/etc/tls/service-ca/service-ca.crt',
  useDNS: false,
  service: { namespace: 'openshift-monitoring', name: 'thanos-querier' },
};

/** Upstream `Options.ValidateAndComplete` for the PromQL target. */
export function validatePromQLTarget(t: PromQLTarget): void {
  if (t.url === '') throw new CvoError('InvalidFlag', '--metrics-url', 'missing --metrics-url flag, it is required');
  if (!t.useDNS && (t.service.namespace === '' || t.service.name === ''))
    throw new CvoError(
      'InvalidFlag',
      '--use-dns-for-services',
      '--use-dns-for-services is disabled, so --metrics-service and --metrics-namespace must be set',
    );
  let u: URL;
  try {
    u = new URL(t.url);
  } catch (e) {
    throw new CvoError('InvalidFlag', '--metrics-url', `error parsing promql url: ${(e as Error).message}`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new CvoError('InvalidFlag', '--metrics-url', `error parsing promql url: unsupported scheme ${u.protocol}`);
}

/** The port of a URL, defaulted by scheme (Go's `url.Port()` is empty then; the query then uses the scheme's). */
function urlPort(u: URL): string {
  return u.port !== '' ? u.port : u.protocol === 'https:' ? '443' : '80';
}

/**
 * Options of the PromQL condition for this target: without DNS, each query first reads the Service and connects to
 * `ClusterIP:<url port>` with the URL's host as TLS server name (a host-network pod cannot resolve service names
 * before the cluster DNS runs).
 */
export function promqlOptions(t: PromQLTarget, client: KubeClient): PromQLOptions {
  const u = new URL(t.url);
  const opts: PromQLOptions = {
    url: t.url,
    ...(t.tokenFile !== '' ? { tokenFile: t.tokenFile } : {}),
    ...(t.caBundleFile !== '' ? { caFile: t.caBundleFile } : {}),
  };
  if (t.useDNS) return opts;
  return {
    ...opts,
    resolveHost: async (signal) => {
      const svc = await client.resource(Services).get(t.service.name, t.service.namespace, signal);
      const ip = svc.spec?.clusterIP ?? '';
      return `${ip.includes(':') ? `[${ip}]` : ip}:${urlPort(u)}`;
    },
  };
}
