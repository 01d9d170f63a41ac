/**
 * Go text/template's builtins (text/template/funcs.go) and the function signatures the executor checks arguments
 * against. `value` parameters receive the raw value (Go's reflect.Value, `undefined` = invalid).
 */
import { formatValue, sprint, sprintf, sprintln } from './fmt.js';
import { GoFloat, GoFuncError, GoNil, GoUint, isTrue, kindOf, mapGet, typeName, type GoFunc } from './value.js';

/** A parameter of a Go type the executor cannot know: `accepts` decides assignability, `goType` names it in errors. */
export interface GoParamType {
  goType: string;
  accepts: (v: unknown) => boolean;
  /** A nil pointer, slice, map or interface type accepts an invalid value as its zero (`null`). */
  nilable?: boolean;
}

export type ParamType = 'any' | 'value' | 'string' | 'int' | 'bool' | 'float' | GoParamType;

/** A template function with Go's signature: fixed parameter types, an optional variadic tail. */
export interface FuncSpec {
  fn: GoFunc;
  params: ParamType[];
  variadic?: ParamType;
}

/** Functions as a template's FuncMap takes them: a plain function has `fn.length` `interface{}` parameters. */
export type FuncMap = Record<string, GoFunc | FuncSpec>;

export function toSpec(f: GoFunc | FuncSpec): FuncSpec {
  return typeof f === 'function' ? { fn: f, params: Array.from({ length: f.length }, () => 'any' as const) } : f;
}

type BasicKind = 'bool' | 'int' | 'uint' | 'float' | 'string' | 'complex';

function basicKind(v: unknown): BasicKind {
  const k = kindOf(v);
  if (k === 'bool' || k === 'int' || k === 'uint' || k === 'float' || k === 'string') return k;
  throw new GoFuncError('invalid type for comparison');
}

const asBig = (v: unknown): bigint => (v instanceof GoUint ? v.value : typeof v === 'bigint' ? v : BigInt(v as number));
const asNum = (v: unknown): number => (v instanceof GoFloat ? v.value : Number(v));
const isNilValue = (v: unknown): boolean => v === null || v === undefined || v instanceof GoNil;

function eqOne(a: unknown, b: unknown): boolean {
  let k1: BasicKind | 'other' = 'other';
  let k2: BasicKind | 'other' = 'other';
  try {
    k1 = basicKind(a);
  } catch {
    /* not basic */
  }
  try {
    k2 = basicKind(b);
  } catch {
    /* not basic */
  }
  if (k1 !== k2) {
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) return asBig(a) === asBig(b);
    if (a !== undefined && a !== null && b !== undefined && b !== null)
      throw new GoFuncError('incompatible types for comparison');
    return false;
  }
  switch (k1) {
    case 'bool':
    case 'string':
      return a === b;
    case 'int':
    case 'uint':
      return asBig(a) === asBig(b);
    case 'float':
      return asNum(a) === asNum(b);
    default:
      break;
  }
  if (isNilValue(a) || isNilValue(b)) return isNilValue(a) === isNilValue(b);
  const ka = kindOf(a);
  if (ka === 'slice' || ka === 'map' || ka === 'func' || ka === 'bytes') {
    throw new GoFuncError(`non-comparable type ${formatValue(a)}: ${typeName(a)}`);
  }
  if (typeName(a) !== typeName(b))
    throw new GoFuncError(`non-comparable types ${formatValue(a)}: ${typeName(a)}, ${typeName(b)}: ${formatValue(b)}`);
  return a === b;
}

function eq(a: unknown, ...rest: unknown[]): boolean {
  if (rest.length === 0) throw new GoFuncError('missing argument for comparison');
  return rest.some((b) => eqOne(a, b));
}

function lt(a: unknown, b: unknown): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) {
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) return asBig(a) < asBig(b);
    throw new GoFuncError('incompatible types for comparison');
  }
  switch (k1) {
    case 'bool':
    case 'complex':
      throw new GoFuncError('invalid type for comparison');
    case 'float':
      return asNum(a) < asNum(b);
    case 'string':
      return Buffer.compare(Buffer.from(a as string), Buffer.from(b as string)) < 0;
    default:
      return asBig(a) < asBig(b);
  }
}

function indexArg(index: unknown, size: number, what: string): number {
  const k = kindOf(index);
  if (k === 'invalid') throw new GoFuncError(`cannot index slice/array with nil`);
  if (k !== 'int' && k !== 'uint') throw new GoFuncError(`cannot index slice/array with type ${typeName(index)}`);
  const x = asBig(index);
  if (x < 0n || x > BigInt(size)) throw new GoFuncError(`${what} out of range: ${x}`);
  return Number(x);
}

function indexFn(item: unknown, ...indexes: unknown[]): unknown {
  let cur = item;
  if (cur === undefined || cur === null) throw new GoFuncError('index of untyped nil');
  for (const ix of indexes) {
    if (cur instanceof GoNil && cur.kind === 'ptr') throw new GoFuncError('index of nil pointer');
    const k = kindOf(cur);
    if (k === 'slice' || k === 'bytes' || k === 'string') {
      const arr = k === 'string' ? Buffer.from(cur as string) : (cur as ArrayLike<unknown>);
      const x = indexArg(ix, arr.length, 'index');
      if (x === arr.length) throw new GoFuncError(`index out of range: ${x}`);
      cur = arr[x];
    } else if (k === 'map') {
      if (ix === undefined) throw new GoFuncError('value is nil; should be of type string');
      const { found, value } = mapGet(cur, ix);
      cur = found ? value : null;
    } else if (cur instanceof GoNil && cur.kind === 'map') {
      cur = null;
    } else throw new GoFuncError(`can't index item of type ${typeName(cur)}`);
  }
  return cur;
}

function sliceFn(item: unknown, ...indexes: unknown[]): unknown {
  if (item === undefined || item === null) throw new GoFuncError('slice of untyped nil');
  if (indexes.length > 3) throw new GoFuncError(`too many slice indexes: ${indexes.length}`);
  const k = kindOf(item);
  if (k !== 'string' && k !== 'slice' && k !== 'bytes')
    throw new GoFuncError(`can't slice item of type ${typeName(item)}`);
  if (k === 'string' && indexes.length === 3) throw new GoFuncError('cannot 3-index slice a string');
  const len = k === 'string' ? Buffer.byteLength(item as string) : (item as ArrayLike<unknown>).length;
  const idx = [0, len, len];
  indexes.forEach((ix, i) => (idx[i] = indexArg(ix, len, 'index')));
  const [i0 = 0, i1 = len, i2 = len] = idx;
  if (i0 > i1) throw new GoFuncError(`invalid slice index: ${i0} > ${i1}`);
  if (indexes.length === 3 && i1 > i2) throw new GoFuncError(`invalid slice index: ${i1} > ${i2}`);
  if (k === 'string')
    return Buffer.from(item as string)
      .subarray(i0, i1)
      .toString('utf8');
  if (k === 'bytes') return (item as Uint8Array).subarray(i0, i1);
  return (item as unknown[]).slice(i0, i1);
}

function lengthFn(item: unknown): number {
  if (item === undefined || item === null) throw new GoFuncError('len of nil pointer');
  if (item instanceof GoNil) {
    if (item.kind === 'ptr') throw new GoFuncError('len of nil pointer');
    return 0;
  }
  switch (kindOf(item)) {
    case 'string':
      return Buffer.byteLength(item as string);
    case 'slice':
    case 'bytes':
      return (item as ArrayLike<unknown>).length;
    case 'map':
      return item instanceof Map ? item.size : Object.keys(item).length;
    default:
      throw new GoFuncError(`len of type ${typeName(item)}`);
  }
}

/** The string of print-like builtins' arguments (Go's evalArgs). */
function evalArgs(args: unknown[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? '<no value>' : a)));
}

export function htmlEscape(s: string): string {
  return s.replace(
    /[\0"'&<>]/g,
    (c) => ({ '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] ?? c,
  );
}

export function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (ch === '"') out += '\\"';
    else if (ch === '<' || ch === '>' || ch === '&' || ch === '=')
      out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    else if (cp < 0x20) out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    else if (cp < 0x80 || /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u.test(ch)) out += ch;
    else
      out +=
        cp < 0x10000
          ? `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`
          : `\\U${cp.toString(16).toUpperCase().padStart(8, '0')}`;
  }
  return out;
}

/** net/url.QueryEscape. */
export function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function callFn(fn: unknown, ...args: unknown[]): unknown {
  if (fn === undefined || fn === null) throw new GoFuncError('call of nil');
  if (typeof fn !== 'function') throw new GoFuncError(`non-function of type ${typeName(fn)}`);
  const f = fn as GoFunc;
  if (f.length !== args.length) throw new GoFuncError(`wrong number of args: got ${args.length} want ${f.length}`);
  return f(...args);
}

/** Marker for the short-circuit builtins (the executor evaluates their arguments lazily). */
export const SHORT_CIRCUIT = new Set(['and', 'or']);

export const builtins: Record<string, FuncSpec> = {
  and: { fn: () => undefined, params: ['value'], variadic: 'value' },
  or: { fn: () => undefined, params: ['value'], variadic: 'value' },
  not: { fn: (a) => !isTrue(a), params: ['value'] },
  call: { fn: callFn, params: ['value'], variadic: 'value' },
  html: { fn: (...a) => htmlEscape(evalArgs(a)), params: [], variadic: 'any' },
  js: { fn: (...a) => jsEscape(evalArgs(a)), params: [], variadic: 'any' },
  urlquery: { fn: (...a) => queryEscape(evalArgs(a)), params: [], variadic: 'any' },
  index: { fn: indexFn, params: ['value'], variadic: 'value' },
  slice: { fn: sliceFn, params: ['value'], variadic: 'value' },
  len: { fn: lengthFn, params: ['value'] },
  print: { fn: (...a) => sprint(a), params: [], variadic: 'any' },
  printf: { fn: (f, ...a) => sprintf(f as string, a), params: ['string'], variadic: 'any' },
  println: { fn: (...a) => sprintln(a), params: [], variadic: 'any' },
  eq: { fn: eq, params: ['value'], variadic: 'value' },
  ne: { fn: (a, ...r) => !eq(a, ...r), params: ['value'], variadic: 'value' },
  lt: { fn: lt, params: ['value', 'value'] },
  le: { fn: (a, b) => lt(a, b) || eq(a, b), params: ['value', 'value'] },
  gt: { fn: (a, b) => !(lt(a, b) || eq(a, b)), params: ['value', 'value'] },
  ge: { fn: (a, b) => !lt(a, b), params: ['value', 'value'] },
};
