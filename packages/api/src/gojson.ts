/**
 * The one Go `encoding/json` encoder of Keelson (golang/go `src/encoding/json/encode.go` `Marshal`, `MarshalIndent`,
 * `appendString`): what upstream's Go writes, byte for byte, for the values our objects hold — the CVO's manifest
 * bytes and hashes, the MCO's rendered configs, user-data, registry policies and butane's output.
 *
 * - strings: `"`, `\`, `\n`, `\r`, `\t`, `\b`, `\f` escaped by name, other controls and the HTML-sensitive `<`, `>`,
 *   `&`, U+2028, U+2029 as `\u00XX`; invalid UTF-16 (a lone surrogate) becomes U+FFFD as Go's invalid UTF-8 does;
 * - maps (`map[string]interface{}`, the default): keys sorted by the bytes of their UTF-8 encoding; with
 *   `sortKeys: false` the keys keep their order (a Go struct's field order, when the caller built the object so);
 * - object fields whose value is `undefined` are left out (`omitempty` of absent fields), `undefined` elsewhere and
 *   non-finite numbers are `null`;
 * - `indent` gives `MarshalIndent(v, "", indent)`: one element per line, `[]` and `{}` when empty.
 */

/** Options of {@link goJsonMarshal}. */
export interface GoJsonOptions {
  /** Sort object keys by UTF-8 bytes, as Go does for maps (default true). */
  readonly sortKeys?: boolean;
  /** `json.MarshalIndent` with this indent (and no prefix); compact when absent. */
  readonly indent?: string;
}

/** Go's `encoding/json` string encoding (HTML-safe). */
export function goJsonString(str: string): string {
  if (!NEEDS_WORK.test(str)) return `"${str}"`;
  let out = '"';
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = str.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += str.charAt(i) + str.charAt(i + 1);
        i++;
      } else out += '\ufffd';
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\ufffd';
    else out += ESCAPES[c] ?? (c < 0x20 || HTML.has(c) ? `\\u${c.toString(16).padStart(4, '0')}` : str.charAt(i));
  }
  return `${out}"`;
}

/** Go's `json.Marshal` (or `MarshalIndent` with `indent`) of a JSON-compatible value; see the module comment. */
export function goJsonMarshal(value: unknown, options: GoJsonOptions = {}): string {
  const sortKeys = options.sortKeys !== false;
  if (sortKeys && options.indent === undefined) {
    // fast path: native serialisation of a key-sorted copy, then Go's HTML-safe escapes
    const sorted = sortedCopy(value);
    if (sorted !== FALLBACK) {
      const s = JSON.stringify(sorted) ?? 'null';
      return HTML_UNSAFE.test(s) ? s.replace(HTML_UNSAFE_G, (c) => HTML_ESCAPES[c] ?? c) : s;
    }
  }
  const parts: string[] = [];
  write(value, parts, sortKeys, options.indent, '');
  return parts.join('');
}

/** Compares strings by the bytes of their UTF-8 encoding (Go's `sort.Strings` on map keys). */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) {
      // below the surrogates, UTF-16 code-unit order is UTF-8 byte order
      if (ca < 0xd800 && cb < 0xd800) return ca - cb;
      return Buffer.compare(Buffer.from(a.slice(i)), Buffer.from(b.slice(i)));
    }
  }
  return a.length - b.length;
}

const ESCAPES: Record<number, string> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x08: '\\b',
  0x0c: '\\f',
};
const HTML = new Set([0x3c, 0x3e, 0x26, 0x2028, 0x2029]);
// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;
const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_G = /[<>&\u2028\u2029]/g;
const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
const FALLBACK = Symbol('fallback');
// keys JavaScript orders numerically (array-index-like) and strings with surrogates take the slow path
const INDEX_KEY = /^(0|[1-9][0-9]{0,9})$/;
const SURROGATE = /[\ud800-\udfff]/;

function sortedCopy(v: unknown): unknown {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'string' && SURROGATE.test(v)) return FALLBACK;
    if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol' || v === undefined) return FALLBACK;
    return v;
  }
  if (Array.isArray(v)) {
    const out: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = sortedCopy(v[i]);
      if (x === FALLBACK) return FALLBACK;
      out[i] = x;
    }
    return out;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  for (const k of keys) if (INDEX_KEY.test(k) || SURROGATE.test(k)) return FALLBACK;
  keys.sort(compareUtf8);
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (o[k] === undefined) continue;
    const x = sortedCopy(o[k]);
    if (x === FALLBACK) return FALLBACK;
    out[k] = x;
  }
  return out;
}

function write(v: unknown, out: string[], sortKeys: boolean, indent: string | undefined, pad: string): void {
  if (typeof v === 'string') out.push(goJsonString(v));
  else if (typeof v === 'number') out.push(Number.isFinite(v) ? String(v) : 'null');
  else if (typeof v === 'bigint') out.push(v.toString());
  else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
  else if (Array.isArray(v)) writeList(v, out, sortKeys, indent, pad);
  else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined);
    if (sortKeys) keys.sort(compareUtf8);
    const inner = indent === undefined ? '' : pad + indent;
    const open = indent === undefined ? '' : `\n${inner}`;
    if (keys.length === 0) {
      out.push('{}');
      return;
    }
    out.push('{');
    keys.forEach((k, i) => {
      out.push(i > 0 ? `,${open}` : open, goJsonString(k), indent === undefined ? ':' : ': ');
      write(o[k], out, sortKeys, indent, inner);
    });
    out.push(indent === undefined ? '}' : `\n${pad}}`);
  } else out.push('null'); // null, undefined, functions, symbols (Go has no such values)
}

function writeList(v: unknown[], out: string[], sortKeys: boolean, indent: string | undefined, pad: string): void {
  if (v.length === 0) {
    out.push('[]');
    return;
  }
  const inner = indent === undefined ? '' : pad + indent;
  const open = indent === undefined ? '' : `\n${inner}`;
  out.push('[');
  v.forEach((x, i) => {
    out.push(i > 0 ? `,${open}` : open);
    write(x, out, sortKeys, indent, inner);
  });
  out.push(indent === undefined ? ']' : `\n${pad}]`);
}
