import {
  binaryTag,
  boolYaml11Tag,
  FAILSAFE_SCHEMA,
  floatYaml11Tag,
  intYaml11Tag,
  loadAll,
  mergeTag,
  nullYaml11Tag,
  Schema,
  YAMLException,
} from 'js-yaml';
import { goJsonMarshal } from './gojson.js';
import { LineIndex } from './lines.js';
import { MAX_DOCUMENT_DEPTH } from './depth.js';
import type { PayloadIssue } from './errors.js';

/** Group, version and kind of a manifest (`group` is empty for the core API group). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A Kubernetes object as parsed from a manifest (JSON-compatible values only). */
export type KubeObject = { [key: string]: unknown };

/** Directory a manifest came from: the CVO's own `manifests/` or `release-manifests/`. */
export type PayloadDir = 'manifests' | 'release-manifests';

/** One manifest (document) of a payload. */
export interface Manifest {
  /** Stable identity `group/kind/namespace/name` (namespace empty for cluster-scoped objects). */
  id: string;
  /** Base name of the file the document came from (upstream `OriginalFilename`). */
  filename: string;
  /** Directory of the file. */
  dir: PayloadDir;
  /** 0-based index of the document inside its file. */
  index: number;
  /** 1-based line where the document starts in its file. */
  line: number;
  /**
   * Raw bytes as upstream keeps them: for JSON files the exact JSON text of the value; for YAML documents the
   * document converted to JSON the way Go does (sorted keys). Used for `versionHash`.
   */
  raw: Uint8Array;
  /** Original document text as found in the file (after template rendering for `manifests/`). */
  source: string;
  /** Parsed object. */
  object: KubeObject;
  gvk: GroupVersionKind;
  namespace: string;
  name: string;
  /** `metadata.annotations` when present and all values are strings (upstream semantics), else `null`. */
  annotations: Readonly<Record<string, string>> | null;
}

/**
 * YAML 1.1 scalars as Go's yaml.v2 resolves them when decoding into interface{} (booleans y/yes/on, octal 0755, ...),
 * but timestamps stay strings.
 */
const GO_YAML_SCHEMA = new Schema([
  ...FAILSAFE_SCHEMA.tags,
  nullYaml11Tag,
  boolYaml11Tag,
  intYaml11Tag,
  floatYaml11Tag,
  mergeTag,
  binaryTag,
]);

const encoder = new TextEncoder();

/** Splits `apiVersion` into group and version. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** Builds the stable id used by this package (`group/kind/namespace/name`). */
export function manifestId(group: string, kind: string, namespace: string, name: string): string {
  return `${group}/${kind}/${namespace}/${name}`;
}

interface RawDoc {
  raw: Uint8Array;
  source: string;
  value: unknown;
  line: number;
}

function isJsonStream(text: string): boolean {
  for (let i = 0; i < text.length && i < 1024; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x7b; // '{'
  }
  return false;
}

/** Scans concatenated JSON values; returns their exact text. */
function splitJsonStream(text: string, file: string, issues: PayloadIssue[]): RawDoc[] {
  const docs: RawDoc[] = [];
  const lines = new LineIndex(text);
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      i++;
      continue;
    }
    const start = i;
    let depth = 0;
    let maxDepth = 0;
    let inStr = false;
    let end = -1;
    if (c !== 0x7b && c !== 0x5b) {
      // scalar value: read to next whitespace or structural character
      let j = i;
      while (j < n && !/[\s{[]/.test(text.charAt(j))) j++;
      end = j;
    } else {
      for (let j = i; j < n; j++) {
        const ch = text.charCodeAt(j);
        if (inStr) {
          if (ch === 0x5c) j++;
          else if (ch === 0x22) inStr = false;
          continue;
        }
        if (ch === 0x22) inStr = true;
        else if (ch === 0x7b || ch === 0x5b) maxDepth = Math.max(maxDepth, ++depth);
        else if (ch === 0x7d || ch === 0x5d) {
          depth--;
          if (depth === 0) {
            end = j + 1;
            break;
          }
        }
      }
    }
    const line = lines.lineAt(start);
    if (end < 0) {
      issues.push({ file, line, message: 'unexpected end of JSON input (unterminated object or array)' });
      return docs;
    }
    if (maxDepth > MAX_DOCUMENT_DEPTH) {
      issues.push({ file, line, message: `invalid JSON: nesting exceeded maxDepth (${MAX_DOCUMENT_DEPTH})` });
      return docs;
    }
    const slice = text.slice(start, end);
    let value: unknown;
    try {
      value = JSON.parse(slice);
    } catch (e) {
      issues.push({ file, line, message: `invalid JSON: ${(e as Error).message}` });
      return docs;
    }
    docs.push({ raw: encoder.encode(slice), source: slice, value, line });
    i = end;
  }
  return docs;
}

/** Splits a YAML stream on `---` separator lines the way Kubernetes' YAML reader does. */
function splitYamlStream(text: string, file: string, issues: PayloadIssue[]): RawDoc[] {
  const docs: RawDoc[] = [];
  const chunks: { text: string; line: number }[] = [];
  let startLine = 1;
  let lineNo = 1;
  let chunkStart = 0;
  let pos = 0;
  while (pos <= text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const lineText = text.slice(pos, nl);
    if (lineText.startsWith('---') && lineText.slice(3).trim() === '') {
      chunks.push({ text: text.slice(chunkStart, pos), line: startLine });
      chunkStart = nl + 1;
      startLine = lineNo + 1;
    }
    pos = nl + 1;
    lineNo++;
  }
  if (chunkStart < text.length) chunks.push({ text: text.slice(chunkStart), line: startLine });
  for (const chunk of chunks) {
    if (chunk.text.trim() === '') continue;
    let values: unknown[];
    try {
      values = loadAll(chunk.text, { schema: GO_YAML_SCHEMA, filename: file });
    } catch (e) {
      const mark = e instanceof YAMLException ? (e as YAMLException & { mark?: { line?: number } }).mark : undefined;
      const reason =
        e instanceof YAMLException
          ? ((e as YAMLException & { reason?: string }).reason ?? e.message)
          : (e as Error).message;
      issues.push({ file, line: chunk.line + (mark?.line ?? 0), message: `invalid YAML: ${reason}` });
      continue;
    }
    for (const v of values) {
      let value: unknown;
      try {
        value = normalise(v);
      } catch (e) {
        issues.push({ file, line: chunk.line, message: `invalid YAML: ${(e as Error).message}` });
        continue;
      }
      const json = goJsonMarshal(value);
      docs.push({ raw: encoder.encode(json), source: chunk.text, value, line: chunk.line });
    }
  }
  return docs;
}
/** Converts YAML-specific values (binary, maps, sets) to JSON-compatible ones. */
function normalise(v: unknown, budget = { n: 0 }): unknown {
  if (++budget.n > 2_000_000) throw new Error('document expands to too many nodes (alias bomb?)');
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('latin1');
  if (Array.isArray(v)) return v.map((x) => normalise(x, budget));
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, val] of v) o[String(k)] = normalise(val, budget);
    return o;
  }
  if (v instanceof Set) return [...v].map((x) => normalise(x, budget));
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) o[k] = normalise(o[k], budget);
  return o;
}

function stringMap(v: unknown): Record<string, string> | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') return null;
    out[k] = val;
  }
  return out;
}

/**
 * Parses one manifest file (YAML stream or concatenated JSON values) into manifests. Problems are appended to
 * `issues` (every one, with its line), never thrown.
 */
export function parseManifestFile(text: string, filename: string, dir: PayloadDir, issues: PayloadIssue[]): Manifest[] {
  const file = `${dir}/${filename}`;
  const docs = isJsonStream(text) ? splitJsonStream(text, file, issues) : splitYamlStream(text, file, issues);
  const out: Manifest[] = [];
  const seen = new Set<string>();
  let index = 0;
  for (const d of docs) {
    const rawText = d.source.trim();
    if (d.value === null || rawText === '' || rawText === 'null') continue;
    if (typeof d.value !== 'object' || Array.isArray(d.value)) {
      issues.push({ file, line: d.line, message: 'document is not an object (expected a Kubernetes resource)' });
      continue;
    }
    const obj = d.value as KubeObject;
    const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
    const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
    const meta = obj['metadata'];
    const metaObj =
      meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
    const name = typeof metaObj['name'] === 'string' ? metaObj['name'] : '';
    const namespace = typeof metaObj['namespace'] === 'string' ? metaObj['namespace'] : '';
    const { group, version } = splitApiVersion(apiVersion);
    if (kind === '') {
      const text = Buffer.from(d.raw).toString('utf8');
      issues.push({
        file,
        line: d.line,
        message: `Object 'Kind' is missing in '${text.length > 200 ? text.slice(0, 200) + '...' : text}'; add kind to the document`,
      });
      continue;
    }
    if (name === '') {
      issues.push({
        file,
        line: d.line,
        message: `Resource with fields Group: ${JSON.stringify(group)} Kind: ${JSON.stringify(kind)} Name: ${JSON.stringify(name)} must contain kubernetes required fields kind and name`,
      });
      continue;
    }
    const id = manifestId(group, kind, namespace, name);
    if (seen.has(id)) {
      issues.push({ file, line: d.line, message: `duplicate resource: (${id})` });
      continue;
    }
    seen.add(id);
    out.push({
      id,
      filename,
      dir,
      index: index++,
      line: d.line,
      raw: d.raw,
      source: d.source,
      object: obj,
      gvk: { group, version, kind },
      namespace,
      name,
      annotations: metaObj['annotations'] === undefined ? null : stringMap(metaObj['annotations']),
    });
  }
  return out;
}
