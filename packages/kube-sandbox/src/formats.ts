/**
 * OpenAPI string `format` checks of custom resources, as apiextensions-apiserver applies them: the formats
 * supported at Kubernetes 1.32 (kubernetes staging apiextensions-apiserver
 * `pkg/apiserver/validation/formats.go`, `supportedVersionedFormats`) validated with kube-openapi's strfmt default
 * registry (`pkg/validation/strfmt/default.go`, `duration.go`, `time.go`, `date.go`, `bson.go`) and the govalidator
 * functions it uses. Unsupported formats are ignored, as `StripUnsupportedFormatsPostProcess` blanks them;
 * integer (`int32`, `int64`) and number (`float`, `double`) formats are kept but validate nothing, as kube-openapi's
 * type validator accepts every JSON integer/number for them.
 */
import { isIP } from 'node:net';

/** A format checker: true when the string is valid for the format. */
export type FormatCheck = (s: string) => boolean;

const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
// govalidator.IsBase64: standard alphabet, padded, at least one quantum (so "" is refused)
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const DATE_TIME_CLOCK = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const RGB_PART = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const RGB = new RegExp(`^rgb\\(${RGB_PART},${RGB_PART},${RGB_PART}\\)$`);
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const DOT_ATOM = `${ATEXT}(?:\\.${ATEXT})*`;
const ADDR_SPEC = new RegExp(`^(?:${DOT_ATOM}|"(?:[^"\\\\]|\\\\.)*")@(?:${DOT_ATOM}|\\[[^\\[\\]\\\\]*\\])$`);

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Go `time.Parse("2006-01-02", s)` (strfmt `IsDate`). */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (mo === 2 && leap ? 29 : (DAYS_IN_MONTH[mo - 1] ?? 0));
}

/** strfmt `IsDateTime`: `<date>T<hh:mm:ss[.frac]>(Z|±hh:mm)`, case-insensitive. */
export function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] ?? '')) return false;
  const m = DATE_TIME_CLOCK.exec(parts[1] ?? '');
  if (!m) return false;
  return (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

const GO_UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** Go `time.ParseDuration` syntax (without the int64 overflow check). */
export function isGoDuration(s: string): boolean {
  let rest = s.replace(/^[-+]/, '');
  if (rest === '0') return true;
  if (rest === '') return false;
  while (rest !== '') {
    const m = /^(\d*)(?:\.(\d*))?([^\d.]+)/.exec(rest);
    if (!m || ((m[1] ?? '') === '' && (m[2] ?? '') === '') || !GO_UNITS.has(m[3] ?? '')) return false;
    rest = rest.slice(m[0].length);
  }
  return true;
}

const SCALA_UNITS: string[][] = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** strfmt `IsDuration`: Go syntax, else the Scala-like `<n> <unit>` list. */
export function isDuration(s: string): boolean {
  if (isGoDuration(s)) return true;
  if (!/^\s*(?:\d+\s*[A-Za-zµ]+\s*)+$/.test(s)) return false;
  for (const m of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = (m[2] ?? '').trim().toLowerCase();
    for (const variants of SCALA_UNITS) {
      if (variants.some((v, i) => (i === variants.length - 1 && unit.startsWith(v)) || v === unit)) return true;
    }
  }
  return false;
}

const NANOS_PER: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
};

/** Go `time.ParseDuration` in nanoseconds (a fraction is truncated to whole nanoseconds); undefined when invalid. */
function goDurationNanos(s: string): bigint | undefined {
  if (!isGoDuration(s)) return undefined;
  const negative = s.startsWith('-');
  let total = 0n;
  for (const m of s.replace(/^[-+]/, '').matchAll(/(\d*)(?:\.(\d*))?([^\d.]+)/g)) {
    const per = NANOS_PER[m[3] ?? ''] ?? 0n;
    const frac = (m[2] ?? '').slice(0, 18);
    total += BigInt(m[1] || '0') * per + (frac === '' ? 0n : (BigInt(frac) * per) / 10n ** BigInt(frac.length));
  }
  return negative ? -total : total;
}

/**
 * strfmt `ParseDuration` in nanoseconds: Go syntax, else the sum of each `<n> <unit>` of the Scala-like form
 * (`3 days`, `1 hour 30 min`); undefined when neither parses.
 */
export function parseDurationNanos(s: string): bigint | undefined {
  const go = goDurationNanos(s);
  if (go !== undefined) return go;
  let total = 0n;
  let ok = false;
  for (const m of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = (m[2] ?? '').trim().toLowerCase();
    for (const variants of SCALA_UNITS) {
      const last = variants.length - 1;
      if (!variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) continue;
      ok = true;
      total += BigInt(m[1] ?? '0') * (NANOS_PER[variants[0] ?? ''] ?? 0n);
    }
  }
  return ok ? total : undefined;
}

function isIPv4(s: string): boolean {
  return !s.includes('%') && isIP(s) !== 0 && s.includes('.');
}

function isIPv6(s: string): boolean {
  return !s.includes('%') && isIP(s) !== 0 && s.includes(':');
}

/** Go `net.ParseCIDR`. */
function isCidr(s: string): boolean {
  const i = s.indexOf('/');
  if (i < 0) return false;
  const ip = s.slice(0, i);
  const bits = s.slice(i + 1);
  const kind = s.includes('%') ? 0 : isIP(ip);
  if (kind === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (kind === 4 && !ip.includes(':') ? 32 : 128);
}

/** Go `net.ParseMAC`: 6, 8 or 20 octets, `:`/`-` separated pairs or `.` separated quads. */
function isMac(s: string): boolean {
  const pairs = s.split(/[:-]/);
  if (/^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2})+$/.test(s) && new Set(s.replace(/[0-9a-fA-F]/g, '')).size === 1)
    return [6, 8, 20].includes(pairs.length);
  if (/^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4})+$/.test(s)) return [3, 4, 10].includes(s.split('.').length);
  return false;
}

function hasControlChar(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Go `url.ParseRequestURI` (govalidator `IsRequestURI`): an absolute URI or an absolute path. */
function isRequestUri(s: string): boolean {
  if (s === '' || hasControlChar(s)) return false;
  if (s.startsWith('/')) return true;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return false;
  const rest = m[2] ?? '';
  if (!rest.startsWith('//')) return true;
  const authority = rest.slice(2).split(/[/?#]/)[0] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  return !/[\s<>"{}|\\^`]/.test(host);
}

/** Go `net/mail.ParseAddress` for the common forms: `local@domain` or `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const m = /^\s*(?:"[^"]*"|[^<>"]*?)\s*<([^<>]*)>\s*$/.exec(s);
  return ADDR_SPEC.test(m ? (m[1] ?? '') : s.trim());
}

function isHostname(s: string): boolean {
  return HOSTNAME.test(s) && s.length <= 255 && s.split('.').every((p) => p.length <= 63);
}

function isbn10(s: string): boolean {
  const d = s.replace(/[- ]/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
  sum += d[9] === 'X' ? 100 : 10 * Number(d[9]);
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const d = s.replace(/[- ]/g, '');
  if (!/^[0-9]{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(d[i]);
  return Number(d[12]) - ((10 - (sum % 10)) % 10) === 0;
}

function luhn(d: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i]);
    if (double) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  return CREDIT_CARD.test(d) && luhn(d);
}

/** kube-openapi strfmt's default registry, by normalized name (dashes removed). */
const CHECKS: Record<string, FormatCheck> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestUri,
  email: isEmail,
  hostname: isHostname,
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCidr,
  mac: isMac,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => RGB.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
  quantity: (s) => QUANTITY.test(s),
};

/** The checker of a schema's string format, or undefined when apiextensions ignores the format. */
export function formatCheck(format: string): FormatCheck | undefined {
  return CHECKS[format.replace(/-/g, '')];
}

/** The format names apiextensions-apiserver 1.32 validates on strings (normalized: no dashes). */
export const SUPPORTED_STRING_FORMATS: readonly string[] = Object.keys(CHECKS);
