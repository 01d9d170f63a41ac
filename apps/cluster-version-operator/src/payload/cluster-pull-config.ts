/**
 * What a node's CRI-O would use to pull the release image, read from the cluster for `--payload-retrieval=direct`:
 * the mirrors of ImageDigestMirrorSet / ImageTagMirrorSet / ImageContentSourcePolicy objects (merged as the MCO's
 * container-runtime-config controller merges them into registries.conf), the cluster Proxy's status (upstream
 * `pkg/cvo/egress.go` `getProxyConfig`), the trusted CA bundle `openshift-config-managed/trusted-ca-bundle` (upstream
 * `getTLSConfig`) and the per-registry CAs of `image.config.openshift.io/cluster` `spec.additionalTrustedCA` (the
 * ConfigMap in `openshift-config` whose keys are `host` or `host..port`, which the MCO writes to
 * `/etc/docker/certs.d/<host:port>/ca.crt` on every node) and its `spec.registrySources` (insecure, blocked and
 * allowed registries, which the MCO writes to registries.conf and policy.json).
 */
import { isNotFound, type KubeClient } from '@keelson/kube';
import {
  mirrorRulesFromCluster,
  type MirrorRule,
  type MirrorSetObject,
  type ProxySettings,
} from '@keelson/release-payload';

/** Pull settings of the cluster, in the form `@keelson/release-payload` takes them. */
export interface ClusterPullConfig {
  mirrors: MirrorRule[];
  proxy?: ProxySettings;
  /** CA bundles by registry (`host`, `host:port` or `host..port`). */
  registryCAs: Record<string, string>;
  /** Bundle trusted for every registry and the proxy. */
  trustedCA?: string;
  /** image.config `spec.registrySources`: scopes pulled without TLS verification, never contacted, or only allowed. */
  insecureRegistries?: string[];
  blockedRegistries?: string[];
  allowedRegistries?: string[];
}

const PATHS = {
  idms: '/apis/config.openshift.io/v1/imagedigestmirrorsets',
  itms: '/apis/config.openshift.io/v1/imagetagmirrorsets',
  icsp: '/apis/operator.openshift.io/v1alpha1/imagecontentsourcepolicies',
  proxy: '/apis/config.openshift.io/v1/proxies/cluster',
  image: '/apis/config.openshift.io/v1/images/cluster',
  trustedCABundle: '/api/v1/namespaces/openshift-config-managed/configmaps/trusted-ca-bundle',
} as const;

/** GET that maps 404 (object, or the whole kind not served) to undefined. */
async function getOptional<T>(client: KubeClient, path: string, signal?: AbortSignal): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', path, signal ? { signal } : {});
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw new Error(`reading ${path}: ${(e as Error).message}`, { cause: e });
  }
}

interface ConfigMapData {
  data?: Record<string, string>;
}

interface ProxyObject {
  spec?: { trustedCA?: { name?: string } };
  status?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
}

interface ImageConfig {
  spec?: {
    additionalTrustedCA?: { name?: string };
    registrySources?: { insecureRegistries?: string[]; blockedRegistries?: string[]; allowedRegistries?: string[] };
  };
}

function proxySettings(p: ProxyObject | undefined): ProxySettings | undefined {
  const s = p?.status;
  if (!s || (!s.httpProxy && !s.httpsProxy)) return undefined;
  return {
    ...(s.httpProxy ? { httpProxy: s.httpProxy } : {}),
    ...(s.httpsProxy ? { httpsProxy: s.httpsProxy } : {}),
    ...(s.noProxy ? { noProxy: s.noProxy } : {}),
  };
}

/** Reads the cluster's pull settings; a kind the cluster does not serve, or an object that is absent, adds nothing. */
export async function readClusterPullConfig(client: KubeClient, signal?: AbortSignal): Promise<ClusterPullConfig> {
  const list = async (path: string): Promise<MirrorSetObject[]> =>
    (await getOptional<{ items?: MirrorSetObject[] }>(client, path, signal))?.items ?? [];
  const [idms, itms, icsp, proxy, image, bundle] = await Promise.all([
    list(PATHS.idms),
    list(PATHS.itms),
    list(PATHS.icsp),
    getOptional<ProxyObject>(client, PATHS.proxy, signal),
    getOptional<ImageConfig>(client, PATHS.image, signal),
    getOptional<ConfigMapData>(client, PATHS.trustedCABundle, signal),
  ]);
  const out: ClusterPullConfig = { mirrors: mirrorRulesFromCluster({ idms, itms, icsp }), registryCAs: {} };
  const settings = proxySettings(proxy);
  if (settings) out.proxy = settings;
  // the nodes trust the Proxy's spec.trustedCA too (the MCO installs it as a system anchor); the network operator merges
  // it into trusted-ca-bundle, which a cluster without that operator may lack
  const userCAName = proxy?.spec?.trustedCA?.name;
  const userCA = userCAName
    ? (
        await getOptional<ConfigMapData>(
          client,
          `/api/v1/namespaces/openshift-config/configmaps/${encodeURIComponent(userCAName)}`,
          signal,
        )
      )?.data?.['ca-bundle.crt']
    : undefined;
  const trusted = [bundle?.data?.['ca-bundle.crt'], userCA].filter((x): x is string => !!x && x.trim() !== '');
  if (trusted.length > 0) out.trustedCA = trusted.join('\n');
  const sources = image?.spec?.registrySources;
  for (const k of ['insecureRegistries', 'blockedRegistries', 'allowedRegistries'] as const) {
    const v = sources?.[k];
    if (Array.isArray(v) && v.length > 0) out[k] = v.filter((x) => typeof x === 'string');
  }
  const caName = image?.spec?.additionalTrustedCA?.name;
  if (caName) {
    const cm = await getOptional<ConfigMapData>(
      client,
      `/api/v1/namespaces/openshift-config/configmaps/${encodeURIComponent(caName)}`,
      signal,
    );
    for (const [key, pem] of Object.entries(cm?.data ?? {})) out.registryCAs[key.replace('..', ':')] = pem;
  }
  return out;
}
