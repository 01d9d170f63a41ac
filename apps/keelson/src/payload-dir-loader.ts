/**
 * Minimal loader of an extracted release directory, doing what the CVO's `payload.LoadUpdate` does for
 * `cluster-version-util task-graph` (release image "", default cluster profile, default feature set,
 * no capability filtering, no enabled feature gates). It will be replaced by @keelson/release-payload;
 * keep callers on {@link loadPayloadTasks} only.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createTask, type Task } from '@keelson/manifest-graph';
import { parseAllDocuments, parseDocument } from 'yaml';

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

const DEFAULT_PROFILE = 'self-managed-high-availability';
const KNOWN_FEATURE_SETS = new Set(['Default', 'TechPreviewNoUpgrade', 'DevPreviewNoUpgrade', 'CustomNoUpgrade', 'OKD']);
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

async function mustExist(path: string): Promise<void> {
  try {
    await stat(path);
  } catch {
    throw new PayloadLoadError('MISSING', path, `${path} does not exist: a release directory needs manifests/, release-manifests/, release-manifests/release-metadata and release-manifests/image-references`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function readJson(path: string, code: PayloadLoadErrorCode): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new PayloadLoadError(code, path, `${path}: invalid JSON (${(e as Error).message})`);
  }
}

async function readYaml(path: string, code: PayloadLoadErrorCode): Promise<unknown> {
  const doc = parseDocument(await readFile(path, 'utf8'), { version: '1.1' });
  if (doc.errors.length > 0) throw new PayloadLoadError(code, path, `${path}: invalid YAML/JSON (${doc.errors[0]?.message ?? ''})`);
  return doc.toJS() as unknown;
}

/** Splits a YAML stream like the Kubernetes YAML reader (lines starting with `---`). */
function splitYamlDocuments(text: string, file: string): string[] {
  const docs: string[] = [];
  let buf: string[] = [];
  const lines = text.split(/(?<=\n)/);
  for (const line of lines) {
    if (line.startsWith('---')) {
      const rest = line.slice(3).trim();
      if (rest.length > 0 && !rest.startsWith('#')) {
        throw new PayloadLoadError('MANIFEST', file, `${file}: invalid Yaml document separator: ${rest}`);
      }
      if (buf.length > 0) docs.push(buf.join(''));
      buf = [];
      continue;
    }
    buf.push(line);
  }
  if (buf.length > 0) docs.push(buf.join(''));
  return docs;
}

/** Splits a stream of concatenated JSON values. */
function splitJsonValues(text: string, file: string): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (i >= text.length) break;
    let depth = 0;
    let inStr = false;
    let j = i;
    for (; j < text.length; j++) {
      const c = text.charAt(j);
      if (inStr) {
        if (c === '\\') j++;
        else if (c === '"') inStr = false;
      } else if (c === '"') inStr = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          j++;
          break;
        }
      } else if (depth === 0 && /\s/.test(c)) break;
    }
    try {
      out.push(JSON.parse(text.slice(i, j)));
    } catch (e) {
      throw new PayloadLoadError('MANIFEST', file, `${file}: error parsing: ${(e as Error).message}`);
    }
    i = j;
  }
  return out;
}

function parseDocuments(text: string, file: string): unknown[] {
  if (/^\s*\{/.test(text)) return splitJsonValues(text, file);
  const values: unknown[] = [];
  for (const doc of splitYamlDocuments(text, file)) {
    const parsed = parseAllDocuments(doc, { version: '1.1' });
    for (const d of Array.isArray(parsed) ? parsed : [parsed]) {
      if (d.errors.length > 0) {
        throw new PayloadLoadError('MANIFEST', file, `${file}: error parsing: ${d.errors[0]?.message ?? 'invalid YAML'}`);
      }
      values.push(d.toJS({ maxAliasCount: 100 }) as unknown);
    }
  }
  return values;
}

function stringMap(v: unknown): Record<string, string> | null {
  if (!isRecord(v)) return null;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') return null;
    out[k] = val;
  }
  return out;
}

function toManifests(values: unknown[], file: string): LoadedManifest[] {
  const out: LoadedManifest[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (!isRecord(v)) throw new PayloadLoadError('MANIFEST', file, `${file}: a document is not an object; every document must be a Kubernetes object`);
    const apiVersion = v['apiVersion'];
    const kind = v['kind'];
    if (typeof kind !== 'string' || kind === '') throw new PayloadLoadError('MANIFEST', file, `${file}: Object 'Kind' is missing; add kind to every document`);
    if (typeof apiVersion !== 'string' || apiVersion === '') throw new PayloadLoadError('MANIFEST', file, `${file}: Object 'apiVersion' is missing; add apiVersion to every document`);
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    const meta = isRecord(v['metadata']) ? v['metadata'] : {};
    const name = typeof meta['name'] === 'string' ? meta['name'] : '';
    const namespace = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
    if (name === '') throw new PayloadLoadError('MANIFEST', file, `${file}: ${kind} must contain kubernetes required fields kind and name (metadata.name is missing)`);
    const id = JSON.stringify([group, kind, namespace, name]);
    if (seen.has(id)) throw new PayloadLoadError('MANIFEST', file, `${file}: duplicate resource ${kind} ${namespace}/${name}`);
    seen.add(id);
    out.push({ filename: file, group, version, kind, namespace, name, annotations: stringMap(meta['annotations']) });
  }
  return out;
}

/** Why upstream's `Manifest.Include` would exclude `m`, or null to include it. */
export function exclusionReason(m: LoadedManifest, majorVersion: number): string | null {
  const a = m.annotations;
  if (a === null) return 'no annotations';
  if (a['exclude.release.openshift.io/'] === 'true') return 'exclude.release.openshift.io/=true';
  const fs = a['release.openshift.io/feature-set'];
  const fg = a['release.openshift.io/feature-gate'];
  if (fs !== undefined && fg !== undefined) return 'both feature set and feature gate annotations are present';
  if (fs !== undefined) {
    const sets = fs.split(',');
    const unknown = sets.find((s) => !KNOWN_FEATURE_SETS.has(s));
    if (unknown !== undefined) return `unrecognized value ${JSON.stringify(unknown)} in release.openshift.io/feature-set=${fs}`;
    if (!sets.includes('Default')) return `"Default" is required, and release.openshift.io/feature-set=${fs}`;
  }
  if (fg !== undefined) {
    for (const raw of fg.split(',')) {
      const req = raw.trim();
      if (req === '' || req.startsWith('-')) continue; // no gate is enabled
      return `feature gate ${req} is required but not enabled`;
    }
  }
  const mv = a['release.openshift.io/major-version'];
  if (mv !== undefined) {
    const isFeatureGate = m.group === 'config.openshift.io' && m.kind === 'FeatureGate';
    const isCrd = m.group === 'apiextensions.k8s.io' && m.kind === 'CustomResourceDefinition';
    if (!isFeatureGate && !isCrd) return 'major version filtering is only supported for feature gates and custom resources';
    const inc = new Set<number>();
    const exc = new Set<number>();
    for (const raw of mv.split(',')) {
      const req = raw.trim();
      if (req === '') continue;
      const neg = req.startsWith('-');
      const num = neg ? req.slice(1) : req;
      if (!/^\d+$/.test(num)) return `invalid ${neg ? 'excluded' : 'included'} major version ${JSON.stringify(num)} in annotation`;
      (neg ? exc : inc).add(Number(num));
    }
    if ([...inc].some((x) => exc.has(x))) return 'inclusion and exclusion requirements overlap';
    if (!inc.has(majorVersion)) {
      if (exc.has(majorVersion)) return `major version ${majorVersion} matches excluded version ${majorVersion}`;
      if (inc.size > 0) return `major version ${majorVersion} does not match any required versions`;
    }
  }
  const profileKey = `include.release.openshift.io/${DEFAULT_PROFILE}`;
  const pv = a[profileKey];
  if (pv === undefined) return `${profileKey} unset`;
  if (pv !== 'true') return `unrecognized value ${profileKey}=${pv}`;
  return null;
}

interface RenderConfig {
  ReleaseImage: string;
  ClusterProfile: string;
  Images: Record<string, string>;
}

/** The subset of Go text/template the CVO's own manifests use: `.Field`, `.Images.name`, `index .Images "name"`, comments. */
function renderTemplate(text: string, cfg: RenderConfig, file: string): string {
  return text.replace(/\{\{(-\s)?([\s\S]*?)(\s-)?\}\}/g, (_m, _l, body: string) => {
    const expr = body.trim();
    if (/^\/\*[\s\S]*\*\/$/.test(expr)) return '';
    let m = /^\.(ReleaseImage|ClusterProfile)$/.exec(expr);
    if (m !== null) return cfg[m[1] as 'ReleaseImage' | 'ClusterProfile'];
    m = /^\.Images\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
    if (m !== null) return cfg.Images[m[1] ?? ''] ?? '<no value>';
    m = /^index\s+\.Images\s+"([^"\\]*)"$/.exec(expr);
    if (m !== null) return cfg.Images[m[1] ?? ''] ?? '';
    throw new PayloadLoadError('MANIFEST', file, `${file}: template: manifest: can't evaluate ${JSON.stringify(expr)}`);
  });
}

function byteOrder(a: string, b: string): number {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return Buffer.compare(ba, bb);
}

/**
 * Loads `<dir>/manifests/` (templated) then `<dir>/release-manifests/` like upstream `LoadUpdate`:
 * files in byte order of their names, only `.yaml`/`.yml`/`.json`, multi-document files split in
 * order, manifests excluded by the default profile / feature set / gates / major version dropped.
 */
export async function loadPayloadTasks(dir: string): Promise<LoadedPayload> {
  const cvoDir = join(dir, 'manifests');
  const releaseDir = join(dir, 'release-manifests');
  const metaPath = join(releaseDir, 'release-metadata');
  const refsPath = join(releaseDir, 'image-references');
  for (const p of [cvoDir, releaseDir, metaPath, refsPath]) await mustExist(p);

  const meta = await readJson(metaPath, 'METADATA');
  if (!isRecord(meta)) throw new PayloadLoadError('METADATA', metaPath, `${metaPath}: must be a JSON object`);
  if (meta['kind'] !== 'cincinnati-metadata-v0') {
    throw new PayloadLoadError('METADATA', metaPath, `${metaPath}: unrecognized Cincinnati metadata kind ${JSON.stringify(meta['kind'])}; expected "cincinnati-metadata-v0"`);
  }
  const version = meta['version'];
  if (typeof version !== 'string' || version === '') throw new PayloadLoadError('METADATA', metaPath, `${metaPath}: missing required Cincinnati metadata version`);
  const sv = SEMVER.exec(version);
  if (sv === null) throw new PayloadLoadError('METADATA', metaPath, `${metaPath}: invalid Cincinnati metadata version ${JSON.stringify(version)}`);
  const major = Number(sv[1]);

  const refs = await readYaml(refsPath, 'IMAGE_REFERENCES');
  if (!isRecord(refs) || refs['kind'] !== 'ImageStream' || !['image.openshift.io/v1', 'v1'].includes(String(refs['apiVersion']))) {
    throw new PayloadLoadError('IMAGE_REFERENCES', refsPath, `${refsPath}: must be a v1 ImageStream`);
  }
  const refsName = isRecord(refs['metadata']) ? refs['metadata']['name'] : undefined;
  if (refsName !== version) {
    throw new PayloadLoadError('IMAGE_REFERENCES', refsPath, `version from image-references (${String(refsName)}) differs from release-metadata (${version})`);
  }
  const images: Record<string, string> = {};
  const spec = isRecord(refs['spec']) ? refs['spec'] : {};
  for (const tag of Array.isArray(spec['tags']) ? (spec['tags'] as unknown[]) : []) {
    if (isRecord(tag) && typeof tag['name'] === 'string' && isRecord(tag['from']) && tag['from']['kind'] === 'DockerImage' && typeof tag['from']['name'] === 'string') {
      images[tag['name']] = tag['from']['name'];
    }
  }
  const cfg: RenderConfig = { ReleaseImage: '', ClusterProfile: DEFAULT_PROFILE, Images: images };

  const warnings: string[] = [];
  const manifests: LoadedManifest[] = [];
  const errors: string[] = [];
  for (const [d, templated] of [
    [cvoDir, true],
    [releaseDir, false],
  ] as const) {
    const entries = (await readdir(d, { withFileTypes: true })).sort((a, b) => byteOrder(a.name, b.name));
    for (const entry of entries) {
      if (entry.isDirectory()) continue;
      if (!['.yaml', '.yml', '.json'].includes(extname(entry.name))) continue;
      const p = join(d, entry.name);
      if (!templated && (p === metaPath || p === refsPath)) continue;
      let text = await readFile(p, 'utf8');
      if (templated) {
        try {
          text = renderTemplate(text, cfg, entry.name);
        } catch (e) {
          warnings.push(`Skipping manifest ${entry.name}: template rendering failed: ${(e as Error).message}`);
          continue;
        }
      }
      let docs: LoadedManifest[];
      try {
        docs = toManifests(parseDocuments(text, entry.name), entry.name);
      } catch (e) {
        errors.push(`parse ${entry.name}: ${(e as Error).message}`);
        continue;
      }
      for (const m of docs) {
        const why = exclusionReason(m, major);
        if (why !== null) {
          warnings.push(`excluding ${m.filename} ${m.kind} ${m.namespace}/${m.name}: ${why}`);
          continue;
        }
        manifests.push(m);
      }
    }
  }
  if (errors.length > 0) {
    throw new PayloadLoadError('MANIFEST', dir, `Error loading manifests from ${dir}: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`);
  }
  const total = manifests.length;
  const tasks = manifests.map((m, i) =>
    createTask({ filename: m.filename, group: m.group, version: m.version, kind: m.kind, namespace: m.namespace, name: m.name, index: i + 1, total, data: m }),
  );
  return { version, manifests, tasks, warnings };
}
