/**
 * Signature verification of a target release (openshift/cluster-version-operator pkg/verify, pkg/cvo/updatepayload.go): the cluster's labelled signature ConfigMaps are read
 * here, the rest (keys and stores from the current payload's verification ConfigMap, `spec.signatureStores`, the
 * failure texts) is @keelson/release-payload's `verifyTargetRelease`, shared with `keelson upgrade plan`; `force` turns
 * a failure into an accepted risk (in the controller). HTTP(S) stores are reached through the cluster Proxy with the
 * trusted CA bundle as roots, as upstream's `Operator.HTTPClient` (pkg/cvo/cvo.go, egress.go `getTransport`) that
 * `customsignaturestore.Store` and the payload's `store-*` stores share; a `spec.signatureStores[].ca` ConfigMap of
 * `openshift-config` (key `ca.crt`) is that store's trust anchor, and the store is not honoured when it is missing or
 * invalid (openshift/api config/v1 `SignatureStore.CA`).
 */
import { X509Certificate } from 'node:crypto';
import { isNotFound, type KubeClient } from '@keelson/kube';
import { verifyTargetRelease, type KubeObject, type Manifest, type StoreHttpOptions } from '@keelson/release-payload';
import type { ClusterVersion } from '../api-types.js';
import { readEgress } from '../cluster/egress.js';

/** Label of ConfigMaps that carry signatures. */
export const SIGNATURES_LABEL = 'release.openshift.io/verification-signatures';

/** Outcome of {@link verifyTarget}. */
export interface TargetVerification {
  verified: boolean;
  /** The verified digest and the signatures that verified it (for the signature persister). */
  signatures?: { digest: string; data: Uint8Array[] };
  /** Failure text (`The update cannot be verified: …`) when not verified. */
  error?: string;
}

/** The signature ConfigMaps of `openshift-config-managed` (none when they cannot be listed). */
export async function signatureConfigMaps(client: KubeClient): Promise<KubeObject[]> {
  const cms = await client
    .request<{ items?: KubeObject[] }>('GET', '/api/v1/namespaces/openshift-config-managed/configmaps', {
      query: { labelSelector: SIGNATURES_LABEL },
    })
    .catch(() => ({ items: [] as KubeObject[] }));
  return cms.items ?? [];
}

/** Namespace of `spec.signatureStores[].ca` ConfigMaps, and the key holding the PEM bundle. */
export const STORE_CA = { namespace: 'openshift-config', key: 'ca.crt' } as const;

/** Reads a store CA ConfigMap; throws with the reason the store is not honoured. */
export async function readStoreCA(client: KubeClient, name: string): Promise<string> {
  let cm: { data?: Record<string, string> };
  try {
    cm = await client.request('GET', `/api/v1/namespaces/${STORE_CA.namespace}/configmaps/${encodeURIComponent(name)}`);
  } catch (e) {
    if (isNotFound(e)) throw new Error('not found', { cause: e });
    throw e;
  }
  const pem = cm.data?.[STORE_CA.key];
  if (pem === undefined || pem.trim() === '') throw new Error(`key ${STORE_CA.key} not found`);
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`key ${STORE_CA.key} holds no PEM certificate`);
  for (const [i, b] of blocks.entries()) {
    try {
      new X509Certificate(b);
    } catch (e) {
      throw new Error(`key ${STORE_CA.key}: certificate ${i + 1} is invalid: ${(e as Error).message}`, { cause: e });
    }
  }
  return pem;
}

/** How the verification reaches the cluster's egress settings. */
export interface VerifyTargetOptions {
  /** The trusted CA bundle ConfigMap from the controller's watch (else it is fetched). */
  trustedCABundle?: () => { data?: Record<string, string> } | undefined;
  signal?: AbortSignal;
}

/** The store HTTP options from the cluster's Proxy and trusted CA bundle. */
async function storeHttp(client: KubeClient, o: VerifyTargetOptions): Promise<StoreHttpOptions> {
  const egress = await readEgress(client, o.signal, o.trustedCABundle);
  const proxy = {
    ...(egress.httpProxy !== '' ? { httpProxy: egress.httpProxy } : {}),
    ...(egress.httpsProxy !== '' ? { httpsProxy: egress.httpsProxy } : {}),
    ...(egress.noProxy !== '' ? { noProxy: egress.noProxy } : {}),
  };
  return { ...(Object.keys(proxy).length > 0 ? { proxy } : {}), ...(egress.ca !== undefined ? { ca: egress.ca } : {}) };
}

/** Verifies `image` with the trust of the current payload. */
export async function verifyTarget(
  client: KubeClient,
  image: string,
  current: readonly Manifest[],
  cv: ClusterVersion | undefined,
  o: VerifyTargetOptions = {},
): Promise<TargetVerification> {
  const specStores = cv?.spec.signatureStores;
  let http: StoreHttpOptions;
  try {
    http = await storeHttp(client, o);
  } catch (e) {
    // upstream's HTTPClient() error is handed to every HTTP store's callback; the signature ConfigMaps still count
    http = {
      unavailable: `unable to build the HTTP client from the cluster's egress settings: ${(e as Error).message}`,
    };
  }
  const r = await verifyTargetRelease({
    image,
    current,
    signatureConfigMaps: await signatureConfigMaps(client),
    ...(specStores !== undefined ? { signatureStores: specStores } : {}),
    resolveStoreCA: (name) => readStoreCA(client, name),
    http,
  });
  if (!r.verified) return { verified: false, ...(r.error !== undefined ? { error: r.error } : {}) };
  const data = (r.result?.signatures ?? []).flatMap((sig) => (sig.data ? [sig.data] : []));
  return { verified: true, ...(r.result ? { signatures: { digest: r.result.digest, data } } : {}) };
}
