/**
 * Accepting a target release (openshift/cluster-version-operator pkg/cvo/sync_worker.go `SyncWorker.loadUpdatedPayload`
 * and pkg/cvo/updatepayload.go `RetrievePayload`): verify its signature, retrieve it, check its version and run the
 * preconditions. A forced update continues past a failed verification or a blocking precondition, with the risk noted.
 */
import type { EventRecorder, KubeClient } from '@keelson/kube';
import type { Manifest, ReleasePayload } from '@keelson/release-payload';
import { preconditionsUpdateError, runPreconditions } from '@keelson/cluster-version';
import type { ClusterVersion } from '../api-types.js';
import type { PayloadRetriever } from '../payload/retrieve.js';
import type { SignaturePersister } from '../payload/persist.js';
import { verifyTarget } from '../payload/verify.js';

/** What acceptance needs. */
export interface AcceptanceInput {
  client: KubeClient;
  retriever: PayloadRetriever;
  recorder: EventRecorder;
  signatures?: SignaturePersister | undefined;
  /** `openshift-config-managed/trusted-ca-bundle` from the informer. */
  trustedCABundle: () => { data?: Record<string, string> } | undefined;
  /** Manifests of the release running now (the signature stores it configures). */
  currentManifests: readonly Manifest[];
  cv: ClusterVersion;
  image: string;
  /** The requested version ('' when only an image was given). */
  version: string;
  force: boolean;
  signal: AbortSignal;
}

/** The verdict: the payload with its verification and accepted risks, or why it was rejected (ReleaseAccepted=False). */
export type Acceptance =
  | { accepted: true; payload: ReleasePayload; verified: boolean; risks: string[] }
  | { accepted: false; reason: string; message: string };

/** Verifies, retrieves and checks a target release (see the module comment). */
export async function acceptTarget(i: AcceptanceInput): Promise<Acceptance> {
  const { image, version: v, cv, force } = i;
  const risks: string[] = [];
  const verification = await verifyTarget(i.client, image, i.currentManifests, cv, {
    trustedCABundle: i.trustedCABundle,
    signal: i.signal,
  });
  if (verification.signatures) i.signatures?.record(verification.signatures.digest, verification.signatures.data);
  if (!verification.verified) {
    if (!force)
      return reject(
        'RetrievePayload',
        `Retrieving payload failed version="${v}" image="${image}" failure=${verification.error ?? ''}`,
      );
    const forced = `Target release version="${v}" image="${image}" cannot be verified, but continuing anyway because the update was forced: ${verification.error ?? ''}`;
    risks.push(forced);
    void i.recorder.warning(cv, 'RetrievePayload', forced);
  }
  let payload: ReleasePayload;
  try {
    payload = await i.retriever.retrieve({ image, version: v }, i.signal);
  } catch (e) {
    return reject(
      'RetrievePayload',
      `Retrieving payload failed version="${v}" image="${image}" failure=${(e as Error).message}`,
    );
  }
  if (v !== '' && payload.metadata.version !== v)
    return reject(
      'VerifyPayloadVersion',
      `Verifying payload failed version="${v}" image="${image}" failure=release image version ${payload.metadata.version} does not match the expected upstream version ${v}`,
    );
  const pre = preconditionsUpdateError(runPreconditions(cv, payload.metadata.version), force);
  if (pre.blocking && pre.error)
    return reject(
      'PreconditionChecks',
      `Preconditions failed for payload loaded version="${payload.metadata.version}" image="${image}": ${pre.error.message}`,
    );
  if (pre.error) {
    risks.push(pre.error.message);
    void i.recorder.warning(cv, 'PreconditionWarn', pre.error.message);
  }
  return { accepted: true, payload, verified: verification.verified, risks };
}

function reject(reason: string, message: string): Acceptance {
  return { accepted: false, reason, message };
}
