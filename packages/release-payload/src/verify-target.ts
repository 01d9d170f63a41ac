/**
 * The CVO's verification of a target release (openshift/cluster-version-operator pkg/verify and pkg/cvo/updatepayload.go), without I/O to the cluster: keys and stores from the
 * current payload's verification ConfigMap, signatures first from the cluster's labelled ConfigMaps (given by the
 * caller), then `spec.signatureStores` when set, else the payload's `store-*` URLs. The failure text is the CVO's
 * (`The update cannot be verified: …`), shared by the CVO app and `keelson upgrade plan`.
 */
import type { KubeObject, Manifest } from './parse.js';
import {
  verificationConfigFromManifests,
  verifyRelease,
  type SignatureStore,
  type StoreHttpOptions,
  type VerificationResult,
} from './verify.js';

const DIGEST_SUFFIX = /@(sha256:[a-f0-9]{64})$/;

/** Inputs of {@link verifyTargetRelease}. */
export interface TargetReleaseVerification {
  /** The target pull spec; only by-digest pull specs can be verified. */
  image: string;
  /** The manifests of the release the cluster runs (the root of trust). */
  current: readonly Manifest[];
  /** ConfigMaps of `openshift-config-managed` labelled `release.openshift.io/verification-signatures`. */
  signatureConfigMaps?: readonly KubeObject[];
  /** ClusterVersion `spec.signatureStores` (undefined when unset). */
  signatureStores?: readonly { url: string; ca?: { name?: string } }[];
  /**
   * The PEM bundle of a store's `ca` ConfigMap (`openshift-config/<name>` key `ca.crt`); throws, with the reason,
   * when the ConfigMap or key is missing or holds no valid certificate: that store is then not honoured (the API's
   * contract for `signatureStores[].ca`). Without it (a caller that cannot read the cluster's ConfigMaps), `ca` is
   * ignored and the store is reached with {@link TargetReleaseVerification.http}'s trust.
   */
  resolveStoreCA?: (name: string) => Promise<string>;
  /** Proxy and trusted roots for every HTTP(S) store (the cluster's egress settings). */
  http?: StoreHttpOptions;
}

/** Outcome of {@link verifyTargetRelease}. */
export interface TargetVerificationResult {
  verified: boolean;
  /** Failure text (`The update cannot be verified: …`) when not verified. */
  error?: string;
  /** The signature check itself, when one ran. */
  result?: VerificationResult;
}

/** The manifest digest of a by-digest pull spec, or undefined for a tag. */
export function digestOfPullSpec(image: string): string | undefined {
  return DIGEST_SUFFIX.exec(image)?.[1];
}

/** One `spec.signatureStores` entry as a store: its own CA when it names one, not honoured when that CA is unusable. */
async function specStore(
  s: { url: string; ca?: { name?: string } },
  resolve: ((name: string) => Promise<string>) | undefined,
): Promise<SignatureStore> {
  const name = s.ca?.name ?? '';
  if (name === '' || !resolve) return { url: s.url };
  const notHonoured = (why: string): SignatureStore => ({
    url: s.url,
    unusable: `signature store not honoured: ca ConfigMap openshift-config/${name}: ${why}`,
  });
  try {
    return { url: s.url, ca: await resolve(name) };
  } catch (e) {
    return notHonoured((e as Error).message);
  }
}

/** Verifies a target release with the trust of the current release, as the CVO does before accepting it. */
export async function verifyTargetRelease(input: TargetReleaseVerification): Promise<TargetVerificationResult> {
  const fail = (why: string): TargetVerificationResult => ({
    verified: false,
    error: `The update cannot be verified: ${why}`,
  });
  const digest = digestOfPullSpec(input.image);
  if (digest === undefined) return fail('release images that are not accessed via digest cannot be verified');
  let config;
  try {
    config = verificationConfigFromManifests(input.current);
  } catch (e) {
    return fail((e as Error).message);
  }
  if (!config) return fail('verification is not possible');
  const stores: SignatureStore[] = [];
  const cms = input.signatureConfigMaps ?? [];
  if (cms.length > 0) stores.push({ name: 'openshift-config-managed', configMaps: cms });
  const specStores = input.signatureStores;
  if (specStores !== undefined) {
    // upstream customsignaturestore.Store.Signatures' text, verbatim (double space and "to to" included)
    if (specStores.length === 0)
      return fail(
        'ClusterVersion spec.signatureStores is an empty array.  Unset signatureStores entirely if you want to to enable the default signature stores.',
      );
    for (const s of specStores) stores.push(await specStore(s, input.resolveStoreCA));
  } else stores.push(...config.stores);
  const result = await verifyRelease({
    digest,
    keyrings: config.keyrings,
    stores,
    ...(input.http ? { http: input.http } : {}),
  });
  if (result.verified) return { verified: true, result };
  const names = config.keyrings.map((k) => `verifier-public-key-${k.name}`).join(', ');
  const details = result.failures
    .map((f) => `${f.store ? `${f.store}${f.index ? `/${f.index}` : ''}: ` : ''}${f.reason}`)
    .join('; ');
  const exhausted =
    specStores !== undefined ? ' ClusterVersion spec.signatureStores exhausted without finding a valid signature.' : '';
  return {
    verified: false,
    error: `The update cannot be verified: unable to verify ${digest} against keyrings: ${names}${exhausted}${details ? ` [${details}]` : ''}`,
    result,
  };
}
