/**
 * The `x-kubernetes-list-type` invariants of custom objects, as apiextensions-apiserver checks them after the
 * schema (kubernetes staging apiextensions-apiserver `pkg/apiserver/schema/listtype/validation.go`,
 * `ValidateListSetsAndMaps`): `set` items are unique (the second appearance of a value is a `Duplicate value`),
 * `map` items are objects whose `x-kubernetes-list-map-keys` are unique.
 */
import type { FieldError } from './errors.js';
import { isObject } from './util.js';

type Schema = Record<string, unknown>;

/** Go's `%#v` of a decoded JSON value (as `field.Error` prints a non-scalar bad value). */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (isObject(v)) {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSharpV(v[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return typeof v === 'bigint' ? v.toString() : '';
}

/** `field.Duplicate(path, value)`: scalars print as `%v`/`%q`, maps and slices as `%#v`. */
function duplicate(field: string, value: unknown): FieldError {
  const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  const e: FieldError = { field, type: 'FieldValueDuplicate', value, detail: '' };
  if (value === null) e.valueText = 'null';
  else if (!scalar) e.valueText = goSharpV(value);
  return e;
}

/** The identity of a set item: compounds by their JSON, scalars by type and value. */
function identity(x: unknown): string {
  if (isObject(x) || Array.isArray(x)) return `c:${JSON.stringify(sortKeys(x))}`;
  return `s:${typeof x}:${JSON.stringify(x)}`;
}

function sortKeys(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(sortKeys);
  if (!isObject(x)) return x;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x).sort()) out[k] = sortKeys(x[k]);
  return out;
}

/** Indices of the second appearance of each repeated item (upstream `validateListSet`). */
function nonUnique(items: unknown[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  items.forEach((x, i) => {
    const id = identity(x);
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

const UNSPECIFIED = Symbol('unspecified key');

function listMapErrors(path: string, s: Schema, items: unknown[]): FieldError[] {
  const bad = items.findIndex((x) => x !== null && !isObject(x));
  if (bad >= 0)
    return [
      {
        field: `${path}[${bad}]`,
        type: 'FieldValueInvalid',
        value: items[bad],
        detail: 'must be an object for an array of list-type map',
      },
    ];
  if (items.length <= 1) return [];
  const keyFields = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'].map(String) : [];
  if (keyFields.length === 1) {
    const kf = keyFields[0] ?? '';
    const keys = items.map((x) => (isObject(x) && kf in x ? x[kf] : UNSPECIFIED));
    const ids = keys.map((k) => (k === UNSPECIFIED ? 'unspecified' : identity(k)));
    return nonUnique(ids).map((i) => duplicate(`${path}[${i}]`, keys[i] === UNSPECIFIED ? {} : { [kf]: keys[i] }));
  }
  const keys = items.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObject(x)) for (const kf of keyFields) if (kf in x) key[kf] = x[kf];
    return key;
  });
  return nonUnique(keys).map((i) => duplicate(`${path}[${i}]`, keys[i]));
}

function walkValue(path: string, s: Schema, v: unknown): FieldError[] {
  if (Array.isArray(v)) return walkArray(path, s, v);
  if (isObject(v)) return walkObject(path, s, v);
  return [];
}

function walkArray(path: string, s: Schema, items: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'set')
    for (const i of items.length > 1 ? nonUnique(items) : []) errs.push(duplicate(`${path}[${i}]`, items[i]));
  else if (lt === 'map') errs.push(...listMapErrors(path, s, items));
  const itemSchema = s['items'];
  if (isObject(itemSchema)) items.forEach((x, i) => errs.push(...walkValue(`${path}[${i}]`, itemSchema, x)));
  return errs;
}

function walkObject(path: string, s: Schema, obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const ap = s['additionalProperties'];
  if (isObject(ap)) for (const [k, v] of Object.entries(obj)) errs.push(...walkValue(`${path}[${k}]`, ap, v));
  const props = s['properties'];
  if (isObject(props))
    for (const [k, v] of Object.entries(obj)) {
      const sub = props[k];
      if (isObject(sub)) errs.push(...walkValue(path ? `${path}.${k}` : k, sub, v));
    }
  return errs;
}

/** List-type errors of a custom object against its CRD version's schema (metadata is not walked). */
export function listTypeErrors(schema: Schema, obj: Record<string, unknown>): FieldError[] {
  const rest = { ...obj };
  delete rest['metadata'];
  return walkObject('', schema, rest);
}
