/**
 * Everything of the ControllerConfig spec that comes from the cluster, read as openshift/machine-config-operator
 * release-4.20 `pkg/operator/sync.go` `syncRenderConfig` reads it, in its order: images.json version check; image
 * registry bundles (image.config `cluster` `additionalTrustedCA` + `openshift-config-managed/image-registry-ca`), kept
 * in `openshift-config-managed/merged-trusted-image-registry-ca`; the root CA (`machine-config-server-ca`, else
 * `kube-system/root-ca`); the kube-apiserver CA and the internal registry pull secret (once bootstrap is complete);
 * Infrastructure, Network, Proxy, DNS (`createDiscoveredControllerConfigSpec`); the additional trust bundle; the cloud
 * config; the pull secret reference.
 */
import { isNotFound, KubeApiError, type KubeClient } from '@keelson/kube';
import type { ConfigMap, ControllerConfigSpec, ImageRegistryBundle } from '../common/api-types.js';
import { MCO_NAMESPACE } from '../common/constants.js';
import { caFromConfigMap, readCABundles } from './ca-bundles.js';
import {
  cloudConfig,
  controllerConfigImages,
  discoverSpec,
  mergedRegistryCAData,
  registryBundles,
  trustBundle,
  type ConfigObject,
  type DiscoveredSpec,
} from './cluster-config.js';
import { OperatorSyncError } from '@keelson/machineconfig';
import { mergeInternalRegistryPullSecret } from './registry-pull-secret.js';

/** A cluster configuration object as the operator sees it: found, absent, or its type not served at all. */
export type ConfigRead = { state: 'found'; object: ConfigObject } | { state: 'missing' } | { state: 'unserved' };

/** The config.openshift.io `cluster` objects. */
export interface GlobalConfig {
  infra: ConfigRead;
  network: ConfigRead;
  proxy: ConfigRead;
  dns: ConfigRead;
  image: ConfigRead;
}

/** The spec fields {@link readRenderInputs} fills. */
export type RenderInputs = Pick<
  ControllerConfigSpec,
  | 'rootCAData'
  | 'kubeAPIServerServingCAData'
  | 'imageRegistryBundleData'
  | 'imageRegistryBundleUserData'
  | 'pullSecret'
  | 'internalRegistryPullSecret'
  | 'additionalTrustBundle'
  | 'cloudProviderConfig'
  | 'cloudProviderCAData'
  | 'images'
> &
  Partial<DiscoveredSpec>;

const fail = (message: string): OperatorSyncError => new OperatorSyncError('RenderConfig', message);
const MERGED_CA = 'merged-trusted-image-registry-ca';

/** GET of an object, undefined when it does not exist. */
export async function getOptional<T>(client: KubeClient, path: string): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', path);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** A 404 of a GET of a `cluster` object: the object is missing (details name it), or its type is not served. */
export function readStateOf404(e: unknown): 'missing' | 'unserved' | undefined {
  if (!(e instanceof KubeApiError) || e.status !== 404) return undefined;
  return e.body?.details?.name !== undefined ? 'missing' : 'unserved';
}

const strOf = (v: unknown): string => (typeof v === 'string' ? v : '');
/** `name` of a ConfigMap reference (`spec.additionalTrustedCA`, `spec.trustedCA`). */
const nameOf = (ref: unknown): string =>
  typeof ref === 'object' && ref !== null ? strOf((ref as { name?: unknown }).name) : '';
const cmPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`;

/** Required config object: upstream's lister NotFound text when it is missing. */
function required(r: ConfigRead, resource: string): ConfigObject | undefined {
  if (r.state === 'missing') throw fail(`${resource} "cluster" not found`);
  return r.state === 'found' ? r.object : undefined;
}

async function imageRegistryBundles(
  client: KubeClient,
  image: ConfigRead,
): Promise<{ managed: ImageRegistryBundle[]; user: ImageRegistryBundle[] }> {
  const cfg = required(image, 'images.config.openshift.io');
  const name = nameOf(cfg?.spec?.['additionalTrustedCA']);
  // a named ConfigMap that does not exist is only a warning upstream
  const user =
    name === '' ? [] : registryBundles(await getOptional<ConfigMap>(client, cmPath('openshift-config', name)));
  const managed = registryBundles(
    await getOptional<ConfigMap>(client, cmPath('openshift-config-managed', 'image-registry-ca')),
  );
  return { managed, user };
}

/**
 * Keeps `openshift-config-managed/merged-trusted-image-registry-ca` equal to the merged bundles (annotation
 * `openshift.io/owning-component: Machine Config Operator`); writes only when its data differs.
 */
export async function syncMergedRegistryCA(client: KubeClient, data: Record<string, string>): Promise<boolean> {
  const existing = await getOptional<ConfigMap>(client, cmPath('openshift-config-managed', MERGED_CA));
  const annotations = { 'openshift.io/owning-component': 'Machine Config Operator' };
  if (existing === undefined) {
    await client.request('POST', '/api/v1/namespaces/openshift-config-managed/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: MERGED_CA, annotations }, data },
    });
    return true;
  }
  const old = existing.data ?? {};
  const same =
    Object.keys(old).length === Object.keys(data).length && Object.entries(data).every(([k, v]) => old[k] === v);
  if (same) return false;
  const removed = Object.fromEntries(
    Object.keys(old)
      .filter((k) => !(k in data))
      .map((k) => [k, null]),
  );
  await client.request('PATCH', cmPath('openshift-config-managed', MERGED_CA), {
    body: { metadata: { annotations }, data: { ...removed, ...data } },
    contentType: 'application/merge-patch+json',
  });
  return true;
}

async function internalRegistryPullSecret(client: KubeClient, dns: ConfigObject | undefined): Promise<string | null> {
  const co = await getOptional(client, '/apis/config.openshift.io/v1/clusteroperators/image-registry');
  if (co === undefined) return null;
  if (dns === undefined) throw fail('failed to retrieve dns object');
  const sa = await getOptional<{ imagePullSecrets?: Array<{ name?: string }> }>(
    client,
    `/api/v1/namespaces/${MCO_NAMESPACE}/serviceaccounts/machine-os-puller`,
  );
  if (sa === undefined) return null;
  type Secret = { type?: string; data?: Record<string, string> };
  const pullerSecrets: Array<{ name: string; dockercfg: Buffer | undefined }> = [];
  for (const ref of sa.imagePullSecrets ?? []) {
    const name = ref.name ?? '';
    const s = await getOptional<Secret>(client, `/api/v1/namespaces/${MCO_NAMESPACE}/secrets/${name}`);
    if (s === undefined) throw fail(`failed to retrieve image pull secret ${name}: secret "${name}" not found`);
    const d = s.data?.['.dockercfg'];
    pullerSecrets.push({ name, dockercfg: d === undefined ? undefined : Buffer.from(d, 'base64') });
  }
  const cps = await getOptional<Secret>(client, '/api/v1/namespaces/openshift-config/secrets/pull-secret');
  if (cps === undefined) throw fail('error fetching cluster pull secret: secret "pull-secret" not found');
  const raw = cps.data?.['.dockerconfigjson'];
  return mergeInternalRegistryPullSecret({
    pullerSecrets,
    clusterPullSecret: {
      type: cps.type ?? '',
      dockerconfigjson: raw === undefined ? undefined : Buffer.from(raw, 'base64'),
    },
    baseDomain: strOf(dns.spec?.['baseDomain']),
  });
}

async function additionalTrustBundle(client: KubeClient, proxy: ConfigObject | undefined): Promise<string | null> {
  const userCM = await getOptional<ConfigMap>(client, cmPath('openshift-config', 'user-ca-bundle'));
  let user: Buffer | undefined;
  try {
    user = userCM === undefined ? undefined : caFromConfigMap(userCM, 'ca-bundle.crt');
  } catch (e) {
    throw fail((e as Error).message);
  }
  const proxyName = nameOf(proxy?.spec?.['trustedCA']);
  let proxyCA: { name: string; data: Buffer } | undefined;
  if (proxyName !== '' && proxyName !== 'user-ca-bundle') {
    const cm = await getOptional<ConfigMap>(client, cmPath('openshift-config', proxyName));
    if (cm === undefined) throw fail(`configmap "${proxyName}" not found`);
    proxyCA = { name: proxyName, data: caFromConfigMap(cm, 'ca-bundle.crt') };
  }
  return trustBundle(user, proxyCA);
}

/** Inputs of {@link readRenderInputs}. */
export interface ReadRenderInputsOptions {
  global: GlobalConfig;
  /** images.json content (upstream format with releaseVersion, or a plain spec.images map). */
  imagesJson: Readonly<Record<string, string>>;
  operatorVersion: string;
  inClusterBringup: boolean;
}

/**
 * Reads and computes the cluster part of the ControllerConfig spec. Infrastructure and Network are required when
 * their types are served (a cluster without config.openshift.io keeps Keelson's defaults); image.config likewise.
 * @throws OperatorSyncError (RenderConfig) with upstream's texts
 */
export async function readRenderInputs(client: KubeClient, o: ReadRenderInputsOptions): Promise<RenderInputs> {
  const images = controllerConfigImages(o.imagesJson, o.operatorVersion);
  const { managed, user } = await imageRegistryBundles(client, o.global.image);
  await syncMergedRegistryCA(client, mergedRegistryCAData(managed, user));
  const ca = await readCABundles(client, o.inClusterBringup);
  const dns = o.global.dns.state === 'found' ? o.global.dns.object : undefined;
  const bootstrapped =
    !o.inClusterBringup && (await getOptional(client, cmPath('kube-system', 'bootstrap'))) !== undefined;
  const pull = bootstrapped ? await internalRegistryPullSecret(client, dns) : null;
  const infra = required(o.global.infra, 'infrastructures.config.openshift.io');
  const network = required(o.global.network, 'networks.config.openshift.io');
  const proxy = o.global.proxy.state === 'found' ? o.global.proxy.object : undefined;
  const discovered: Partial<DiscoveredSpec> =
    infra !== undefined && network !== undefined ? discoverSpec(infra, network, proxy, dns) : {};
  const trust = await additionalTrustBundle(client, proxy);
  const cloud =
    discovered.infra !== undefined
      ? cloudConfig(
          await getOptional<ConfigMap>(client, cmPath('openshift-config-managed', 'kube-cloud-config')),
          discovered.infra,
          caFromConfigMap,
        )
      : { cloudProviderConfig: '', cloudProviderCAData: null };
  return {
    ...discovered,
    rootCAData: ca.rootCA.toString('base64'),
    kubeAPIServerServingCAData: ca.kubeAPIServerServingCA.toString('base64'),
    imageRegistryBundleData: managed,
    imageRegistryBundleUserData: user,
    pullSecret: { namespace: 'openshift-config', name: 'pull-secret' },
    internalRegistryPullSecret: pull,
    additionalTrustBundle: trust,
    ...cloud,
    images,
  };
}
