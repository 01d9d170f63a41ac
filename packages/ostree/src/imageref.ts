import { OstreeError } from './errors.js';

/** How an image's signature is verified (mirrors ostree-ext's `SignatureSource`). */
export type SignatureSource =
  | { readonly kind: 'insecure' }
  | { readonly kind: 'ostree-remote'; readonly remote: string }
  | { readonly kind: 'container-policy' };

/** A container image reference with its transport (`registry` for `docker://`). */
export interface ImageReference {
  /** `registry`, `oci`, `oci-archive`, `containers-storage`, `dir`, `docker-archive`, … */
  readonly transport: string;
  /** Transport-specific name: `quay.io/org/img:tag`, a path, `image@sha256:…`. */
  readonly name: string;
}

/** An ostree container image reference as found in `container-image-reference` or given to `rpm-ostree rebase`. */
export interface OstreeImageReference {
  /** Signature verification policy. */
  readonly sigverify: SignatureSource;
  /** The image. */
  readonly imgref: ImageReference;
}

/** The `ostree-…:` schemes understood by {@link parseOstreeImageReference}. */
export const OSTREE_IMAGE_SCHEMES = [
  'ostree-unverified-registry',
  'ostree-unverified-image',
  'ostree-remote-registry',
  'ostree-remote-image',
  'ostree-image-signed',
] as const;

function fail(ref: string, why: string): never {
  throw new OstreeError(
    'IMAGE_REFERENCE',
    `invalid ostree image reference ${JSON.stringify(ref)}: ${why}; expected e.g. ostree-unverified-registry:quay.io/org/image:tag`,
  );
}

/** Parses `<transport>:<name>` (with `docker://name` meaning the `registry` transport). */
export function parseImageReference(text: string, whole: string = text): ImageReference {
  const i = text.indexOf(':');
  if (i <= 0) fail(whole, 'missing transport (":")');
  let transport = text.slice(0, i);
  let name = text.slice(i + 1);
  if (transport === 'docker') {
    if (!name.startsWith('//')) fail(whole, 'missing "//" after docker:');
    transport = 'registry';
    name = name.slice(2);
  }
  if (name === '') fail(whole, 'empty image name');
  return { transport, name };
}

/**
 * Parses an ostree image reference such as `ostree-unverified-registry:quay.io/fedora/fedora-coreos:stable`,
 * `ostree-image-signed:docker://quay.io/…`, `ostree-remote-registry:fedora:quay.io/…`,
 * `ostree-unverified-image:containers-storage:…`. Throws {@link OstreeError} `IMAGE_REFERENCE` otherwise.
 */
export function parseOstreeImageReference(ref: string): OstreeImageReference {
  const input: unknown = ref;
  if (typeof input !== 'string' || input.length > 4096 || /[\s\0]/.test(input))
    fail(String(input), 'not a single-line string');
  const i = ref.indexOf(':');
  if (i <= 0) fail(ref, 'missing scheme');
  const scheme = ref.slice(0, i);
  const rest = ref.slice(i + 1);
  switch (scheme) {
    case 'ostree-unverified-registry':
      if (rest === '') fail(ref, 'empty image name');
      return { sigverify: { kind: 'insecure' }, imgref: { transport: 'registry', name: rest } };
    case 'ostree-unverified-image':
      return { sigverify: { kind: 'insecure' }, imgref: parseImageReference(rest, ref) };
    case 'ostree-image-signed':
      return { sigverify: { kind: 'container-policy' }, imgref: parseImageReference(rest, ref) };
    case 'ostree-remote-registry':
    case 'ostree-remote-image': {
      const j = rest.indexOf(':');
      if (j <= 0) fail(ref, 'missing ostree remote name');
      const remote = rest.slice(0, j);
      const tail = rest.slice(j + 1);
      const imgref =
        scheme === 'ostree-remote-registry'
          ? tail === ''
            ? fail(ref, 'empty image name')
            : { transport: 'registry', name: tail }
          : parseImageReference(tail, ref);
      return { sigverify: { kind: 'ostree-remote', remote }, imgref };
    }
    default:
      return fail(ref, `unknown scheme ${JSON.stringify(scheme)} (known: ${OSTREE_IMAGE_SCHEMES.join(', ')})`);
  }
}

function transportPrefix(imgref: ImageReference): string {
  return imgref.transport === 'registry' ? `docker://${imgref.name}` : `${imgref.transport}:${imgref.name}`;
}

/**
 * Builds the canonical string of an ostree image reference: `ostree-unverified-registry:` for insecure registry
 * images, `ostree-unverified-image:<transport>:` otherwise, `ostree-remote-registry:`/`ostree-remote-image:` for
 * ostree-remote signatures and `ostree-image-signed:` (with `docker://` for registries) for container policies.
 */
export function formatOstreeImageReference(ref: OstreeImageReference): string {
  const { sigverify, imgref } = ref;
  switch (sigverify.kind) {
    case 'insecure':
      return imgref.transport === 'registry'
        ? `ostree-unverified-registry:${imgref.name}`
        : `ostree-unverified-image:${transportPrefix(imgref)}`;
    case 'ostree-remote':
      return imgref.transport === 'registry'
        ? `ostree-remote-registry:${sigverify.remote}:${imgref.name}`
        : `ostree-remote-image:${sigverify.remote}:${transportPrefix(imgref)}`;
    case 'container-policy':
      return `ostree-image-signed:${transportPrefix(imgref)}`;
  }
}

/** `ostree-unverified-registry:<image>`: what the machine-config-daemon rebases to for an osImageURL. */
export function unverifiedRegistryReference(image: string): string {
  return formatOstreeImageReference({
    sigverify: { kind: 'insecure' },
    imgref: { transport: 'registry', name: image },
  });
}

/** `ostree-unverified-image:containers-storage:<repoDigest>`: rebase from local container storage. */
export function containersStorageReference(repoDigest: string): string {
  return formatOstreeImageReference({
    sigverify: { kind: 'insecure' },
    imgref: { transport: 'containers-storage', name: repoDigest },
  });
}
