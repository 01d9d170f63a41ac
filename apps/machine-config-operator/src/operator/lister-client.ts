/**
 * Upstream's operator reads the RenderConfig inputs from listers (openshift/machine-config-operator pkg/operator
 * sync.go: `clusterCmLister` for every ConfigMap `syncRenderConfig` and `getCAsFromConfigMap` read, and
 * `clusterOperatorLister` in `getImageRegistryPullSecrets`), not from the API server on every sync.
 * {@link listerBackedClient} gives the readers of render-inputs.ts / ca-bundles.ts a client whose GETs of those
 * objects are answered from the informers' stores once they have synced (a missing object is the API server's 404);
 * every other request, and every request before the informer synced, goes to the API server.
 */
import { KubeApiError, type Informer, type KubeClient, type KubeObject } from '@keelson/kube';
import type { ClusterOperator, ConfigMap } from '../common/api-types.js';

const CONFIGMAP_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/?]+)$/;
const CLUSTER_OPERATOR_PATH = /^\/apis\/config\.openshift\.io\/v1\/clusteroperators\/([^/?]+)$/;

/** The informers {@link listerBackedClient} answers from. */
export interface ListerSources {
  /** Namespace → informer of every ConfigMap of that namespace. */
  configMaps: ReadonlyMap<string, Informer<ConfigMap>>;
  /** Name → informer watching that one ClusterOperator (`fieldSelector=metadata.name=<name>`). */
  clusterOperators?: ReadonlyMap<string, Informer<ClusterOperator>>;
}

function notFound(path: string, plural: string, name: string): KubeApiError {
  return new KubeApiError('GET', path, 404, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: `${plural} "${name}" not found`,
    reason: 'NotFound',
    details: { name, kind: plural },
    code: 404,
  });
}

/** The store read that answers `GET path`, or undefined when the API server must. */
function fromStore(sources: ListerSources, method: string, path: string): (() => KubeObject) | undefined {
  if (method !== 'GET') return undefined;
  const cm = CONFIGMAP_PATH.exec(path);
  if (cm !== null) {
    const ns = cm[1] ?? '';
    const inf = sources.configMaps.get(ns);
    if (inf === undefined || !inf.hasSynced()) return undefined;
    const name = decodeURIComponent(cm[2] ?? '');
    return () => inf.store.get(name, ns) ?? throwErr(notFound(path, 'configmaps', name));
  }
  const co = CLUSTER_OPERATOR_PATH.exec(path);
  if (co !== null) {
    const name = decodeURIComponent(co[1] ?? '');
    const inf = sources.clusterOperators?.get(name);
    if (inf === undefined || !inf.hasSynced()) return undefined;
    return () => inf.store.get(name) ?? throwErr(notFound(path, 'clusteroperators', name));
  }
  return undefined;
}

function throwErr(e: Error): never {
  throw e;
}

/** `client` with the GETs of the objects `sources` watch read from their informers' stores. */
export function listerBackedClient(client: KubeClient, sources: ListerSources): KubeClient {
  const request = async (method: string, path: string, ...rest: unknown[]): Promise<unknown> => {
    const read = fromStore(sources, method, path);
    if (read === undefined)
      return (client.request as (...a: unknown[]) => Promise<unknown>).call(client, method, path, ...rest);
    return structuredClone(read());
  };
  return new Proxy(client, {
    get(target, prop, receiver): unknown {
      return prop === 'request' ? request : (Reflect.get(target, prop, receiver) as unknown);
    },
  });
}
