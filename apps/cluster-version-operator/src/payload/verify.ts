/**
 * Signature verification of a target release (openshift/cluster-version-operator pkg/verify, pkg/cvo/updatepayload.go): the cluster's labelled signature ConfigMaps are read
 * here, the rest (keys and stores from the current payload's verification ConfigMap, `spec.signatureStores`, the
 * failure texts) is @keelson/release-payload's `verifyTargetRelease`, shared with `keelson upgrade plan`; `force` turns
 * a failure into an accepted risk (in the controller).
 */
import type { KubeClient } from '@keelson/kube';
import { verifyTargetRelease, type KubeObject, type Manifest } from '@keelson/release-payload';
import type { ClusterVersion } from '../api-types.js';

/** Label of ConfigMaps that carry signatures. */
export const SIGNATURES_LABEL = 'release.openshift.io/verification-signatures';

/** Outcome of {@link verifyTarget}. */
export interface TargetVerification {
  verified: boolean;
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

/** Verifies `image` with the trust of the current payload. */
export async function verifyTarget(
  client: KubeClient,
  image: string,
  current: readonly Manifest[],
  cv: ClusterVersion | undefined,
): Promise<TargetVerification> {
  const specStores = cv?.spec.signatureStores;
  const r = await verifyTargetRelease({
    image,
    current,
    signatureConfigMaps: await signatureConfigMaps(client),
    ...(specStores !== undefined ? { signatureStores: specStores } : {}),
  });
  return r.verified ? { verified: true } : { verified: false, ...(r.error !== undefined ? { error: r.error } : {}) };
}
