/** Go literals: strconv.Unquote for "…", `…` and '…', and text/template/parse's NewNumber. */

const SIMPLE: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** Go's strconv.Unquote; null on invalid syntax. */
export function unquote(s: string): string | null {
  if (s.length < 2) return null;
  const q = s[0];
  if (q !== s[s.length - 1]) return null;
  const body = s.slice(1, -1);
  if (q === '`') return body.includes('`') ? null : body.replaceAll('\r', '');
  if (q !== '"' && q !== "'") return null;
  if (body.includes('\n')) return null;
  let out = '';
  for (let i = 0; i < body.length;) {
    const c = body[i] ?? '';
    if (c === q) return null;
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const r = unescape(body, i + 1, q);
    if (r === null) return null;
    out += r.s;
    i = r.next;
  }
  if (q === "'" && Array.from(out).length !== 1) return null;
  return out;
}

function unescape(body: string, i: number, q: string): { s: string; next: number } | null {
  const e = body[i] ?? '';
  if (SIMPLE[e] !== undefined) return { s: SIMPLE[e], next: i + 1 };
  if (e === q) return { s: e, next: i + 1 };
  const hex = (n: number): { s: string; next: number } | null => {
    const h = body.slice(i + 1, i + 1 + n);
    if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(h)) return null;
    const v = parseInt(h, 16);
    if (n === 2) return { s: String.fromCharCode(v), next: i + 1 + n };
    if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return null;
    return { s: String.fromCodePoint(v), next: i + 1 + n };
  };
  if (e === 'x') return hex(2);
  if (e === 'u') return hex(4);
  if (e === 'U') return hex(8);
  if (/[0-7]/.test(e)) {
    const o = body.slice(i, i + 3);
    if (!/^[0-7]{3}$/.test(o)) return null;
    const v = parseInt(o, 8);
    return v > 255 ? null : { s: String.fromCharCode(v), next: i + 3 };
  }
  return null;
}

export interface NumberValue {
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  int: bigint;
  uint: bigint;
  float: number;
}

const MAX_I64 = (1n << 63n) - 1n;
const MIN_I64 = -(1n << 63n);
const MAX_U64 = (1n << 64n) - 1n;

/** Go's strconv.ParseInt/ParseUint with base 0 (prefixes, underscores); null when invalid. */
function parseGoInt(text: string): bigint | null {
  let s = text;
  let neg = false;
  if (s.startsWith('+') || s.startsWith('-')) {
    neg = s.startsWith('-');
    s = s.slice(1);
  }
  let base = 10;
  let digits = s;
  const pre = s.slice(0, 2).toLowerCase();
  if (pre === '0x') [base, digits] = [16, s.slice(2)];
  else if (pre === '0b') [base, digits] = [2, s.slice(2)];
  else if (pre === '0o') [base, digits] = [8, s.slice(2)];
  else if (s.length > 1 && s.startsWith('0')) [base, digits] = [8, s.slice(1)];
  if (digits.includes('_')) {
    const withPrefix = base === 10 ? digits : `0${digits}`;
    if (!/^[0-9a-zA-Z]+(_[0-9a-zA-Z]+)*$/.test(withPrefix.replace(/^0(?=_)/, '0'))) return null;
    digits = digits.replaceAll('_', '');
  }
  if (digits === '') return null;
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[base as 2 | 8 | 10 | 16];
  if (!valid.test(digits)) return null;
  let v = 0n;
  for (const d of digits) v = v * BigInt(base) + BigInt(parseInt(d, 16));
  return neg ? -v : v;
}

/** text/template/parse's NewNumber; a string is Go's error message. */
export function parseNumber(text: string, isChar: boolean): NumberValue | string {
  const n: NumberValue = { text, isInt: false, isUint: false, isFloat: false, int: 0n, uint: 0n, float: 0 };
  if (isChar) {
    const r = unquote(text);
    if (r === null) return 'invalid syntax';
    const cp = BigInt(r.codePointAt(0) ?? 0);
    return { ...n, isInt: true, isUint: true, isFloat: true, int: cp, uint: cp, float: Number(cp) };
  }
  if (text.endsWith('i')) return `illegal number syntax: ${JSON.stringify(text)}`;
  const iv = parseGoInt(text);
  if (iv !== null) {
    if (iv >= 0n && iv <= MAX_U64 && !text.startsWith('-') && !text.startsWith('+')) [n.isUint, n.uint] = [true, iv];
    if (iv >= MIN_I64 && iv <= MAX_I64) [n.isInt, n.int] = [true, iv];
  }
  if (n.isInt) [n.isFloat, n.float] = [true, Number(n.int)];
  else if (n.isUint) [n.isFloat, n.float] = [true, Number(n.uint)];
  else {
    const f = parseGoFloat(text);
    if (f !== null) {
      if (!/[.eEpP]/.test(text)) return `integer overflow: ${JSON.stringify(text)}`;
      [n.isFloat, n.float] = [true, f];
      if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) [n.isInt, n.int] = [true, BigInt(f)];
      if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) [n.isUint, n.uint] = [true, BigInt(f)];
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) return `illegal number syntax: ${JSON.stringify(text)}`;
  return n;
}

function parseGoFloat(text: string): number | null {
  const s = text.replaceAll('_', '');
  if (/^[+-]?0[xX]/.test(s)) {
    const m = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/.exec(s);
    if (!m) return null;
    const mant = parseInt(`${m[2] ?? ''}${m[3] ?? ''}` || '0', 16) / 16 ** (m[3] ?? '').length;
    const v = mant * 2 ** Number(m[4]);
    return m[1] === '-' ? -v : v;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
  return Number(s);
}
