/**
 * What upstream's builders change in a manifest before applying it (openshift/cluster-version-operator
 * `lib/resourcebuilder/apps.go` `modifyDeployment` / `modifyDaemonSet`, `lib/resourcebuilder/podspec.go`
 * `updatePodSpecWithProxy`, `updatePodSpecWithInternalLoadBalancerKubeService`, `setKubeServiceValue`):
 * - `config.openshift.io/inject-proxy: <container>[,<container>…]` on a Deployment or DaemonSet appends `HTTP_PROXY`,
 *   `HTTPS_PROXY` and `NO_PROXY` from Proxy `cluster` status to those containers (and init containers);
 * - the CVO's own Deployment gets `KUBERNETES_SERVICE_HOST` / `KUBERNETES_SERVICE_PORT` of the internal load balancer
 *   (Infrastructure `cluster` `status.apiServerInternalURI`), so it survives kube-apiserver rollouts on its node.
 */
import { isNotFound, type KubeClient } from '@keelson/kube';
import { isObject, type JsonObject } from './merge-core.js';

/** Annotation asking for proxy environment variables in the named containers. */
export const INJECT_PROXY_ANNOTATION = 'config.openshift.io/inject-proxy';

/** Reads Proxy and Infrastructure `cluster` (undefined when absent, as upstream tolerates NotFound). */
export interface ClusterConfigReader {
  proxyStatus(signal?: AbortSignal): Promise<{ httpProxy?: string; httpsProxy?: string; noProxy?: string } | undefined>;
  apiServerInternalURI(signal?: AbortSignal): Promise<string | undefined>;
}

/** A reader GETting the objects for each apply, as upstream's builders do. */
export function clusterConfigReader(client: KubeClient): ClusterConfigReader {
  const get = async (path: string, signal?: AbortSignal): Promise<JsonObject | undefined> => {
    try {
      return await client.request<JsonObject>('GET', path, signal ? { signal } : {});
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  return {
    proxyStatus: async (signal) => {
      const p = await get('/apis/config.openshift.io/v1/proxies/cluster', signal);
      return isObject(p?.['status']) ? p['status'] : p ? {} : undefined;
    },
    apiServerInternalURI: async (signal) => {
      const i = await get('/apis/config.openshift.io/v1/infrastructures/cluster', signal);
      if (!i) return undefined;
      const s = isObject(i['status']) ? i['status'] : {};
      return typeof s['apiServerInternalURI'] === 'string' ? s['apiServerInternalURI'] : '';
    },
  };
}

type Env = { name: string; value?: string; [k: string]: unknown };
type Container = { name?: string; env?: Env[]; [k: string]: unknown };

function podSpecOf(obj: JsonObject): { containers?: Container[]; initContainers?: Container[] } | undefined {
  const spec = isObject(obj['spec']) ? obj['spec'] : undefined;
  const template = spec && isObject(spec['template']) ? spec['template'] : undefined;
  const pod = template && isObject(template['spec']) ? template['spec'] : undefined;
  return pod;
}

/** Applies `f` to every container and init container named `name`; upstream's error when there is none. */
function eachNamed(pod: ReturnType<typeof podSpecOf>, name: string, f: (c: Container) => void): void {
  let found = false;
  for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])])
    if (c.name === name) {
      found = true;
      f(c);
    }
  if (!found) throw new Error(`requested injection for non-existent container: ${JSON.stringify(name)}`);
}

/** Upstream `updatePodSpecWithProxy` (nothing when the cluster has no proxy at all). */
export function injectProxy(
  obj: JsonObject,
  containers: readonly string[],
  proxy: { httpProxy?: string; httpsProxy?: string; noProxy?: string },
): void {
  const http = proxy.httpProxy ?? '';
  const https = proxy.httpsProxy ?? '';
  const no = proxy.noProxy ?? '';
  if (http === '' && https === '' && no === '') return;
  const pod = podSpecOf(obj);
  for (const name of containers)
    eachNamed(pod, name, (c) => {
      // an empty value is left out, as Go's `omitempty` serializes corev1.EnvVar on the wire
      const v = (name: string, value: string): Env => (value === '' ? { name } : { name, value });
      c.env = [...(c.env ?? []), v('HTTP_PROXY', http), v('HTTPS_PROXY', https), v('NO_PROXY', no)];
    });
}

/** Host and port of an internal API URL as upstream parses it (a missing port leaves the port empty). */
export function splitInternalURI(uri: string): { host: string; port: string } {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return { host: '', port: '' };
  }
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port };
}

/** Upstream `setKubeServiceValue` for the named containers (port 443 when the URL has none). */
export function injectInternalLoadBalancer(
  obj: JsonObject,
  containers: readonly string[],
  host: string,
  port: string,
): void {
  if (host === '') return;
  const pod = podSpecOf(obj);
  const portVal = port !== '' ? port : '443';
  for (const name of containers)
    eachNamed(pod, name, (c) => {
      const env = (c.env ?? []).map((e) => ({ ...e }));
      const p = env.find((e) => e.name === 'KUBERNETES_SERVICE_PORT');
      const h = env.find((e) => e.name === 'KUBERNETES_SERVICE_HOST');
      if (p) p.value = portVal;
      if (h) h.value = host;
      if (!p) env.push({ name: 'KUBERNETES_SERVICE_PORT', value: portVal });
      if (!h) env.push({ name: 'KUBERNETES_SERVICE_HOST', value: host });
      c.env = env;
    });
}

/**
 * The manifest as upstream's builder applies it (a copy when modified). `group`/`kind` select the rules; errors are
 * API errors reading Proxy/Infrastructure or a container named in `inject-proxy` that does not exist.
 */
export async function modifyManifest(
  manifest: JsonObject,
  group: string,
  kind: string,
  reader: ClusterConfigReader,
  signal?: AbortSignal,
): Promise<JsonObject> {
  if (group !== 'apps' || (kind !== 'Deployment' && kind !== 'DaemonSet')) return manifest;
  const meta = isObject(manifest['metadata']) ? manifest['metadata'] : {};
  const annotations = isObject(meta['annotations']) ? meta['annotations'] : {};
  const inject = annotations[INJECT_PROXY_ANNOTATION];
  const isCvo =
    kind === 'Deployment' &&
    meta['namespace'] === 'openshift-cluster-version' &&
    meta['name'] === 'cluster-version-operator';
  if (!(typeof inject === 'string' && inject !== '') && !isCvo) return manifest;
  const out = structuredClone(manifest);
  if (typeof inject === 'string' && inject !== '')
    injectProxy(out, inject.split(','), (await reader.proxyStatus(signal)) ?? {});
  if (isCvo) {
    const uri = await reader.apiServerInternalURI(signal);
    if (uri !== undefined) {
      const { host, port } = splitInternalURI(uri);
      injectInternalLoadBalancer(out, ['cluster-version-operator'], host, port);
    }
  }
  return out;
}
