/**
 * A faithful re-implementation of the subset of gopkg.in/yaml.v2 (v2.4.0) that the MCO uses to build the
 * rendered-MachineConfig hash input: `yaml.Marshal` of the generic value tree that `yaml.Unmarshal` produces
 * from JSON (ghodss/yaml JSONToYAML). Written from the behaviour of the Go code (emitter state machine, scalar
 * analysis, style selection, key sorting, tag resolution); no Go code is copied.
 */

/** A float64 whose value is integral but must still be written as a Go float (e.g. JSON `1.0`, `1e3`). */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** An unsigned 64-bit integer above the int64 range (yaml.v2 resolves such JSON numbers to uint64). */
export class GoUint {
  constructor(readonly value: bigint) {}
}

/**
 * A value in the generic tree yaml.v2 marshals. Integral JS numbers are Go `int`, non-integral ones `float64`;
 * `bigint` is an int64; {@link GoFloat} / {@link GoUint} force the other Go kinds.
 */
export type GoYamlValue =
  | null
  | boolean
  | string
  | number
  | bigint
  | GoFloat
  | GoUint
  | GoYamlValue[]
  | { readonly [key: string]: GoYamlValue };

/** Raised when yaml.v2 would refuse the input (same texts as the Go library). */
export class YamlV2Error extends Error {
  /** Stable error code. */
  readonly code = 'YAML_V2_ERROR';
  constructor(message: string) {
    super(message);
    this.name = 'YamlV2Error';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Character classes (by code point; the Go code works on UTF-8 bytes but every test is per character).

const isPrintable = (c: number): boolean =>
  c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
const isSpace = (c: number | undefined): boolean => c === 0x20;
const isBlank = (c: number | undefined): boolean => c === 0x20 || c === 0x09;
const isBreak = (c: number | undefined): boolean =>
  c === 0x0d || c === 0x0a || c === 0x85 || c === 0x2028 || c === 0x2029;
const isBlankZ = (c: number | undefined): boolean => c === undefined || c === 0 || isBlank(c) || isBreak(c);

/** Characters the yaml.v2 reader refuses ("control characters are not allowed"). */
export function yamlReaderAccepts(c: number): boolean {
  return (
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d ||
    (c >= 0x20 && c <= 0x7e) ||
    c === 0x85 ||
    (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

const SURROGATE = /[\ud800-\udfff]/;
function codePoints(s: string): number[] {
  if (!SURROGATE.test(s)) {
    const fast = new Array<number>(s.length);
    for (let i = 0; i < s.length; i++) fast[i] = s.charCodeAt(i);
    return fast;
  }
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    // Lone surrogates cannot come out of Go's encoding/json (invalid UTF-8 becomes U+FFFD).
    out.push(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
  }
  return out;
}

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
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const UINT64_MAX = 18446744073709551615n;

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

function isBase60Float(s: string): boolean {
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

// ---------------------------------------------------------------------------------------------------------------
// Key ordering (sorter.go keyList.Less) for string keys.

const isLetter = (ch: string): boolean => {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
  return /\p{L}/u.test(ch);
};
const isDigit = (ch: string | undefined): boolean => {
  if (ch === undefined) return false;
  const c = ch.charCodeAt(0);
  if (c < 0x80) return c >= 0x30 && c <= 0x39;
  return /\p{Nd}/u.test(ch);
};
const digitVal = (ch: string): bigint => BigInt((ch.codePointAt(0) as number) - 48);

/** yaml.v2's "natural" string key order: true when a sorts before b. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ai0 = ar[i] as string;
    const bi0 = br[i] as string;
    if (ai0 === bi0) continue;
    const al = isLetter(ai0);
    const bl = isLetter(bi0);
    if (al && bl) return (ai0.codePointAt(0) as number) < (bi0.codePointAt(0) as number);
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ai0 === '0' || bi0 === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + digitVal(ar[ai] as string);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + digitVal(br[bi] as string);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return (ai0.codePointAt(0) as number) < (bi0.codePointAt(0) as number);
  }
  return ar.length < br.length;
}

const SORT_CACHE = new Map<string, string[]>();

function sortKeys(keys: string[]): string[] {
  // Go uses sort.Sort (not stable) but keys of a map are distinct, so any correct sort gives one order.
  // Objects of one shape repeat thousands of times in a config: remember the order per key set.
  const sig = JSON.stringify(keys);
  const hit = SORT_CACHE.get(sig);
  if (hit) return hit;
  const sorted = keys.sort((x, y) => (yamlKeyLess(x, y) ? -1 : yamlKeyLess(y, x) ? 1 : 0));
  if (SORT_CACHE.size > 2000) SORT_CACHE.clear();
  SORT_CACHE.set(sig, sorted);
  return sorted;
}

interface KeyInfo {
  cps: number[];
  analysis: Analysis;
  simple: boolean;
}
const KEY_CACHE = new Map<string, KeyInfo>();

function keyInfo(k: string): KeyInfo {
  let info = KEY_CACHE.get(k);
  if (!info) {
    const cps = codePoints(k);
    const analysis = analyzeScalar(cps);
    info = { cps, analysis, simple: !analysis.multiline && Buffer.byteLength(k, 'utf8') <= 128 };
    if (KEY_CACHE.size > 5000) KEY_CACHE.clear();
    KEY_CACHE.set(k, info);
  }
  return info;
}

// ---------------------------------------------------------------------------------------------------------------
// Emitter.

type Style = 'plain' | 'single' | 'double' | 'literal';

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const FIRST_INDICATORS = new Set(Array.from('#,[]{}&*!|>\'"%@`', (ch) => ch.charCodeAt(0)));

function analyzeScalar(v: number[]): Analysis {
  if (v.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  if (
    v.length >= 3 &&
    ((v[0] === 0x2d && v[1] === 0x2d && v[2] === 0x2d) || (v[0] === 0x2e && v[1] === 0x2e && v[2] === 0x2e))
  ) {
    blockIndicators = true;
  }
  let precededByWhitespace = true;
  for (let i = 0; i < v.length; i++) {
    const c = v[i] as number;
    const followedByWhitespace = i + 1 >= v.length || isBlank(v[i + 1]);
    if (i === 0) {
      if (FIRST_INDICATORS.has(c)) blockIndicators = true;
      else if ((c === 0x3f || c === 0x3a) && followedByWhitespace) blockIndicators = true;
      else if (c === 0x2d && followedByWhitespace) blockIndicators = true;
    } else if (c === 0x3a && followedByWhitespace) blockIndicators = true;
    else if (c === 0x23 && precededByWhitespace) blockIndicators = true;
    if (!isPrintable(c)) special = true;
    if (isSpace(c)) {
      if (i === 0) leadingSpace = true;
      if (i + 1 === v.length) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i + 1 === v.length) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankZ(c);
  }
  const a: Analysis = { multiline: lineBreaks, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlainAllowed = false;
  if (trailingSpace) a.blockAllowed = false;
  if (breakSpace) {
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
    a.blockAllowed = false;
  }
  if (lineBreaks) a.blockPlainAllowed = false;
  if (blockIndicators) a.blockPlainAllowed = false;
  return a;
}

const PLAIN_SLOW = /[ \r\n\u0085\u2028\u2029]/;
const BEST_INDENT = 2;
const BEST_WIDTH = 80;

class Emitter {
  out = '';
  column = 0;
  indent = -1;
  indents: number[] = [];
  whitespace = true;
  indention = true;
  openEnded = false;
  flowLevel = 0;

  put(s: string): void {
    this.out += s;
    this.column++;
  }
  putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }
  writeCp(c: number): void {
    this.out += c < 0x10000 ? String.fromCharCode(c) : String.fromCodePoint(c);
    this.column++;
  }
  writeBreakCp(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.out += String.fromCharCode(c);
      this.column = 0;
    }
  }
  increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }
  popIndent(): void {
    this.indent = this.indents.pop() as number;
  }
  writeIndent(): void {
    const indent = this.indent < 0 ? 0 : this.indent;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }
  writeIndicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of ind) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
    this.openEnded = false;
  }

  // --- nodes -----------------------------------------------------------------------------------------------
  node(v: GoYamlValue, ctx: { root: boolean; mapping: boolean; simpleKey: boolean }): void {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        this.emptyFlow('[', ']');
        return;
      }
      this.increaseIndent(false, ctx.mapping && !this.indention);
      for (const item of v) {
        this.writeIndent();
        this.writeIndicator('-', true, false, true);
        this.node(item, { root: false, mapping: false, simpleKey: false });
      }
      this.popIndent();
      return;
    }
    if (v !== null && typeof v === 'object' && !(v instanceof GoFloat) && !(v instanceof GoUint)) {
      const keys = sortKeys(Object.keys(v));
      if (keys.length === 0) {
        this.emptyFlow('{', '}');
        return;
      }
      this.increaseIndent(false, false);
      for (const k of keys) {
        this.writeIndent();
        const { cps: kcp, analysis: ka, simple } = keyInfo(k);
        const value = (v as Record<string, GoYamlValue>)[k] as GoYamlValue;
        if (simple) {
          this.stringScalar(k, kcp, ka, { root: false, simpleKey: true });
          this.writeIndicator(':', false, false, false);
        } else {
          this.writeIndicator('?', true, false, true);
          this.stringScalar(k, kcp, ka, { root: false, simpleKey: false });
          this.writeIndent();
          this.writeIndicator(':', true, false, true);
        }
        this.node(value, { root: false, mapping: true, simpleKey: false });
      }
      this.popIndent();
      return;
    }
    if (typeof v === 'string') {
      const cps = codePoints(v);
      this.stringScalar(v, cps, analyzeScalar(cps), { root: ctx.root, simpleKey: ctx.simpleKey });
      return;
    }
    let text: string;
    if (v === null) text = 'null';
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else if (typeof v === 'bigint') text = v.toString();
    else if (v instanceof GoUint) text = v.value.toString();
    else if (v instanceof GoFloat) text = formatGoFloat(v.value);
    else if (Number.isSafeInteger(v)) text = BigInt(v).toString();
    else text = formatGoFloat(v);
    const cps = codePoints(text);
    this.scalar(cps, 'plain', analyzeScalar(cps), { root: ctx.root, simpleKey: ctx.simpleKey }, text);
  }

  emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.increaseIndent(true, false);
    this.flowLevel++;
    this.flowLevel--;
    this.popIndent();
    this.writeIndicator(close, false, false, false);
  }

  stringScalar(s: string, cps: number[], a: Analysis, ctx: { root: boolean; simpleKey: boolean }): void {
    const canUsePlain = !resolvesToNonString(s) && !isBase60Float(s);
    let style: Style;
    if (s.includes('\n')) style = 'literal';
    else if (canUsePlain) style = 'plain';
    else style = 'double';
    this.scalar(cps, style, a, ctx, s);
  }

  scalar(
    cps: number[],
    requested: Style,
    a: Analysis,
    ctx: { root: boolean; simpleKey: boolean },
    text?: string,
  ): void {
    let style = requested;
    if (ctx.simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlainAllowed) style = 'single';
      if (cps.length === 0 && ctx.simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || ctx.simpleKey)) style = 'double';
    this.increaseIndent(true, false);
    const allowBreaks = !ctx.simpleKey;
    if (style === 'plain') this.writePlain(cps, allowBreaks, ctx.root, text);
    else if (style === 'single') this.writeSingle(cps, allowBreaks);
    else if (style === 'double') this.writeDouble(cps, allowBreaks);
    else this.writeLiteral(cps);
    this.popIndent();
  }

  writePlain(v: number[], allowBreaks: boolean, root: boolean, text?: string): void {
    if (!this.whitespace) this.put(' ');
    if (text !== undefined && !PLAIN_SLOW.test(text)) {
      // no spaces or line breaks: nothing can fold
      this.out += text;
      this.column += v.length;
      this.whitespace = false;
      this.indention = false;
      if (root) this.openEnded = true;
      return;
    }
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < v.length; i++) {
      const c = v[i] as number;
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && !isSpace(v[i + 1])) this.writeIndent();
        else this.writeCp(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreakCp(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeCp(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
    if (root) this.openEnded = true;
  }

  writeSingle(v: number[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < v.length; i++) {
      const c = v[i] as number;
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < v.length - 1 && !isSpace(v[i + 1])) {
          this.writeIndent();
        } else this.writeCp(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreakCp(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === 0x27) this.put("'");
        this.writeCp(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeDouble(v: number[], allowBreaks: boolean): void {
    let spaces = false;
    this.writeIndicator('"', true, false, false);
    const bom = v[0] === 0xfeff;
    for (let i = 0; i < v.length; i++) {
      const c = v[i] as number;
      if (!isPrintable(c) || bom || isBreak(c) || c === 0x22 || c === 0x5c) {
        this.put('\\');
        const simple: Record<number, string> = {
          0x00: '0',
          0x07: 'a',
          0x08: 'b',
          0x09: 't',
          0x0a: 'n',
          0x0b: 'v',
          0x0c: 'f',
          0x0d: 'r',
          0x1b: 'e',
          0x22: '"',
          0x5c: '\\',
          0x85: 'N',
          0xa0: '_',
          0x2028: 'L',
          0x2029: 'P',
        };
        const e = simple[c];
        if (e !== undefined) this.put(e);
        else {
          let w: number;
          if (c <= 0xff) {
            this.put('x');
            w = 2;
          } else if (c <= 0xffff) {
            this.put('u');
            w = 4;
          } else {
            this.put('U');
            w = 8;
          }
          for (const d of c.toString(16).toUpperCase().padStart(w, '0')) this.put(d);
        }
        spaces = false;
      } else if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < v.length - 1) {
          this.writeIndent();
          if (isSpace(v[i + 1])) this.put('\\');
        } else this.writeCp(c);
        spaces = true;
      } else {
        this.writeCp(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeLiteral(v: number[]): void {
    this.writeIndicator('|', true, false, false);
    // block scalar hints
    if (isSpace(v[0]) || isBreak(v[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    this.openEnded = false;
    let chomp = '';
    if (v.length === 0) chomp = '-';
    else {
      const last = v.length - 1;
      if (!isBreak(v[last])) chomp = '-';
      else if (last === 0) {
        chomp = '+';
        this.openEnded = true;
      } else if (isBreak(v[last - 1])) {
        chomp = '+';
        this.openEnded = true;
      }
    }
    if (chomp !== '') this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of v) {
      if (isBreak(c)) {
        this.writeBreakCp(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeCp(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

const REFUSED = /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

function checkReadable(v: GoYamlValue): void {
  // Go's encoding/json escapes everything below 0x20, so only the other refused characters reach the reader
  const check = (s: string): void => {
    if (REFUSED.test(s)) throw new YamlV2Error('yaml: control characters are not allowed');
  };
  if (typeof v === 'string') check(v);
  else if (Array.isArray(v)) v.forEach(checkReadable);
  else if (v !== null && typeof v === 'object' && !(v instanceof GoFloat) && !(v instanceof GoUint)) {
    for (const [k, x] of Object.entries(v)) {
      check(k);
      checkReadable(x);
    }
  }
}

/**
 * `yaml.Marshal` (gopkg.in/yaml.v2 v2.4.0) of a generic value, byte for byte.
 *
 * @param value the document root (usually a map).
 * @param opts.checkReadable also refuse characters the yaml.v2 *reader* rejects, as happens when the value
 *   came from `yaml.Unmarshal` of JSON (ghodss/yaml JSONToYAML); default true.
 * @throws YamlV2Error "yaml: control characters are not allowed".
 */
export function marshalYamlV2(value: GoYamlValue, opts: { checkReadable?: boolean } = {}): string {
  if (opts.checkReadable !== false) checkReadable(value);
  const e = new Emitter();
  e.node(value, { root: true, mapping: false, simpleKey: false });
  // document end (implicit): a final indent/line break
  e.writeIndent();
  // stream end: an open-ended scalar at the very end gets a "..." document end marker
  if (e.openEnded) {
    e.writeIndicator('...', true, false, false);
    e.writeIndent();
  }
  return e.out;
}

/**
 * Parse JSON text the way yaml.v2 reads it (integers → Go int / int64 / uint64, other numbers → float64),
 * keeping the int/float distinction the emitter needs.
 * @throws SyntaxError on invalid JSON.
 */
export function parseJsonForYamlV2(text: string): GoYamlValue {
  const reviver = function (this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
    if (typeof value === 'number' && context?.source !== undefined) return goNumberFromJson(context.source);
    return value;
  };
  return JSON.parse(text, reviver) as GoYamlValue;
}

/** yaml.v2 resolution of a JSON number literal. */
export function goNumberFromJson(src: string): GoYamlValue {
  if (/^-?\d+$/.test(src)) {
    const b = BigInt(src);
    if (b >= INT64_MIN && b <= INT64_MAX) return Number.isSafeInteger(Number(b)) ? Number(b) : b;
    if (b > 0n && b <= UINT64_MAX) return new GoUint(b);
  }
  const f = Number(src);
  // strconv.ParseFloat reports a range error for overflowing literals: yaml.v2 then keeps the text as a string
  return Number.isFinite(f) ? new GoFloat(f) : src;
}
