/**
 * Serialises a plain JSON-compatible value exactly as Go's `encoding/json.Marshal` does for `map[string]interface{}`
 * trees: object keys sorted by byte order, HTML-sensitive characters escaped (`<`, `>`, `&`, U+2028, U+2029).
 * The CVO keeps this form as the raw bytes of manifests read from YAML, so hashes match upstream.
 */
export function goJsonMarshal(value: unknown): string {
  const sorted = sortedCopy(value);
  if (sorted !== FALLBACK) {
    // native serialisation of a key-sorted copy, then Go's HTML-safe escapes
    const s = JSON.stringify(sorted);
    return HTML_UNSAFE.test(s) ? s.replace(HTML_UNSAFE_G, (c) => ESCAPES[c] ?? c) : s;
  }
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

const FALLBACK = Symbol('fallback');
const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_G = /[<>&\u2028\u2029]/g;
// keys JavaScript would order numerically (array-index-like) or strings with lone surrogates need the slow path
const INDEX_KEY = /^(0|[1-9][0-9]{0,9})$/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function sortedCopy(v: unknown): unknown {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'string' && LONE_SURROGATE.test(v)) return FALLBACK;
    if (
      typeof v === 'bigint' ||
      typeof v === 'function' ||
      typeof v === 'symbol' ||
      (typeof v === 'number' && Object.is(v, -0))
    )
      return FALLBACK;
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
  for (const k of keys) if (INDEX_KEY.test(k) || LONE_SURROGATE.test(k)) return FALLBACK;
  keys.sort(compareBytes);
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const x = sortedCopy(o[k]);
    if (x === FALLBACK) return FALLBACK;
    if (x !== undefined) out[k] = x;
  }
  return out;
}

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f<>&\u2028\u2029]/g;

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE_TEST = /["\\\u0000-\u001f<>&\u2028\u2029]/;

function quote(s: string): string {
  if (!NEEDS_ESCAPE_TEST.test(s)) return '"' + s + '"';
  return (
    '"' + s.replace(NEEDS_ESCAPE, (c) => ESCAPES[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '"'
  );
}

function compareBytes(a: string, b: string): number {
  // Go sorts map keys by byte order of their UTF-8 encoding; for BMP-only strings code-unit order matches
  // except for surrogates, which we handle via Buffer comparison when needed.
  if (a === b) return 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) {
      if (ca < 0x80 && cb < 0x80) return ca - cb;
      return Buffer.compare(Buffer.from(a), Buffer.from(b));
    }
  }
  return a.length - b.length;
}

function write(v: unknown, out: string[]): void {
  if (v === null || v === undefined) {
    out.push('null');
  } else if (typeof v === 'string') {
    out.push(quote(v));
  } else if (typeof v === 'number') {
    out.push(Number.isFinite(v) ? String(v) : 'null');
  } else if (typeof v === 'bigint') {
    out.push(v.toString());
  } else if (typeof v === 'boolean') {
    out.push(v ? 'true' : 'false');
  } else if (Array.isArray(v)) {
    out.push('[');
    v.forEach((item, i) => {
      if (i > 0) out.push(',');
      write(item, out);
    });
    out.push(']');
  } else if (typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj).sort(compareBytes);
    out.push('{');
    keys.forEach((k, i) => {
      if (i > 0) out.push(',');
      out.push(quote(k), ':');
      write(obj[k], out);
    });
    out.push('}');
  } else {
    // functions, symbols: not JSON values (Go would refuse them); encode as null
    out.push('null');
  }
}
