import { PayloadError, PayloadIntegrityError, TemplateError, type PayloadIssue } from './errors.js';
import { versionHash } from './hash.js';
import {
  imagesFromReferences,
  parseImageReferences,
  parseReleaseMetadata,
  type ImageReferences,
  type ReleaseMetadata,
} from './metadata.js';
import { parseManifestFile, type Manifest, type PayloadDir } from './parse.js';
import { renderTemplate, type RenderConfig } from './template.js';
import { invalidUtf8Offset, lineOfByte } from './utf8.js';

/** Upstream default cluster profile. */
export const DEFAULT_CLUSTER_PROFILE = 'self-managed-high-availability';

/**
 * The files of a payload held in memory: the two payload directories, each a map base name → bytes. Only regular files
 * directly inside each directory (no subdirectories) are considered, as upstream.
 */
export interface PayloadFiles {
  manifests: Map<string, Uint8Array>;
  releaseManifests: Map<string, Uint8Array>;
  /** Symbolic links that lead to no regular file (dangling, to a directory, loops): not read, not extracted. */
  skippedLinks?: SkippedLink[];
}

/** A symbolic link of the payload that was skipped, with why. */
export interface SkippedLink {
  /** `manifests/<name>` or `release-manifests/<name>`. */
  path: string;
  /** The link's target as written. */
  target: string;
  reason: string;
}

/** Information about the container image a payload was read from (absent for directories). */
export interface PayloadImageInfo {
  /** Manifest digest (`sha256:…`) of the release image, the value signatures cover. */
  digest: string;
  /** Pull spec or path the image was read from. */
  reference: string;
  mediaType?: string;
  created?: string;
  os?: string;
  architecture?: string;
  labels: Record<string, string>;
  /** Layer digests in application order. */
  layers: string[];
}

/** A loaded release payload. */
export interface ReleasePayload {
  /** Where it was read from (path or pull spec). */
  source: string;
  /** Release image pull spec used for template rendering. */
  releaseImage: string;
  metadata: ReleaseMetadata;
  imageReferences: ImageReferences;
  /** Short image name → pull spec (`DockerImage` tags). */
  images: Record<string, string>;
  /** Every manifest of both directories, in load order (`manifests/` first, files in byte order, documents in order). */
  manifests: Manifest[];
  /** Non-fatal problems (e.g. a `manifests/` template that failed to render and was skipped). */
  warnings: string[];
  /** Image details when read from an image. */
  image?: PayloadImageInfo;
  /** The raw files (used by `extract`). */
  files: PayloadFiles;
}

/** Options for building a payload from files. */
export interface LoadOptions {
  /**
   * Release image pull spec for `{{.ReleaseImage}}`. Default: the image reference when read from an image,
   * else `""` (a directory, like upstream `LoadUpdate(dir, "", ...)`), so the rendered manifests and the
   * version hash do not depend on how the directory path is spelled.
   */
  releaseImage?: string;
  /** Cluster profile for `{{.ClusterProfile}}`; default `self-managed-high-availability`. */
  clusterProfile?: string;
}

const MANIFEST_EXT = /\.(ya?ml|json)$/;
const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * Decodes UTF-8 text, refusing invalid sequences (upstream's YAML reader rejects them) with the file, line and byte
 * offset, instead of replacing them silently.
 */
function decodeStrict(bytes: Uint8Array, file: string): string | PayloadIssue {
  const bad = invalidUtf8Offset(bytes);
  if (bad < 0) return decoder.decode(bytes);
  return {
    file,
    line: lineOfByte(bytes, bad),
    offset: bad,
    message: `invalid UTF-8 at byte offset ${bad} (byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, '0')}); manifests must be UTF-8 text`,
  };
}

function decodeOrThrow(
  bytes: Uint8Array,
  file: string,
  code: 'InvalidReleaseMetadata' | 'InvalidImageReferences',
): string {
  const r = decodeStrict(bytes, file);
  if (typeof r === 'string') return r;
  throw new PayloadError(code, `${file}: ${r.message}`, file);
}

/** Byte-order comparison of file names (Go `os.ReadDir` order). */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Builds a {@link ReleasePayload} from in-memory files; validates layout, metadata and every manifest. */
export function loadPayloadFromFiles(
  files: PayloadFiles,
  source: string,
  opts: LoadOptions = {},
  image?: PayloadImageInfo,
): ReleasePayload {
  const mdBytes = files.releaseManifests.get('release-metadata');
  if (!mdBytes) {
    throw new PayloadError(
      'PayloadMissingFile',
      `${source}: release-manifests/release-metadata is missing; is this a release payload?`,
      'release-manifests/release-metadata',
    );
  }
  const irBytes = files.releaseManifests.get('image-references');
  if (!irBytes) {
    throw new PayloadError(
      'PayloadMissingFile',
      `${source}: release-manifests/image-references is missing; is this a release payload?`,
      'release-manifests/image-references',
    );
  }
  const metadata = parseReleaseMetadata(
    decodeOrThrow(mdBytes, 'release-manifests/release-metadata', 'InvalidReleaseMetadata'),
  );
  const imageReferences = parseImageReferences(
    decodeOrThrow(irBytes, 'release-manifests/image-references', 'InvalidImageReferences'),
  );
  if (imageReferences.name !== metadata.version) {
    throw new PayloadError(
      'InvalidImageReferences',
      `version from image-references (${imageReferences.name}) differs from release-metadata (${metadata.version})`,
      'release-manifests/image-references#metadata.name',
    );
  }
  const images = imagesFromReferences(imageReferences);
  const releaseImage = opts.releaseImage ?? image?.reference ?? '';
  const cfg: RenderConfig = {
    ReleaseImage: releaseImage,
    ClusterProfile: opts.clusterProfile ?? DEFAULT_CLUSTER_PROFILE,
    Images: images,
  };

  const issues: PayloadIssue[] = [];
  const warnings: string[] = (files.skippedLinks ?? []).map(
    (l) => `Skipping symlink ${l.path} -> ${l.target}: ${l.reason}`,
  );
  const manifests: Manifest[] = [];
  const dirs: [PayloadDir, Map<string, Uint8Array>][] = [
    ['manifests', files.manifests],
    ['release-manifests', files.releaseManifests],
  ];
  for (const [dir, map] of dirs) {
    const names = [...map.keys()].filter((n) => MANIFEST_EXT.test(n)).sort(compareNames);
    for (const name of names) {
      const decoded = decodeStrict(map.get(name) ?? new Uint8Array(), `${dir}/${name}`);
      if (typeof decoded !== 'string') {
        issues.push(decoded);
        continue;
      }
      let text = decoded;
      if (dir === 'manifests') {
        try {
          text = renderTemplate(text, cfg, name);
        } catch (e) {
          if (e instanceof TemplateError) {
            warnings.push(
              `Skipping manifest manifests/${name}: template rendering failed (may require a newer CVO): ${e.message}`,
            );
            continue;
          }
          throw e;
        }
      }
      manifests.push(...parseManifestFile(text, name, dir, issues));
    }
  }
  if (issues.length > 0) throw new PayloadIntegrityError(source, issues);
  const out: ReleasePayload = { source, releaseImage, metadata, imageReferences, images, manifests, warnings, files };
  if (image) out.image = image;
  return out;
}

/** `versionHash` of a list of manifests (FNV-1 64, base64url with padding, over raw bytes in order). */
export function manifestHash(manifests: readonly Manifest[]): string {
  return versionHash(manifests.map((m) => m.raw));
}
