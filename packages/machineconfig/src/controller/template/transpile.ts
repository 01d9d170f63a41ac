/**
 * Rendered templates → Ignition, as upstream's pkg/controller/common/helpers.go TranspileCoreOSConfigToIgn does: each
 * file/unit YAML is read by ghodss/yaml (YAML 1.1 → JSON → Go struct, keys matched case-insensitively) into an FCCT
 * base/v0_1 File or Unit, translated to Ignition 3.0 (`inline` → a `data:,` URL escaped as vincent-petithory/dataurl
 * does, `overwrite: true`), converted to 3.5 and merged (ign3.Merge: files by path, units by name). The output JSON has
 * the shape Go's json.Marshal gives ign3types.Config (empty structs kept, nil pointers/slices omitted).
 */
import { parse as parseYaml } from 'yaml';

type Json = Record<string, unknown>;

/** A template that does not read as a file/unit (upstream's "failed to unmarshal …" errors). */
export class TranspileError extends Error {
  readonly code = 'MCO_TEMPLATE_TRANSPILE';
  constructor(message: string) {
    super(message);
    this.name = 'TranspileError';
  }
}

/**
 * vincent-petithory/dataurl EscapeString: every byte but A–Z a–z 0–9 - _ . ! ~ * ' ( ) as %XX (upper-case hex).
 * encodeURIComponent keeps exactly that set and escapes UTF-8 bytes the same way; a lone surrogate (not UTF-8)
 * falls back to the byte loop.
 */
export function dataURLEscape(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    let out = '';
    for (const b of Buffer.from(s, 'utf8'))
      out += UNRESERVED.has(b) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    return out;
  }
}

const UNRESERVED = new Set([...Buffer.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")]);

/** encoding/json's case-insensitive field match. */
function get(o: Json, key: string): unknown {
  if (Object.hasOwn(o, key)) return o[key];
  const lower = key.toLowerCase();
  for (const [k, v] of Object.entries(o)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function typeErr(value: unknown, goType: string, field: string): TranspileError {
  const kind = Array.isArray(value)
    ? 'array'
    : value === null
      ? 'null'
      : typeof value === 'object'
        ? 'object'
        : typeof value;
  return new TranspileError(`json: cannot unmarshal ${kind} into Go struct field ${field} of type ${goType}`);
}

function optString(o: Json, key: string, field: string): string | undefined {
  const v = get(o, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw typeErr(v, 'string', field);
  return v;
}

function optInt(o: Json, key: string, field: string): number | undefined {
  const v = get(o, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeErr(v, 'int', field);
  return v;
}

function optBool(o: Json, key: string, field: string): boolean | undefined {
  const v = get(o, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw typeErr(v, 'bool', field);
  return v;
}

function optObject(o: Json, key: string, field: string, goType: string): Json {
  const v = get(o, key);
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw typeErr(v, goType, field);
  return v as Json;
}

function node(o: Json, key: string, field: string): Json {
  const n = optObject(o, key, field, `base.Node${key === 'user' ? 'User' : 'Group'}`);
  const out: Json = {};
  const id = optInt(n, 'id', `${field}.id`);
  const name = optString(n, 'name', `${field}.name`);
  if (id !== undefined) out['id'] = id;
  if (name !== undefined) out['name'] = name;
  return out;
}

function resource(c: Json, field: string): Json {
  const out: Json = {};
  const compression = optString(c, 'compression', `${field}.compression`);
  let source = optString(c, 'source', `${field}.source`);
  const inline = optString(c, 'inline', `${field}.inline`);
  if (inline !== undefined) source = `data:,${dataURLEscape(inline)}`;
  if (compression !== undefined) out['compression'] = compression;
  if (source !== undefined) out['source'] = source;
  const hash = optString(
    optObject(c, 'verification', `${field}.verification`, 'base.Verification'),
    'hash',
    `${field}.verification.hash`,
  );
  out['verification'] = hash === undefined ? {} : { hash };
  return out;
}

function yamlObject(text: string, what: string): Json {
  let y: unknown;
  try {
    y = parseYaml(text, { version: '1.1', uniqueKeys: false });
  } catch (e) {
    throw new TranspileError(
      `failed to unmarshal ${JSON.stringify(text)} into struct: error converting YAML to JSON: ${(e as Error).message}`,
    );
  }
  if (y === null || y === undefined) return {};
  if (typeof y !== 'object' || Array.isArray(y))
    throw new TranspileError(
      `failed to unmarshal ${what}: json: cannot unmarshal ${Array.isArray(y) ? 'array' : typeof y} into Go value of type base.${what.includes('unit') ? 'Unit' : 'File'}`,
    );
  return y as Json;
}

/** One file template → an Ignition 3.5 file entry. */
export function transpileFile(text: string): Json {
  const f = yamlObject(text, JSON.stringify(text));
  const append = get(f, 'append');
  const out: Json = {
    group: node(f, 'group', 'File.group'),
    overwrite: true,
    path: optString(f, 'path', 'File.path') ?? '',
    user: node(f, 'user', 'File.user'),
  };
  if (Array.isArray(append) && append.length > 0)
    out['append'] = append.map((a, i) => resource((a ?? {}) as Json, `File.append[${i}]`));
  out['contents'] = resource(optObject(f, 'contents', 'File.contents', 'base.FileContents'), 'File.contents');
  const mode = optInt(f, 'mode', 'File.mode');
  if (mode !== undefined) out['mode'] = mode;
  return out;
}

/** One unit template → an Ignition 3.5 unit entry. */
export function transpileUnit(text: string): Json {
  const u = yamlObject(text, 'systemd unit');
  const out: Json = {};
  const contents = optString(u, 'contents', 'Unit.contents');
  if (contents !== undefined) out['contents'] = contents;
  const dropins = get(u, 'dropins');
  if (Array.isArray(dropins) && dropins.length > 0) {
    out['dropins'] = dropins.map((d, i) => {
      const dj = (d ?? {}) as Json;
      const c = optString(dj, 'contents', `Unit.dropins[${i}].contents`);
      return {
        ...(c !== undefined ? { contents: c } : {}),
        name: optString(dj, 'name', `Unit.dropins[${i}].name`) ?? '',
      };
    });
  }
  const enabled = optBool(u, 'enabled', 'Unit.enabled');
  const mask = optBool(u, 'mask', 'Unit.mask');
  if (enabled !== undefined) out['enabled'] = enabled;
  if (mask !== undefined) out['mask'] = mask;
  out['name'] = optString(u, 'name', 'Unit.name') ?? '';
  return out;
}

function deepMerge(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      prev && v && typeof prev === 'object' && typeof v === 'object' && !Array.isArray(prev) && !Array.isArray(v)
        ? deepMerge(prev as Json, v as Json)
        : v;
  }
  return out;
}

/** ign3.Merge of single-entry configs: later entries with the same key merge into the first, in place. */
function mergeKeyed(entries: Json[], key: string): Json[] {
  const out: Json[] = [];
  const at = new Map<unknown, number>();
  for (const e of entries) {
    const i = at.get(e[key]);
    if (i === undefined) {
      at.set(e[key], out.length);
      out.push(e);
    } else out[i] = deepMerge(out[i] as Json, e);
  }
  return out;
}

/**
 * Transpiled entries by rendered text (the transpile is a pure function of the text): a template that renders to the
 * same text as before (every resync of an unchanged ControllerConfig, `common/` in two MCs) is not read as YAML again.
 * Bounded: cleared when it holds more than `limit` texts.
 */
export class TranspileCache {
  private readonly files = new Map<string, Json>();
  private readonly units = new Map<string, Json>();
  constructor(private readonly limit = 4096) {}

  /** The entry for `text` (a copy: callers own what they get), transpiled once. */
  entry(kind: 'file' | 'unit', text: string): Json {
    const m = kind === 'file' ? this.files : this.units;
    const hit = m.get(text);
    if (hit) return structuredClone(hit);
    const v = kind === 'file' ? transpileFile(text) : transpileUnit(text);
    if (this.files.size + this.units.size >= this.limit) {
      this.files.clear();
      this.units.clear();
    }
    m.set(text, structuredClone(v));
    return v;
  }

  get size(): number {
    return this.files.size + this.units.size;
  }
}

/** TranspileCoreOSConfigToIgn: files and units (already sorted by template file name) → an Ignition 3.5 config. */
export function transpileToIgnition(
  files: readonly string[],
  units: readonly string[],
  cache: TranspileCache = new TranspileCache(),
): Json {
  const cfg: Json = {
    ignition: {
      config: { replace: { verification: {} } },
      proxy: {},
      security: { tls: {} },
      timeouts: {},
      version: '3.5.0',
    },
    kernelArguments: {},
    passwd: {},
    storage: {},
    systemd: {},
  };
  const f = mergeKeyed(
    files.map((t) => cache.entry('file', t)),
    'path',
  );
  const u = mergeKeyed(
    units.map((t) => cache.entry('unit', t)),
    'name',
  );
  if (f.length > 0) cfg['storage'] = { files: f };
  if (u.length > 0) cfg['systemd'] = { units: u };
  return cfg;
}
