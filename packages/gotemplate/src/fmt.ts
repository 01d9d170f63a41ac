/** Go's fmt for template values: Sprint, Sprintln, Sprintf with Go's verbs, flags, width and precision. */
import { GoFloat, GoNil, GoStruct, GoUint, kindOf, mapEntries, typeName } from './value.js';

/** Go's strconv.Quote. */
export function goQuote(s: string, asciiOnly = false): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (cp === 0xfffd && ch !== '\ufffd') out += '\\ufffd';
    else if (isPrint(ch) && (!asciiOnly || cp < 0x80)) out += ch;
    else out += escapeRune(cp);
  }
  return `${out}"`;
}

function escapeRune(cp: number): string {
  const simple: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };
  if (simple[cp] !== undefined) return simple[cp];
  if (cp < 0x80) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

function isPrint(ch: string): boolean {
  if (ch === ' ') return true;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/** strconv.FormatFloat(f, 'g', -1, 64) as %v prints floats. */
export function formatFloatG(f: number, prec = -1): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  let digits: string;
  let exp: number;
  if (prec < 0) {
    const e = f.toExponential();
    const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e);
    digits = `${m?.[2] ?? ''}${m?.[3] ?? ''}`;
    exp = Number(m?.[4]);
  } else {
    const e = f.toExponential(Math.max(0, (prec === 0 ? 1 : prec) - 1));
    const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e);
    digits = `${m?.[2] ?? ''}${m?.[3] ?? ''}`.replace(/0+$/, '') || '0';
    exp = Number(m?.[4]);
  }
  const p = prec === 0 ? 1 : prec;
  const eprec = prec < 0 ? 6 : p > digits.length && digits.length >= exp + 1 ? digits.length : p;
  const sign = f < 0 ? '-' : '';
  if (exp < -4 || exp >= eprec) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const es = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${es}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

function num(v: unknown): number {
  if (v instanceof GoFloat) return v.value;
  if (v instanceof GoUint) return Number(v.value);
  return Number(v);
}

function intOf(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (v instanceof GoUint) return v.value;
  return BigInt(v as number);
}

/** Go's %v (plus %+v when `plus`) of a value. */
export function formatValue(v: unknown, plus = false, depth = 0): string {
  if (depth > 64) return '...';
  switch (kindOf(v)) {
    case 'invalid':
      return '<nil>';
    case 'nil':
      return (v as GoNil).kind === 'slice' ? '[]' : (v as GoNil).kind === 'map' ? 'map[]' : '<nil>';
    case 'bool':
      return v ? 'true' : 'false';
    case 'int':
      return String(v);
    case 'uint':
      return String((v as GoUint).value);
    case 'float':
      return formatFloatG(num(v));
    case 'string':
      return v as string;
    case 'bytes':
      return `[${[...(v as Uint8Array)].join(' ')}]`;
    case 'slice':
      return `[${(v as unknown[]).map((e) => formatValue(e, plus, depth + 1)).join(' ')}]`;
    case 'map':
      return `map[${mapEntries(v)
        .map(([k, e]) => `${formatValue(k, plus, depth + 1)}:${formatValue(e, plus, depth + 1)}`)
        .join(' ')}]`;
    case 'struct': {
      const s = v as GoStruct;
      const body = [...s.fields.entries()]
        .map(([k, e]) => (plus ? `${k}:` : '') + formatValue(e, plus, depth + 1))
        .join(' ');
      return `${s.pointer && depth === 0 ? '&' : s.pointer ? '0x' : ''}{${body}}`;
    }
    case 'func':
      return '0x1';
    default:
      return String(v);
  }
}

/** fmt.Sprint: a space between operands when neither side is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  args.forEach((a, i) => {
    const isStr = typeof a === 'string';
    if (i > 0 && !isStr && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(a);
  });
  return out;
}

/** fmt.Sprintln: spaces always, and a newline. */
export function sprintln(args: unknown[]): string {
  return `${args.map((a) => formatValue(a)).join(' ')}\n`;
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | null;
  prec: number | null;
}

function pad(s: string, f: Spec, numeric = false): string {
  if (f.width === null || Array.from(s).length >= f.width) return s;
  const n = f.width - Array.from(s).length;
  if (f.minus) return s + ' '.repeat(n);
  if (f.zero && numeric) {
    const sign = /^[+\- ]/.test(s) ? (s[0] ?? '') : '';
    return sign + '0'.repeat(n) + s.slice(sign.length);
  }
  if (f.zero && !numeric) return '0'.repeat(n) + s;
  return ' '.repeat(n) + s;
}

function badVerb(verb: string, a: unknown): string {
  if (a === null || a === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(a)}=${formatValue(a)})`;
}

function fmtInt(i: bigint, verb: string, f: Spec): string {
  const neg = i < 0n;
  const abs = neg ? -i : i;
  let s: string;
  switch (verb) {
    case 'd':
    case 'v':
      s = abs.toString(10);
      break;
    case 'b':
      s = abs.toString(2);
      break;
    case 'o':
    case 'O':
      s = abs.toString(8);
      if (verb === 'O') s = `0o${s}`;
      else if (f.sharp && s !== '0') s = `0${s}`;
      break;
    case 'x':
      s = abs.toString(16);
      if (f.sharp) s = `0x${s}`;
      break;
    case 'X':
      s = abs.toString(16).toUpperCase();
      if (f.sharp) s = `0X${s}`;
      break;
    case 'c':
      return pad(String.fromCodePoint(Number(i)), f);
    case 'q':
      return pad(
        `'${goQuote(String.fromCodePoint(Number(i)))
          .slice(1, -1)
          .replace(/\\"/, '"')
          .replace(/'/, "\\'")}'`,
        f,
      );
    case 'U':
      return pad(`U+${abs.toString(16).toUpperCase().padStart(4, '0')}`, f);
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      return fmtFloat(Number(i), verb, f);
    default:
      return badVerb(verb, i);
  }
  if (f.prec !== null) s = s.padStart(f.prec, '0');
  const sign = neg ? '-' : f.plus ? '+' : f.space ? ' ' : '';
  return pad(sign + s, { ...f, zero: f.zero && f.prec === null && !f.minus }, true);
}

function fmtFloat(x: number, verb: string, f: Spec): string {
  let s: string;
  const prec = f.prec;
  switch (verb) {
    case 'e':
    case 'E':
      s = expo(x.toExponential(prec ?? 6));
      break;
    case 'f':
    case 'F':
      s = x.toFixed(prec ?? 6);
      break;
    case 'g':
    case 'G':
    case 'v':
      s = formatFloatG(x, prec ?? -1);
      break;
    default:
      return badVerb(verb, new GoFloat(x));
  }
  if (verb === 'E' || verb === 'G') s = s.toUpperCase();
  if (f.plus && !s.startsWith('-')) s = `+${s}`;
  else if (f.space && !s.startsWith('-')) s = ` ${s}`;
  return pad(s, { ...f, zero: f.zero && !f.minus }, true);
}

const expo = (s: string): string => s.replace(/e([+-])(\d)$/, 'e$10$2');

function fmtString(s: string, verb: string, f: Spec): string {
  let t = f.prec !== null ? Array.from(s).slice(0, f.prec).join('') : s;
  switch (verb) {
    case 's':
    case 'v':
      break;
    case 'q':
      t = f.sharp && !t.includes('`') ? `\`${t}\`` : goQuote(t, f.plus);
      break;
    case 'x':
    case 'X': {
      const hex = [...Buffer.from(t, 'utf8')].map((b) => b.toString(16).padStart(2, '0'));
      t = f.space ? hex.map((h) => (f.sharp ? `0x${h}` : h)).join(' ') : (f.sharp ? '0x' : '') + hex.join('');
      if (verb === 'X') t = t.toUpperCase();
      break;
    }
    default:
      return badVerb(verb, s);
  }
  return pad(t, f);
}

function fmtArg(a: unknown, verb: string, f: Spec): string {
  if (verb === 'T') return pad(a === null || a === undefined ? '<nil>' : typeName(a), f);
  const k = kindOf(a);
  if (k === 'invalid') return verb === 'v' ? pad('<nil>', f) : badVerb(verb, a);
  if (verb === 'v' && (k === 'slice' || k === 'map' || k === 'struct' || k === 'nil'))
    return pad(formatValue(a, f.plus), f);
  switch (k) {
    case 'bool':
      return verb === 't' || verb === 'v' ? pad(a ? 'true' : 'false', f) : badVerb(verb, a);
    case 'int':
    case 'uint':
      return fmtInt(intOf(a), verb, f);
    case 'float':
      return fmtFloat(num(a), verb, f);
    case 'string':
      return fmtString(a as string, verb, f);
    case 'bytes':
      if (verb === 'd' || verb === 'v') return pad(formatValue(a), f);
      return fmtString(Buffer.from(a as Uint8Array).toString('latin1'), verb, f);
    case 'slice':
      return `[${(a as unknown[]).map((e) => fmtArg(e, verb, f)).join(' ')}]`;
    default:
      return verb === 's' ? pad(formatValue(a), f) : badVerb(verb, a);
  }
}

function parseSpec(format: string, i: number, args: unknown[], argi: { n: number }): { spec: Spec; i: number } {
  const f: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false, width: null, prec: null };
  for (; i < format.length; i++) {
    const c = format[i];
    if (c === '-') f.minus = true;
    else if (c === '+') f.plus = true;
    else if (c === '#') f.sharp = true;
    else if (c === ' ') f.space = true;
    else if (c === '0') f.zero = !f.minus;
    else break;
  }
  const readNum = (): number | null => {
    if (format[i] === '*') {
      i++;
      const v = args[argi.n++];
      return typeof v === 'number' ? v : null;
    }
    const m = /^\d+/.exec(format.slice(i));
    if (!m) return null;
    i += m[0].length;
    return Number(m[0]);
  };
  f.width = readNum();
  if (f.width !== null && f.width < 0) [f.minus, f.width] = [true, -f.width];
  if (format[i] === '.') {
    i++;
    f.prec = readNum() ?? 0;
  }
  return { spec: f, i };
}

/** fmt.Sprintf with Go's verbs and its error notations (`%!d(string=x)`, `%!v(MISSING)`, `%!(EXTRA …)`). */
export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  const argi = { n: 0 };
  for (let i = 0; i < format.length;) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    const { spec, i: vi } = parseSpec(format, pct + 1, args, argi);
    if (vi >= format.length) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(vi) ?? 0);
    i = vi + verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argi.n >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += fmtArg(args[argi.n++], verb, spec);
  }
  if (argi.n < args.length) {
    out += `%!(EXTRA ${args
      .slice(argi.n)
      .map((a) => (a === null || a === undefined ? '<nil>' : `${typeName(a)}=${formatValue(a)}`))
      .join(', ')})`;
  }
  return out;
}
