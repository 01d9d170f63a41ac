// the SemVer class alone: the package index loads every range/comparator module too (~40 ms at start-up)
import SemVer from 'semver/classes/semver.js';
import { parseDocument } from 'yaml';
import { PayloadError } from './errors.js';
import { MAX_DOCUMENT_DEPTH, nestedDeeperThan } from './depth.js';

/** Parsed `release-manifests/release-metadata` (Cincinnati metadata `cincinnati-metadata-v0`). */
export interface ReleaseMetadata {
  kind: 'cincinnati-metadata-v0';
  version: string;
  /** Parsed strict SemVer 2.0 version. */
  semver: SemVer;
  previous: string[];
  next: string[];
  metadata: Record<string, unknown>;
  /** `metadata.url`, when a string. */
  url?: string;
  /** Sorted `io.openshift.upgrades.graph.release.channels`. */
  channels: string[];
  /** `Multi` when `release.openshift.io/architecture` is `multi`. */
  architecture?: 'Multi';
}

/** One tag of `image-references`. */
export interface ImageTag {
  name: string;
  /** `from.kind`, normally `DockerImage`. */
  fromKind: string;
  /** `from.name`, the pull spec (normally by digest). */
  pullSpec: string;
  annotations: Record<string, string>;
}

/** Parsed `release-manifests/image-references` (an `image.openshift.io/v1` ImageStream). */
export interface ImageReferences {
  name: string;
  creationTimestamp?: string;
  annotations: Record<string, string>;
  tags: ImageTag[];
}

const FILE_MD = 'release-manifests/release-metadata';
const FILE_IR = 'release-manifests/image-references';

function strArray(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new PayloadError(
      'InvalidReleaseMetadata',
      `${FILE_MD}: field "${field}" must be an array of version strings`,
      `${FILE_MD}#${field}`,
    );
  }
  return v as string[];
}

/**
 * `metadata["release.openshift.io/architecture"]`: only `multi` (a heterogeneous release) is valid; a single-arch
 * release leaves the key out and runs as the CVO's own architecture. Anything else is refused as upstream's CVO refuses
 * the payload (openshift/cluster-version-operator pkg/payload/payload.go, loadReleaseFromMetadata).
 */
function releaseArchitecture(v: unknown, version: string): 'Multi' {
  const where = `${FILE_MD}#metadata.release.openshift.io/architecture`;
  if (typeof v !== 'string')
    throw new PayloadError(
      'InvalidReleaseMetadata',
      `${FILE_MD}: Architecture from release-metadata (${version}) is not a string: ${JSON.stringify(v)}`,
      where,
    );
  if (v !== 'multi')
    throw new PayloadError(
      'InvalidReleaseMetadata',
      `${FILE_MD}: Architecture from release-metadata (${version}) contains invalid value: ${JSON.stringify(v)}. Valid value is "multi".`,
      where,
    );
  return 'Multi';
}

/** Parses and validates `release-metadata`; throws {@link PayloadError} `InvalidReleaseMetadata`. */
export function parseReleaseMetadata(text: string): ReleaseMetadata {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new PayloadError(
      'InvalidReleaseMetadata',
      `${FILE_MD}: unmarshal Cincinnati metadata: ${(e as Error).message}`,
      FILE_MD,
    );
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new PayloadError('InvalidReleaseMetadata', `${FILE_MD}: expected a JSON object`, FILE_MD);
  }
  if (nestedDeeperThan(doc)) {
    throw new PayloadError(
      'InvalidReleaseMetadata',
      `${FILE_MD}: nesting exceeded maxDepth (${MAX_DOCUMENT_DEPTH})`,
      FILE_MD,
    );
  }
  const o = doc as Record<string, unknown>;
  if (o['kind'] !== 'cincinnati-metadata-v0') {
    throw new PayloadError(
      'InvalidReleaseMetadata',
      `${FILE_MD}: unrecognized Cincinnati metadata kind ${JSON.stringify(o['kind'] ?? '')} (expected "cincinnati-metadata-v0")`,
      `${FILE_MD}#kind`,
    );
  }
  const version = o['version'];
  if (typeof version !== 'string' || version === '') {
    throw new PayloadError(
      'InvalidReleaseMetadata',
      `${FILE_MD}: missing required Cincinnati metadata version`,
      `${FILE_MD}#version`,
    );
  }
  let semver: SemVer;
  try {
    semver = new SemVer(version, { loose: false });
    const canonical = semver.version + (semver.build.length > 0 ? `+${semver.build.join('.')}` : '');
    if (canonical !== version) throw new Error('not a strict SemVer 2.0 version (no leading "v", "=" or spaces)');
  } catch (e) {
    throw new PayloadError(
      'InvalidReleaseMetadata',
      `${FILE_MD}: invalid Cincinnati metadata version ${JSON.stringify(version)}: ${(e as Error).message}`,
      `${FILE_MD}#version`,
    );
  }
  const metaRaw = o['metadata'];
  const metadata =
    metaRaw !== null && typeof metaRaw === 'object' && !Array.isArray(metaRaw)
      ? (metaRaw as Record<string, unknown>)
      : {};
  const out: ReleaseMetadata = {
    kind: 'cincinnati-metadata-v0',
    version,
    semver,
    previous: strArray(o['previous'], 'previous'),
    next: strArray(o['next'], 'next'),
    metadata,
    channels: [],
  };
  if (typeof metadata['url'] === 'string') out.url = metadata['url'];
  const ch = metadata['io.openshift.upgrades.graph.release.channels'];
  if (typeof ch === 'string' && ch !== '') out.channels = ch.split(',').sort();
  if ('release.openshift.io/architecture' in metadata)
    out.architecture = releaseArchitecture(metadata['release.openshift.io/architecture'], version);
  return out;
}

function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  }
  return out;
}

/** Parses `image-references` (YAML or JSON ImageStream); throws {@link PayloadError} `InvalidImageReferences`. */
export function parseImageReferences(text: string): ImageReferences {
  const doc = parseDocument(text, { version: '1.1', prettyErrors: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    if (!e) throw new PayloadError('InvalidImageReferences', `${FILE_IR}: invalid YAML/JSON`, FILE_IR);
    throw new PayloadError(
      'InvalidImageReferences',
      `${FILE_IR}:${e.linePos?.[0].line ?? 1}: invalid YAML/JSON: ${e.message.split('\n')[0]}`,
      FILE_IR,
    );
  }
  let o: unknown;
  try {
    // the YAML library throws plain errors for unresolved aliases, bad merge keys and alias bombs
    o = doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new PayloadError('InvalidImageReferences', `${FILE_IR}: invalid YAML/JSON: ${(e as Error).message}`, FILE_IR);
  }
  if (nestedDeeperThan(o)) {
    throw new PayloadError(
      'InvalidImageReferences',
      `${FILE_IR}: nesting exceeded maxDepth (${MAX_DOCUMENT_DEPTH})`,
      FILE_IR,
    );
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) {
    throw new PayloadError(
      'InvalidImageReferences',
      `${FILE_IR}: expected an image.openshift.io/v1 ImageStream object`,
      FILE_IR,
    );
  }
  const obj = o as Record<string, unknown>;
  if (obj['kind'] !== 'ImageStream' || (obj['apiVersion'] !== 'image.openshift.io/v1' && obj['apiVersion'] !== 'v1')) {
    throw new PayloadError(
      'InvalidImageReferences',
      `${FILE_IR}: image-references is a ${String(obj['apiVersion'])}/${String(obj['kind'])}, not a v1 ImageStream`,
      `${FILE_IR}#kind`,
    );
  }
  const meta = (obj['metadata'] ?? {}) as Record<string, unknown>;
  const spec = (obj['spec'] ?? {}) as Record<string, unknown>;
  const tags: ImageTag[] = [];
  const rawTags = Array.isArray(spec['tags']) ? (spec['tags'] as unknown[]) : [];
  rawTags.forEach((t, i) => {
    if (t === null || typeof t !== 'object') {
      throw new PayloadError(
        'InvalidImageReferences',
        `${FILE_IR}: spec.tags[${i}] must be an object`,
        `${FILE_IR}#spec.tags[${i}]`,
      );
    }
    const tag = t as Record<string, unknown>;
    const from = (tag['from'] ?? {}) as Record<string, unknown>;
    tags.push({
      name: typeof tag['name'] === 'string' ? tag['name'] : '',
      fromKind: typeof from['kind'] === 'string' ? from['kind'] : '',
      pullSpec: typeof from['name'] === 'string' ? from['name'] : '',
      annotations: strMap(tag['annotations']),
    });
  });
  const out: ImageReferences = {
    name: typeof meta['name'] === 'string' ? meta['name'] : '',
    annotations: strMap(meta['annotations']),
    tags,
  };
  const ct = meta['creationTimestamp'];
  if (typeof ct === 'string') out.creationTimestamp = ct;
  else if (ct instanceof Date) out.creationTimestamp = ct.toISOString().replace('.000Z', 'Z');
  return out;
}

/** Short image name → pull spec for tags of kind `DockerImage` (upstream `.Images` template variable). */
export function imagesFromReferences(refs: ImageReferences): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of refs.tags) if (t.fromKind === 'DockerImage') out[t.name] = t.pullSpec;
  return out;
}
