/** yaml.v2 tag resolution (resolve.go) and Go float formatting: when a plain scalar must be quoted. */
// ---------------------------------------------------------------------------------------------------------------
// Tag resolution (resolve.go): would this string, written plain, read back as something other than a string?

const RESOLVE_MAP = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '',
  '~',
  'null',
  'Null',
  'NULL',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
  '<<',
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;
export const UINT64_MAX = 18446744073709551615n;

function hintOf(s: string): string {
  if (s === '') return 'N';
  const c = s[0] as string;
  if (c === '+' || c === '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if ('yYnNtTfFoO~'.includes(c)) return 'M';
  if (c === '.') return '.';
  return '';
}

/** Go strconv.ParseInt/ParseUint with base 0 (prefixes 0x, 0o, 0b, leading-0 octal), value or undefined. */
function goParseIntBase0(s: string, signed: boolean): bigint | undefined {
  let i = 0;
  let neg = false;
  if (signed && (s[0] === '+' || s[0] === '-')) {
    neg = s[0] === '-';
    i = 1;
  }
  let body = s.slice(i);
  if (body === '') return undefined;
  let re: RegExp;
  let prefix = '';
  if (/^0[xX]/.test(body)) {
    body = body.slice(2);
    re = /^[0-9a-fA-F]+$/;
    prefix = '0x';
  } else if (/^0[oO]/.test(body)) {
    body = body.slice(2);
    re = /^[0-7]+$/;
    prefix = '0o';
  } else if (/^0[bB]/.test(body)) {
    body = body.slice(2);
    re = /^[01]+$/;
    prefix = '0b';
  } else if (body.length > 1 && body[0] === '0') {
    body = body.slice(1);
    re = /^[0-7]+$/;
    prefix = '0o';
  } else {
    re = /^[0-9]+$/;
  }
  if (!re.test(body)) return undefined;
  let v = BigInt(prefix + body);
  if (neg) v = -v;
  if (signed ? v > INT64_MAX || v < INT64_MIN : v > UINT64_MAX) return undefined;
  return v;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** yaml.v2 parseTimestamp: the four time.Parse layouts it tries. */
function isTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:([Tt])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/.exec(
      s,
    );
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  const hh = m[5] ?? m[8];
  const mm = m[6] ?? m[9];
  const ss = m[7] ?? m[10];
  if (hh !== undefined && (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59)) return false;
  return true;
}

/** Go strconv.ParseFloat acceptance for the inputs that reach it here. */
function goParseFloatOk(s: string): boolean {
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s) || /^[-+]?(inf|infinity|nan)$/i.test(s);
}

/** True when yaml.v2 would resolve the plain scalar `s` to a non-string (so the encoder must quote it). */
export function resolvesToNonString(s: string): boolean {
  const hint = hintOf(s);
  if (hint === '') return false;
  if (RESOLVE_MAP.has(s)) return true;
  if (hint === '.') return goParseFloatOk(s) && Number.isFinite(Number(s));
  if (hint === 'D' || hint === 'S') {
    if (isTimestamp(s)) return true;
    const plain = s.replaceAll('_', '');
    if (goParseIntBase0(plain, true) !== undefined) return true;
    if (goParseIntBase0(plain, false) !== undefined) return true;
    if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return true;
    if (plain.startsWith('0b') && /^[01]+$/.test(plain.slice(2))) return true;
    if (plain.startsWith('-0b') && /^[01]+$/.test(plain.slice(3))) return true;
  }
  return false;
}

export function isBase60Float(s: string): boolean {
  if (s === '') return false;
  const c = s[0] as string;
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) return false;
  return BASE60_FLOAT.test(s);
}

// ---------------------------------------------------------------------------------------------------------------
// Number formatting (strconv.FormatFloat(f, 'g', -1, 64)).

/** Go's `strconv.FormatFloat(f, 'g', -1, 64)` as yaml.v2 uses it (plus its .inf/.nan spellings). */
export function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant = '', expPart = '0'] = f.toExponential().split('e');
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const exp = Number(expPart);
  let out: string;
  if (exp < -4 || exp >= 21 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ae = Math.abs(exp);
    out = `${m}e${exp < 0 ? '-' : '+'}${ae < 10 ? `0${ae}` : String(ae)}`;
  } else if (exp < 0) {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = digits + '0'.repeat(exp + 1 - digits.length);
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return neg ? `-${out}` : out;
}
