/**
 * Image pull-spec parsing as openshift/library-go's `image/reference.Parse` does it for `oc adm upgrade`:
 * the docker distribution grammar (no Docker Hub normalisation), then registry / namespace / name split.
 */

/** A parsed pull spec (`DockerImageReference`). */
export interface DockerImageReference {
  registry: string;
  namespace: string;
  name: string;
  tag: string;
  /** Digest (`sha256:…`), `ID` upstream. */
  id: string;
}

/** A pull spec the distribution grammar rejects; `message` is the grammar's error text. */
export class ImageReferenceError extends Error {
  readonly code = 'INVALID_IMAGE_REFERENCE';
  constructor(
    message: string,
    readonly input: string,
  ) {
    super(message);
    this.name = 'ImageReferenceError';
  }
}

const ALNUM = '[a-z0-9]+';
const SEP = '(?:[._]|__|[-]*)';
const NAME_COMPONENT = `${ALNUM}(?:${SEP}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(
  `^((?:${DOMAIN}/)?${NAME_COMPONENT}(?:/${NAME_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`,
);
const DIGEST_LENGTHS: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
const MAX_INPUT = 4096;

function checkDigest(d: string, input: string): void {
  const colon = d.indexOf(':');
  const alg = d.slice(0, colon);
  const hex = d.slice(colon + 1);
  const want = DIGEST_LENGTHS[alg];
  if (want === undefined) throw new ImageReferenceError('unsupported digest algorithm', input);
  if (hex.length !== want) throw new ImageReferenceError('invalid checksum digest length', input);
  if (!/^[a-f0-9]+$/.test(hex)) throw new ImageReferenceError('invalid checksum digest format', input);
}

/** Parses a pull spec; throws {@link ImageReferenceError} with the distribution grammar's message. */
export function parseDockerImageReference(spec: string): DockerImageReference {
  if (spec.length === 0 || spec.length > MAX_INPUT) throw new ImageReferenceError('invalid reference format', spec);
  const m = REFERENCE.exec(spec);
  if (!m) {
    const lower = REFERENCE.exec(spec.toLowerCase());
    throw new ImageReferenceError(lower ? 'repository name must be lowercase' : 'invalid reference format', spec);
  }
  const full = m[1] ?? '';
  if (full.length > 255) throw new ImageReferenceError('repository name must not be more than 255 characters', spec);
  const digest = m[3] ?? '';
  if (digest !== '') checkDigest(digest, spec);
  const out: DockerImageReference = { registry: '', namespace: '', name: full, tag: m[2] ?? '', id: digest };
  const slash = full.indexOf('/');
  if (slash >= 0) {
    const first = full.slice(0, slash);
    if (/[:.]/.test(first) || first === 'localhost') {
      out.registry = first;
      out.name = full.slice(slash + 1);
    }
  }
  const ns = out.name.indexOf('/');
  if (ns >= 0) {
    out.namespace = out.name.slice(0, ns);
    out.name = out.name.slice(ns + 1);
  }
  return out;
}
