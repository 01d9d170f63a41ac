/**
 * The value model the executor works on: how JavaScript values stand for Go values (Go's text/template is
 * reflection-driven, so the kinds matter for truth, printing, comparison and field access).
 *
 * - `string`, `boolean` → string, bool; `number` → int when integral, float64 otherwise; `bigint` → int64.
 * - `null` / `undefined` → Go's "no value" (an invalid reflect.Value; prints `<no value>`).
 * - `Array` → a slice, `Uint8Array` → `[]byte`, `Map` → a Go map, a plain object → `map[string]interface {}`.
 * - {@link GoStruct} → a Go struct (fields by exact Go name, methods), {@link GoNil} → a typed nil pointer/slice/map.
 * - A JavaScript function → a Go `func` value (callable with the `call` builtin).
 */

/** A Go struct value: fields by their Go (exported) names, optional methods. */
export class GoStruct {
  constructor(
    /** Go type as printed in errors, e.g. `v1.ProxyStatus` (the pointer form is `*v1.ProxyStatus`). */
    readonly typeName: string,
    readonly fields: ReadonlyMap<string, unknown>,
    readonly methods: ReadonlyMap<string, GoFunc> = new Map(),
    /** True when the value stands behind a pointer (`*T`): printing and error messages follow. */
    readonly pointer = false,
  ) {}
}

/** A typed Go nil: a nil pointer (`*T`), slice, map or interface; `fields` lists a struct's field names. */
export class GoNil {
  constructor(
    /** Go type as printed, e.g. `*v1.ProxyStatus`, `[]string`, `map[string]string`. */
    readonly typeName: string,
    readonly kind: 'ptr' | 'slice' | 'map' | 'interface',
    /** For a nil pointer to a struct, the struct's field names (for "can't evaluate field"). */
    readonly fields: ReadonlySet<string> = new Set(),
  ) {}
}

/** A Go function: returns one value, or throws to report the error result. */
export type GoFunc = (...args: unknown[]) => unknown;

/** An error raised by a template function (Go's second, error result). */
export class GoFuncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoFuncError';
  }
}

/** A Go float64, to keep integral floats (`1.0`) apart from ints. */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** A Go rune/byte constant from a character literal is an int; a Go uint kind when needed. */
export class GoUint {
  constructor(readonly value: bigint) {}
}

export type Kind =
  | 'invalid'
  | 'bool'
  | 'int'
  | 'uint'
  | 'float'
  | 'complex'
  | 'string'
  | 'slice'
  | 'bytes'
  | 'map'
  | 'struct'
  | 'ptr'
  | 'func'
  | 'nil';

export function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'invalid';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float';
    case 'bigint':
      return 'int';
    case 'function':
      return 'func';
    default:
      break;
  }
  if (v instanceof GoFloat) return 'float';
  if (v instanceof GoUint) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'slice';
  if (v instanceof Map) return 'map';
  if (v instanceof GoStruct) return 'struct';
  if (v instanceof GoNil) return 'nil';
  return 'map';
}

/** Go's type name of a value, as printed by `%T` and in error messages. */
export function typeName(v: unknown): string {
  if (v instanceof GoStruct) return v.pointer ? `*${v.typeName}` : v.typeName;
  if (v instanceof GoNil) return v.typeName;
  switch (kindOf(v)) {
    case 'invalid':
      return '<nil>';
    case 'bool':
      return 'bool';
    case 'int':
      return typeof v === 'bigint' ? 'int64' : 'int';
    case 'uint':
      return 'uint';
    case 'float':
      return 'float64';
    case 'string':
      return 'string';
    case 'bytes':
      return '[]uint8';
    case 'slice':
      return '[]interface {}';
    case 'func':
      return 'func(...interface {}) interface {}';
    default:
      return v instanceof Map ? 'map[string]interface {}' : 'map[string]interface {}';
  }
}

/** Go's `truth` (text/template's IsTrue): false for zero values and empty containers; undefined when not applicable. */
export function isTrue(v: unknown): boolean {
  switch (kindOf(v)) {
    case 'invalid':
    case 'nil':
      return false;
    case 'bool':
      return v as boolean;
    case 'int':
      return typeof v === 'bigint' ? v !== 0n : v !== 0;
    case 'uint':
      return (v as GoUint).value !== 0n;
    case 'float':
      return (v instanceof GoFloat ? v.value : (v as number)) !== 0;
    case 'string':
      return (v as string).length > 0;
    case 'bytes':
      return (v as Uint8Array).length > 0;
    case 'slice':
      return (v as unknown[]).length > 0;
    case 'map':
      return v instanceof Map ? v.size > 0 : Object.keys(v as object).length > 0;
    case 'struct':
      return true;
    case 'func':
      return true;
    default:
      return true;
  }
}

/** A Go map's entries, keys sorted as Go's fmt and range sort them (numbers numerically, strings bytewise). */
export function mapEntries(v: unknown): Array<[unknown, unknown]> {
  const entries: Array<[unknown, unknown]> = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
  return entries.sort((a, b) => compareKeys(a[0], b[0]));
}

export function compareKeys(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b));
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** Reads a map entry: `undefined` when the key is absent. */
export function mapGet(m: unknown, key: unknown): { found: boolean; value: unknown } {
  if (m instanceof Map) return { found: m.has(key), value: m.get(key) };
  if (typeof key !== 'string') return { found: false, value: undefined };
  const o = m as Record<string, unknown>;
  return Object.hasOwn(o, key) ? { found: true, value: o[key] } : { found: false, value: undefined };
}
