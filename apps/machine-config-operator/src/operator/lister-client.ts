/**
 * Upstream's operator reads the RenderConfig inputs from listers (openshift/machine-config-operator pkg/operator
 * `clusterCmLister`), not from the API server on every sync. {@link listerBackedClient} gives the readers of
 * render-inputs.ts / ca-bundles.ts a client whose ConfigMap GETs in the watched namespaces are answered from the
 * informers' stores once they have synced (a missing ConfigMap is the API server's 404); every other request, and
 * every request before the informer synced, goes to the API server.
 */
import { KubeApiError, type Informer, type KubeClient } from '@keelson/kube';
import type { ConfigMap } from '../common/api-types.js';

const CONFIGMAP_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/?]+)$/;

function notFound(path: string, name: string): KubeApiError {
  return new KubeApiError('GET', path, 404, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: `configmaps "${name}" not found`,
    reason: 'NotFound',
    details: { name, kind: 'configmaps' },
    code: 404,
  });
}

/** `client` with ConfigMap GETs of the namespaces of `informers` (namespace → informer) read from their stores. */
export function listerBackedClient(
  client: KubeClient,
  informers: ReadonlyMap<string, Informer<ConfigMap>>,
): KubeClient {
  const request = async (method: string, path: string, ...rest: unknown[]): Promise<unknown> => {
    const m = method === 'GET' ? CONFIGMAP_PATH.exec(path) : null;
    const inf = m === null ? undefined : informers.get(m[1] ?? '');
    if (m === null || inf === undefined || !inf.hasSynced()) {
      return (client.request as (...a: unknown[]) => Promise<unknown>).call(client, method, path, ...rest);
    }
    const name = decodeURIComponent(m[2] ?? '');
    const cm = inf.store.get(name, m[1]);
    if (cm === undefined) throw notFound(path, name);
    return structuredClone(cm);
  };
  return new Proxy(client, {
    get(target, prop, receiver): unknown {
      return prop === 'request' ? request : (Reflect.get(target, prop, receiver) as unknown);
    },
  });
}
