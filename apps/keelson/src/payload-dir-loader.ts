/**
 * Loader of an extracted release directory for `keelson payload graph`, doing what the CVO's `payload.LoadUpdate` does
 * for `cluster-version-util task-graph` (release image "", default cluster profile, default feature set, no capability
 * filtering, no enabled feature gates, the payload's major version). Built on @keelson/release-payload; keep callers on
 * {@link loadPayloadTasks} only.
 */
import { createTask, type Task } from '@keelson/manifest-graph';
import {
  DEFAULT_CLUSTER_PROFILE,
  filterManifests,
  includeManifest,
  loadPayloadFromFiles,
  PayloadError,
  PayloadIntegrityError,
  readPayloadDirectory,
  type Manifest,
} from '@keelson/release-payload';

/** Codes of {@link PayloadLoadError}. */
export type PayloadLoadErrorCode = 'MISSING' | 'METADATA' | 'IMAGE_REFERENCES' | 'MANIFEST';

/** A payload directory could not be loaded; `path` names the file or directory at fault. */
export class PayloadLoadError extends Error {
  readonly code: PayloadLoadErrorCode;
  readonly path: string;
  constructor(code: PayloadLoadErrorCode, path: string, message: string) {
    super(message);
    this.name = 'PayloadLoadError';
    this.code = code;
    this.path = path;
  }
}

/** One parsed manifest document. */
export interface LoadedManifest {
  filename: string;
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  /** `null` when metadata.annotations is absent or not a string map (as Go's GetAnnotations). */
  annotations: Record<string, string> | null;
}

/** Result of {@link loadPayloadTasks}. */
export interface LoadedPayload {
  version: string;
  manifests: LoadedManifest[];
  /** Tasks numbered 1..N of N in load order, as `cluster-version-util task-graph` builds them. */
  tasks: Task<LoadedManifest>[];
  /** Non-fatal notes (skipped templates, excluded manifests). */
  warnings: string[];
}

/** Inclusion settings of `cluster-version-util task-graph`. */
const TASK_GRAPH_FACTS = {
  excludeIdentifier: '',
  featureSet: '',
  profile: DEFAULT_CLUSTER_PROFILE,
  enabledFeatureGates: [] as string[],
};

function loaded(m: Manifest): LoadedManifest {
  return {
    filename: m.filename,
    group: m.gvk.group,
    version: m.gvk.version,
    kind: m.gvk.kind,
    namespace: m.namespace,
    name: m.name,
    annotations: m.annotations === null ? null : { ...m.annotations },
  };
}

/** Why upstream's `Manifest.Include` would exclude `m`, or null to include it. */
export function exclusionReason(m: LoadedManifest, majorVersion: number): string | null {
  const manifest = {
    id: `${m.group}/${m.kind}/${m.namespace}/${m.name}`,
    filename: m.filename,
    dir: 'release-manifests',
    index: 0,
    line: 1,
    raw: new Uint8Array(0),
    source: '',
    object: {},
    gvk: { group: m.group, version: m.version, kind: m.kind },
    namespace: m.namespace,
    name: m.name,
    annotations: m.annotations,
  } satisfies Manifest;
  return includeManifest(manifest, { ...TASK_GRAPH_FACTS, majorVersion })?.message ?? null;
}

function toLoadError(e: PayloadError, dir: string): PayloadLoadError {
  if (e instanceof PayloadIntegrityError) return new PayloadLoadError('MANIFEST', dir, e.message);
  const code: PayloadLoadErrorCode =
    e.code === 'PayloadMissingFile'
      ? 'MISSING'
      : e.code === 'InvalidReleaseMetadata'
        ? 'METADATA'
        : e.code === 'InvalidImageReferences'
          ? 'IMAGE_REFERENCES'
          : 'MANIFEST';
  return new PayloadLoadError(code, e.path ?? dir, e.message);
}

/**
 * Loads `<dir>/manifests/` (templated) then `<dir>/release-manifests/` like upstream `LoadUpdate`:
 * files in byte order of their names, only `.yaml`/`.yml`/`.json`, multi-document files split in
 * order, manifests excluded by the default profile / feature set / gates / major version dropped.
 */
export async function loadPayloadTasks(dir: string): Promise<LoadedPayload> {
  let payload;
  try {
    payload = loadPayloadFromFiles(await readPayloadDirectory(dir), dir, {
      releaseImage: '',
      clusterProfile: DEFAULT_CLUSTER_PROFILE,
    });
  } catch (e) {
    if (e instanceof PayloadError) throw toLoadError(e, dir);
    throw e;
  }
  const result = filterManifests(payload, TASK_GRAPH_FACTS);
  const warnings = [...payload.warnings];
  for (const x of result.excluded) {
    warnings.push(
      `excluding ${x.manifest.filename} ${x.manifest.gvk.kind} ${x.manifest.namespace}/${x.manifest.name}: ${x.reason.message}`,
    );
  }
  const manifests = result.included.map(loaded);
  const total = manifests.length;
  const tasks = manifests.map((m, i) =>
    createTask({
      filename: m.filename,
      group: m.group,
      version: m.version,
      kind: m.kind,
      namespace: m.namespace,
      name: m.name,
      index: i + 1,
      total,
      data: m,
    }),
  );
  return { version: payload.metadata.version, manifests, tasks, warnings };
}
