/**
 * @keelson/release-payload — read, filter, verify and diff OpenShift release payloads.
 * @packageDocumentation
 */
export { PayloadError, PayloadIntegrityError, RegistryTlsError, TemplateError, UnsafeArchiveError } from './errors.js';
export type { PayloadIssue, PayloadErrorCode } from './errors.js';
export { Fnv1Hash64, versionHash, base64UrlPadded } from './hash.js';
export { parseManifestFile, splitApiVersion, manifestId } from './parse.js';
export type { Manifest, GroupVersionKind, KubeObject, PayloadDir } from './parse.js';
export { parseReleaseMetadata, parseImageReferences, imagesFromReferences } from './metadata.js';
export type { ReleaseMetadata, ImageReferences, ImageTag } from './metadata.js';
export { renderTemplate } from './template.js';
export type { RenderConfig } from './template.js';
export { loadPayloadFromFiles, manifestHash, compareNames, DEFAULT_CLUSTER_PROFILE } from './payload.js';
export type { ReleasePayload, PayloadFiles, PayloadImageInfo, LoadOptions, SkippedLink } from './payload.js';
export { readPayloadDirectory } from './dir.js';
export {
  filterManifests,
  includeManifest,
  implicitlyEnabledCapabilities,
  clusterCapabilities,
  manifestCapabilities,
  KNOWN_CAPABILITIES,
  KNOWN_FEATURE_SETS,
  BASELINE_CAPABILITY_SETS,
  DELETE_ANNOTATION,
} from './filter.js';
export type {
  ClusterFacts,
  CapabilitiesStatus,
  CapabilitiesSpec,
  ComponentOverride,
  ExclusionRule,
  ExclusionReason,
  ExcludedManifest,
  FilterResult,
} from './filter.js';
export { openPayload } from './open.js';
export type { OpenOptions } from './open.js';
export { LayerTree, applyLayerBuffers, cleanEntryName, autoDecompress, KEPT_DIRS } from './layers.js';
export type { ExtractLimits } from './layers.js';
export {
  readOciLayout,
  readImage,
  selectPlatform,
  defaultArchitecture,
  layoutBlobReader,
  sha256,
  MEDIA_TYPES,
} from './oci.js';
export type { Descriptor, PlatformSelector, BlobReader, ImagePayload } from './oci.js';
export { readImageArchive, unpackArchive } from './archive.js';
export { writePayloadFiles } from './extract.js';
export {
  RegistryClient,
  parseImageReference,
  readRegistryImage,
  listRepositoryTags,
  nextTagsPage,
  MAX_TAGS,
} from './registry.js';
export type { RegistryOptions, ImageReference } from './registry.js';
export { verifyRelease, parseAtomicSignature, verificationConfigFromManifests } from './verify.js';
export { verifyTargetRelease, digestOfPullSpec } from './verify-target.js';
export type { TargetReleaseVerification, TargetVerificationResult } from './verify-target.js';
export type {
  Keyring,
  SignatureStore,
  StoreHttpOptions,
  VerifyOptions,
  VerifiedSignature,
  VerificationFailure,
  VerificationResult,
  AtomicSignature,
  VerificationConfig,
} from './verify.js';
export { diffPayloads, diffValues, componentVersions } from './diff.js';
export type { PayloadDiff, ManifestChange, ValueChange, ImageChange } from './diff.js';
/** TLS options of the registry source (CA bundle, certs.d directories, client certificates, `tlsVerify`). */
export type { RegistryTlsOptions } from './transport.js';
/** Default roots searched for `<root>/<host[:port]>/` certificate directories (like containers/image). */
export { defaultCertsDirs } from './transport.js';
export { checkClusterSettings } from './settings.js';
export { extractEnabledGates, featureGateState } from './featuregate.js';
export type { FeatureGateObject, FeatureGateState } from './featuregate.js';
export type { ClusterSettings, SettingWarning } from './settings.js';
export { DeadlineError, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS } from './transport.js';
export type { Deadlines } from './transport.js';
export type { RetryInfo } from './registry.js';
export { MAX_DOCUMENT_DEPTH } from './depth.js';
export { mirrorRulesFromCluster, pullSources, findRule, matchLength, insecureScopes } from './mirrors.js';
export type { Mirror, MirrorRule, MirrorSetObject, PullFromMirror, PullSource } from './mirrors.js';
export { parseRegistriesConf } from './registries-conf.js';
export { bypassesProxy, proxyFor } from './proxy.js';
export type { ProxySettings } from './proxy.js';
