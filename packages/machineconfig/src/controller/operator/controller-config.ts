/** The ControllerConfig `machine-config-controller` as the operator writes it (RenderConfig task, pure). */
import type { ConfigMap, ControllerConfig, ControllerConfigSpec, EmbeddedInfrastructure } from '@keelson/api';
import { CONTROLLER_CONFIG_NAME, McAnnotations, OSIMAGEURL_CONFIGMAP } from '../constants.js';
import { semanticallyContains } from '../semantic.js';

/** Content of the `machine-config-osimageurl` ConfigMap. */
export interface OSImageURLConfig {
  baseOSContainerImage: string;
  baseOSExtensionsContainerImage: string;
  releaseVersion: string;
}

/** A sync task failure: `task` names it as upstream does (RenderConfig, MachineConfigPools, …). */
export class OperatorSyncError extends Error {
  readonly code = 'OPERATOR_SYNC_FAILED';
  constructor(
    readonly task: string,
    message: string,
  ) {
    super(message);
    this.name = 'OperatorSyncError';
  }
}

/**
 * Reads the osimageurl ConfigMap; refuses one written for another release.
 * @throws OperatorSyncError (task RenderConfig)
 */
export function parseOSImageURLConfigMap(cm: ConfigMap | undefined, operatorReleaseVersion: string): OSImageURLConfig {
  if (cm === undefined) throw new OperatorSyncError('RenderConfig', `configmap "${OSIMAGEURL_CONFIGMAP}" not found`);
  const d = cm.data ?? {};
  const base = d['baseOSContainerImage'] ?? '';
  if (base === '')
    throw new OperatorSyncError('RenderConfig', `missing baseOSContainerImage in configmap ${OSIMAGEURL_CONFIGMAP}`);
  const rel = d['releaseVersion'] ?? '';
  if (rel !== operatorReleaseVersion)
    throw new OperatorSyncError(
      'RenderConfig',
      `refusing to read osImageURL version "${rel}", operator version "${operatorReleaseVersion}"`,
    );
  return {
    baseOSContainerImage: base,
    baseOSExtensionsContainerImage: d['baseOSExtensionsContainerImage'] ?? '',
    releaseVersion: rel,
  };
}

/**
 * Whether RenderConfig should wait for the osimageurl ConfigMap instead of failing: while this operator's version is
 * not reported yet (an install, or an upgrade to this release) the CVO applies the operator's Deployment
 * (`0000_80_machine-config_04_deployment.yaml`) before the ConfigMap (`…_05_osimageurl.yaml`), so an absent ConfigMap,
 * or one still carrying the previous release, is the expected ordering, not a fault. Returns the wait text, or
 * undefined when the ConfigMap must be read now (its errors are then real: Degraded `RenderConfigFailed`).
 */
export function decideOSImageURLWait(
  cm: ConfigMap | undefined,
  operatorReleaseVersion: string,
  reportedOperatorVersion: string | undefined,
): string | undefined {
  if (reportedOperatorVersion === operatorReleaseVersion) return undefined;
  if (cm === undefined) return `waiting for configmap "${OSIMAGEURL_CONFIGMAP}" of release ${operatorReleaseVersion}`;
  const rel = cm.data?.['releaseVersion'] ?? '';
  if (rel !== operatorReleaseVersion)
    return `waiting for configmap "${OSIMAGEURL_CONFIGMAP}" of release ${operatorReleaseVersion} (it has release "${rel}")`;
  return undefined;
}

/** Upstream's wrapping of an osimageurl ConfigMap error in the RenderConfig task. */
export function osImagesError(err: unknown): OperatorSyncError {
  return new OperatorSyncError(
    'RenderConfig',
    `could not get OS images: ${err instanceof Error ? err.message : String(err)}`,
  );
}

/** Cluster inputs of the ControllerConfig beyond the OS images. */
export interface ClusterInputs {
  /** Infrastructure `cluster` (default: platform None, HighlyAvailable). */
  infra?: EmbeddedInfrastructure;
  /** DNS `cluster` (default: empty baseDomain). */
  dns?: Record<string, unknown>;
  clusterDNSIP: string;
  releaseImage: string;
  images: Record<string, string>;
  /** PEM bundles (base64-encoded in the object, as `[]byte` fields are), see `readCABundles`. */
  rootCAPem?: string | Buffer;
  kubeAPIServerServingCAPem?: string | Buffer;
  /**
   * The fields read from the cluster as upstream's syncRenderConfig reads them (see `render-inputs.ts`); each one
   * present replaces the value built from the fields above.
   */
  fromCluster?: Partial<ControllerConfigSpec>;
}

const b64 = (s: string | Buffer | undefined): string =>
  (typeof s === 'string' ? Buffer.from(s, 'utf8') : (s ?? Buffer.alloc(0))).toString('base64');

/**
 * Default Infrastructure when the cluster has none (no config.openshift.io Infrastructure, as in the rehearsal): the
 * API URLs are placeholders so that upstream's templates (apiserver-url.env: urlHost/urlPort of apiServerInternalURI)
 * render; a real cluster's Infrastructure replaces them.
 */
export function defaultInfrastructure(): EmbeddedInfrastructure {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'Infrastructure',
    metadata: { name: 'cluster' },
    spec: { platformSpec: { type: 'None' } },
    status: {
      platform: 'None',
      platformStatus: { type: 'None' },
      controlPlaneTopology: 'HighlyAvailable',
      infrastructureTopology: 'HighlyAvailable',
      cpuPartitioning: 'None',
      infrastructureName: 'keelson',
      apiServerURL: 'https://api.keelson.local:6443',
      apiServerInternalURI: 'https://api-int.keelson.local:6443',
      etcdDiscoveryDomain: '',
    },
  };
}

/** The desired ControllerConfig. */
export function buildControllerConfig(
  os: OSImageURLConfig,
  cluster: ClusterInputs,
  mcoVersion: string,
): ControllerConfig {
  const infra = cluster.infra ?? defaultInfrastructure();
  const platform = (infra.status?.platformStatus?.type ?? 'None').toLowerCase();
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: {
      name: CONTROLLER_CONFIG_NAME,
      annotations: {
        [McAnnotations.generatedByVersion]: mcoVersion,
        [McAnnotations.releaseImageVersion]: os.releaseVersion,
      },
    },
    spec: {
      clusterDNSIP: cluster.clusterDNSIP,
      cloudProviderConfig: '',
      platform,
      additionalTrustBundle: null,
      cloudProviderCAData: null,
      rootCAData: b64(cluster.rootCAPem),
      kubeAPIServerServingCAData: b64(cluster.kubeAPIServerServingCAPem),
      images: cluster.images,
      baseOSContainerImage: os.baseOSContainerImage,
      baseOSExtensionsContainerImage: os.baseOSExtensionsContainerImage,
      osImageURL: '',
      releaseImage: cluster.releaseImage,
      proxy: null,
      infra,
      dns: cluster.dns ?? {
        apiVersion: 'config.openshift.io/v1',
        kind: 'DNS',
        metadata: { name: 'cluster' },
        spec: { baseDomain: '' },
      },
      ipFamilies: 'IPv4',
      network: null,
      ...cluster.fromCluster,
    },
  };
}

/**
 * True when the existing ControllerConfig must be updated to `want` (spec or our annotations differ). The stored spec
 * is compared as the API server keeps it: its key order and the CRD's schema defaults (e.g. infra
 * status.cpuPartitioning) are not a difference, so an unchanged cluster causes no write.
 */
export function controllerConfigNeedsUpdate(existing: ControllerConfig, want: ControllerConfig): boolean {
  const a = existing.metadata.annotations ?? {};
  return (
    !semanticallyContains(existing.spec, want.spec) ||
    Object.entries(want.metadata.annotations ?? {}).some(([k, v]) => a[k] !== v)
  );
}
