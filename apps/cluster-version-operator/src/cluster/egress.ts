/**
 * The cluster's egress settings for the update service (openshift/cluster-version-operator `pkg/cvo/egress.go`
 * `getTransport`, `getProxyConfig`, `getTLSConfig`): the proxy from Proxy `cluster` status (`golang.org/x/net/http/
 * httpproxy` rules: `httpsProxy` for https targets, `httpProxy` for http ones, `noProxy` bypasses) and, as the only
 * trusted roots, ConfigMap `openshift-config-managed/trusted-ca-bundle` key `ca-bundle.crt` (the system roots merged
 * with `Proxy.spec.trustedCA` by the network operator).
 */
import { isNotFound, type KubeClient } from '@keelson/kube';
import type { HttpTransportOptions } from '@keelson/update-graph';

export const TRUSTED_CA_BUNDLE = { namespace: 'openshift-config-managed', name: 'trusted-ca-bundle' } as const;

/** Proxy `cluster` status and the trusted CA bundle, as read from the cluster. */
export interface Egress {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
  /** PEM bundle, undefined when the ConfigMap or its key is absent or empty (then the system roots). */
  ca: string | undefined;
}

async function getOrUndefined<T>(client: KubeClient, path: string, signal?: AbortSignal): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', path, signal ? { signal } : {});
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Proxy `cluster` status as the egress settings need it (undefined: no Proxy). */
export type ProxyStatusReader = (
  signal?: AbortSignal,
) => Promise<{ httpProxy?: string; httpsProxy?: string; noProxy?: string } | undefined>;

/**
 * Reads the egress settings (API errors other than NotFound are thrown, as upstream returns them). `trustedCABundle`
 * reads the ConfigMap from a watch of `openshift-config-managed` (upstream's lister); without it, it is fetched.
 * `proxyStatus` reads Proxy `cluster` from a watch (upstream `getProxyConfig` reads its proxy lister); without it, it
 * is fetched.
 */
export async function readEgress(
  client: KubeClient,
  signal?: AbortSignal,
  trustedCABundle?: () => { data?: Record<string, string> } | undefined,
  proxyStatus?: ProxyStatusReader,
): Promise<Egress> {
  const [proxy, cm] = await Promise.all([
    proxyStatus
      ? proxyStatus(signal).then((status) => (status === undefined ? undefined : { status }))
      : getOrUndefined<{ status?: { httpProxy?: string; httpsProxy?: string; noProxy?: string } }>(
          client,
          '/apis/config.openshift.io/v1/proxies/cluster',
          signal,
        ),
    trustedCABundle
      ? Promise.resolve(trustedCABundle())
      : getOrUndefined<{ data?: Record<string, string> }>(
          client,
          `/api/v1/namespaces/${TRUSTED_CA_BUNDLE.namespace}/configmaps/${TRUSTED_CA_BUNDLE.name}`,
          signal,
        ),
  ]);
  const ca = cm?.data?.['ca-bundle.crt'];
  return {
    httpProxy: proxy?.status?.httpProxy ?? '',
    httpsProxy: proxy?.status?.httpsProxy ?? '',
    noProxy: proxy?.status?.noProxy ?? '',
    ca: ca !== undefined && ca !== '' ? ca : undefined,
  };
}

/** Transport options for requests to `target` (the proxy chosen by its scheme, as httpproxy's ProxyFunc). */
export function transportFor(egress: Egress, target: string): HttpTransportOptions {
  let scheme = 'https:';
  try {
    scheme = new URL(target).protocol;
  } catch {
    // an invalid upstream fails in the graph client with its own message
  }
  const raw = scheme === 'http:' ? egress.httpProxy : egress.httpsProxy;
  const noProxy = egress.noProxy
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return {
    ...(egress.ca !== undefined ? { ca: egress.ca } : {}),
    ...(raw !== '' ? { proxy: /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}` } : {}),
    ...(raw !== '' && noProxy.length > 0 ? { noProxy } : {}),
  };
}
