/**
 * Signature verification of a target release (cvo.md 6.2-6.4): keys from the current payload's verification ConfigMap,
 * stores from labelled ConfigMaps in `openshift-config-managed`, then `spec.signatureStores` if set, else the
 * payload's `store-*` URLs; `force` turns a failure into an accepted risk.
 */
import type { KubeClient } from '@keelson/kube';
import { verificationConfigFromManifests, verifyRelease, type KubeObject, type Manifest, type SignatureStore } from '@keelson/release-payload';
import type { ClusterVersion } from '../api-types.js';
import { digestOf } from './retrieve.js';

/** Label of ConfigMaps that carry signatures. */
export const SIGNATURES_LABEL = 'release.openshift.io/verification-signatures';

/** Outcome of {@link verifyTarget}. */
export interface TargetVerification {
  verified: boolean;
  /** Failure text (`The update cannot be verified: …`) when not verified. */
  error?: string;
}

/** Verifies `image` with the trust of the current payload. */
export async function verifyTarget(client: KubeClient, image: string, current: readonly Manifest[], cv: ClusterVersion | undefined): Promise<TargetVerification> {
  const digest = digestOf(image);
  if (!digest) return { verified: false, error: 'The update cannot be verified: release images that are not accessed via digest cannot be verified' };
  let config;
  try {
    config = verificationConfigFromManifests(current);
  } catch (e) {
    return { verified: false, error: `The update cannot be verified: ${(e as Error).message}` };
  }
  if (!config) return { verified: false, error: 'The update cannot be verified: verification is not possible' };
  const stores: SignatureStore[] = [];
  const cms = await client.request<{ items?: KubeObject[] }>('GET', '/api/v1/namespaces/openshift-config-managed/configmaps', { query: { labelSelector: SIGNATURES_LABEL } }).catch(() => ({ items: [] as KubeObject[] }));
  if ((cms.items ?? []).length > 0) stores.push({ name: 'openshift-config-managed', configMaps: cms.items ?? [] });
  const specStores = cv?.spec.signatureStores;
  if (specStores !== undefined) {
    if (specStores.length === 0) return { verified: false, error: 'The update cannot be verified: ClusterVersion spec.signatureStores is an empty list' };
    for (const s of specStores) stores.push({ url: s.url });
  } else stores.push(...config.stores);
  const res = await verifyRelease({ digest, keyrings: config.keyrings, stores });
  if (res.verified) return { verified: true };
  const names = config.keyrings.map((k) => `verifier-public-key-${k.name}`).join(', ');
  const details = res.failures.map((f) => `${f.store ? `${f.store}${f.index ? `/${f.index}` : ''}: ` : ''}${f.reason}`).join('; ');
  const exhausted = specStores !== undefined ? ' ClusterVersion spec.signatureStores exhausted without finding a valid signature.' : '';
  return { verified: false, error: `The update cannot be verified: unable to verify ${digest} against keyrings: ${names}${exhausted}${details ? ` [${details}]` : ''}` };
}
