/**
 * The release generator of the rehearsal (`@keelson/rehearsal/release`): synthetic payload directories, the rehearsal's
 * releases A and B, OCI publishing, signing and the servers a rehearsal fetches them from.
 */
export { generatePayload, type GeneratePayloadOptions, type GeneratePayloadResult } from './synthetic-payload.js';
export {
  TEST_RELEASE_COMPONENTS,
  testComponentManifests,
  testComponentNamespace,
  writeReleaseImageLayout,
  writeTestRelease,
  type TestReleaseOptions,
} from './test-release.js';
export { baseMachineConfigName, machineConfigManifests, type MachineConfigReleaseFacts } from './mco.js';
export {
  generateRehearsalReleases,
  REHEARSAL_COMPONENTS,
  type RehearsalRelease,
  type RehearsalReleaseOptions,
  type RehearsalReleases,
  type RehearsalVerification,
} from './releases.js';
export { buildReleaseImage, sha256Digest, OCI_MEDIA_TYPES, type OciImage } from './oci-image.js';
export { startOciRegistry, type OciRegistry } from './registry-server.js';
export {
  generateSigningKey,
  signReleaseDigest,
  atomicSignatureClaims,
  startSignatureStore,
  type SigningKey,
  type SignatureStoreServer,
} from './signing.js';
export {
  publishRehearsalReleases,
  REHEARSAL_REPOSITORY,
  REHEARSAL_MIRROR_REPOSITORY,
  type PublishOptions,
  type ReleaseMirror,
  type PublishedRelease,
  type PublishedReleases,
} from './publish.js';
