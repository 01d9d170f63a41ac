/**
 * CRD `x-kubernetes-validations` (CEL rules) evaluated as apiextensions-apiserver does: each rule runs with `self`
 * bound to the value at its schema node (absent and null values are not validated), transition rules (those that
 * reference `oldSelf`) only where an old value correlates (object properties, map keys, `x-kubernetes-list-type: map`
 * items by key), `messageExpression`, `reason` and `fieldPath` as upstream, and the same field errors.
 */
import type { ParseResult } from '@marcbachmann/cel-js';
import type { FieldError } from '../errors.js';
import type { JsonObject } from '../types.js';
import { formatCheck, isDate, isDateTime, parseDurationNanos } from '../formats.js';
import { isObject } from '../util.js';
import { celEnvironment } from './library.js';

/** One rule as the CRD declares it. */
interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

interface Compiled {
  program?: ParseResult;
  message?: ParseResult;
  error?: string;
  transition: boolean;
}

const cache = new Map<string, Compiled>();

function compileExpr(text: string): { program?: ParseResult; error?: string } {
  try {
    return { program: celEnvironment().parse(text) };
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] ?? 'invalid expression' };
  }
}

/** Compiles a rule (cached by its text): the program, its message program and whether it is a transition rule. */
export function compileRule(r: Rule): Compiled {
  const key = `${r.rule}\u0000${r.messageExpression ?? ''}`;
  let c = cache.get(key);
  if (!c) {
    const p = compileExpr(r.rule);
    c = { transition: /\boldSelf\b/.test(r.rule) };
    if (p.program) c.program = p.program;
    if (p.error) c.error = p.error;
    if (r.messageExpression) {
      const m = compileExpr(r.messageExpression);
      if (m.program) c.message = m.program;
    }
    cache.set(key, c);
  }
  return c;
}

/** Compilation errors of the rules of a schema (reported when the CRD is written), as `[path, message]`. */
export function ruleCompileErrors(schema: unknown, path: string): { field: string; value: string; detail: string }[] {
  const out: { field: string; value: string; detail: string }[] = [];
  const walk = (s: unknown, p: string): void => {
    if (!isObject(s)) return;
    const rules = s['x-kubernetes-validations'];
    if (Array.isArray(rules))
      rules.forEach((r, i) => {
        if (!isObject(r) || typeof r['rule'] !== 'string') return;
        const c = compileRule(r as unknown as Rule);
        if (c.error)
          out.push({
            field: `${p}.x-kubernetes-validations[${i}].rule`,
            value: r['rule'],
            detail: `compilation failed: ${c.error}`,
          });
      });
    if (isObject(s['properties']))
      for (const [k, v] of Object.entries(s['properties'])) walk(v, `${p}.properties[${k}]`);
    if (isObject(s['items'])) walk(s['items'], `${p}.items`);
    if (isObject(s['additionalProperties'])) walk(s['additionalProperties'], `${p}.additionalProperties`);
  };
  walk(schema, path);
  return out;
}

/**
 * JSON value → CEL value following the schema (apiextensions-apiserver `UnstructuredToVal`): integers become int
 * (BigInt); strings of `format: date-time` and `format: date` become timestamps (Date) and `format: byte` bytes
 * (Uint8Array), `format: duration` durations (strfmt ParseDuration); the rest stays as is. A string its format does not parse stays a string (value validation has
 * refused it already).
 */
export function toCel(v: unknown, schema: unknown): unknown {
  const s = isObject(schema) ? schema : {};
  if (typeof v === 'string') return typeof s['format'] === 'string' ? formattedString(v, s['format']) : v;
  if (typeof v === 'number') {
    if (s['type'] === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => toCel(x, s['items']));
  if (isObject(v)) {
    const props = isObject(s['properties']) ? s['properties'] : {};
    const ap = s['additionalProperties'];
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toCel(x, k in props ? props[k] : ap);
    return out;
  }
  return v;
}

/** The CEL library's Duration class (not exported by the package: taken from a value it makes). */
let DurationClass: (new (seconds: bigint, nanos: number) => unknown) | undefined;

/** A CEL duration of `nanos` nanoseconds. */
function celDuration(nanos: bigint): unknown {
  DurationClass ??= (
    celEnvironment().evaluate('duration("0s")') as { constructor: new (s: bigint, n: number) => unknown }
  ).constructor;
  const seconds = nanos / 1_000_000_000n;
  return new DurationClass(seconds, Number(nanos - seconds * 1_000_000_000n));
}

/** A string as the CEL type its OpenAPI format names (timestamp, duration, bytes), or the string itself. */
function formattedString(v: string, format: string): unknown {
  switch (format) {
    case 'date-time': {
      if (!isDateTime(v)) return v;
      const t = Date.parse(v.toUpperCase());
      return Number.isNaN(t) ? v : new Date(t);
    }
    case 'date':
      return isDate(v) ? new Date(`${v}T00:00:00Z`) : v;
    case 'byte':
      return (formatCheck('byte')?.(v) ?? false) ? new Uint8Array(Buffer.from(v, 'base64')) : v;
    case 'duration': {
      const nanos = parseDurationNanos(v);
      return nanos === undefined ? v : celDuration(nanos);
    }
    default:
      return v;
  }
}

/** `self` at the root: the object with `apiVersion`, `kind` and only `metadata.name` / `metadata.generateName`. */
function rootView(obj: JsonObject): JsonObject {
  const md = isObject(obj['metadata']) ? obj['metadata'] : {};
  const meta: JsonObject = {};
  if (typeof md['name'] === 'string') meta['name'] = md['name'];
  if (typeof md['generateName'] === 'string') meta['generateName'] = md['generateName'];
  return { ...obj, metadata: meta };
}

function fieldString(path: string): string {
  return path === '' ? '<nil>' : path;
}

/** Appends a rule's relative `fieldPath` (`.a.b`, `.a['b']`, `.a[0]`) to a field path. */
function joinFieldPath(base: string, rel: string): string {
  const tail = rel.replace(/^\./, '').replace(/\['([^']*)'\]/g, '[$1]');
  return base ? (tail.startsWith('[') ? `${base}${tail}` : `${base}.${tail}`) : tail;
}

function ruleText(r: Rule): string {
  return r.rule.trim();
}

function errorFor(r: Rule, field: string, type: string, detail: string): FieldError {
  switch (r.reason) {
    case 'FieldValueForbidden':
      return { field, type: 'FieldValueForbidden', detail };
    case 'FieldValueRequired':
      return { field, type: 'FieldValueRequired', detail };
    case 'FieldValueDuplicate':
      return { field, type: 'FieldValueDuplicate', value: type, detail: '' };
    default:
      return { field, type: 'FieldValueInvalid', value: type, detail };
  }
}

/** The message of a failed rule: `messageExpression` (when it yields a one-line, non-empty string), `message`, or `failed rule: <rule>`. */
function failureMessage(r: Rule, c: Compiled, vars: Record<string, unknown>): string {
  const fallback = r.message ? r.message : `failed rule: ${ruleText(r)}`;
  if (!c.message) return fallback;
  try {
    const m: unknown = c.message(vars);
    if (typeof m === 'string' && m.trim() !== '' && !/[\r\n]/.test(m)) return m;
  } catch {
    // upstream logs the messageExpression failure and uses the static message
  }
  return fallback;
}

/** Runtime evaluation errors phrased as the apiserver does. */
function evalErrorText(e: unknown, r: Rule): string {
  const msg = ((e as Error).message.split('\n')[0] ?? '').trim();
  if (/no matching overload/i.test(msg))
    return `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r)}`;
  const lower = msg.charAt(0).toLowerCase() + msg.slice(1);
  return `${lower} evaluating rule: ${ruleText(r)}`;
}

function evaluateRules(
  schema: JsonObject,
  value: unknown,
  old: unknown,
  hasOld: boolean,
  path: string,
  root: boolean,
  out: FieldError[],
): void {
  const rules = schema['x-kubernetes-validations'];
  if (!Array.isArray(rules) || rules.length === 0) return;
  const type = typeof schema['type'] === 'string' ? schema['type'] : '';
  const self = toCel(root && isObject(value) ? rootView(value) : value, schema);
  const oldSelf = hasOld ? toCel(root && isObject(old) ? rootView(old) : old, schema) : undefined;
  for (const raw of rules) {
    if (!isObject(raw) || typeof raw['rule'] !== 'string') continue;
    const r = raw as unknown as Rule;
    const c = compileRule(r);
    if (c.transition && !hasOld && !r.optionalOldSelf) continue;
    const field = r.fieldPath ? joinFieldPath(path, r.fieldPath) : path;
    if (!c.program) {
      out.push({
        field: fieldString(field),
        type: 'FieldValueInvalid',
        value: type,
        detail: `compilation failed: ${c.error ?? 'invalid rule'}`,
      });
      continue;
    }
    const vars: Record<string, unknown> = { self };
    if (c.transition) vars['oldSelf'] = hasOld ? oldSelf : undefined;
    let result: unknown;
    try {
      result = c.program(vars);
    } catch (e) {
      out.push({ field: fieldString(path), type: 'FieldValueInvalid', value: type, detail: evalErrorText(e, r) });
      continue;
    }
    if (result !== true) out.push(errorFor(r, fieldString(field), type, failureMessage(r, c, vars)));
  }
}

/** Old list items keyed by their `x-kubernetes-list-map-keys` (only map lists correlate). */
function correlateList(
  schema: JsonObject,
  old: unknown,
): ((item: unknown) => { found: boolean; value: unknown }) | undefined {
  if (schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old)) return undefined;
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys'])
    ? (schema['x-kubernetes-list-map-keys'] as string[])
    : [];
  const keyOf = (it: unknown): string => JSON.stringify(keys.map((k) => (isObject(it) ? it[k] : undefined)));
  const byKey = new Map(old.map((it) => [keyOf(it), it]));
  return (item) =>
    byKey.has(keyOf(item)) ? { found: true, value: byKey.get(keyOf(item)) } : { found: false, value: undefined };
}

function walk(
  schema: unknown,
  value: unknown,
  old: unknown,
  hasOld: boolean,
  path: string,
  root: boolean,
  out: FieldError[],
): void {
  if (!isObject(schema) || value === undefined || value === null) return;
  evaluateRules(schema, value, old, hasOld, path, root, out);
  if (isObject(value)) {
    const props = isObject(schema['properties']) ? schema['properties'] : undefined;
    const ap = isObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
    const oldObj = hasOld && isObject(old) ? old : undefined;
    for (const [k, v] of Object.entries(value)) {
      if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const sub = props && k in props ? props[k] : ap;
      if (!sub) continue;
      const childPath = props && k in props ? (path ? `${path}.${k}` : k) : `${path}[${k}]`;
      walk(sub, v, oldObj?.[k], oldObj !== undefined && k in oldObj, childPath, false, out);
    }
  } else if (Array.isArray(value) && isObject(schema['items'])) {
    const items = schema['items'];
    const find = hasOld ? correlateList(schema, old) : undefined;
    value.forEach((it, i) => {
      const o = find ? find(it) : { found: false, value: undefined };
      walk(items, it, o.value, o.found, `${path}[${i}]`, false, out);
    });
  }
}

/**
 * Evaluates every `x-kubernetes-validations` rule of `schema` (a CRD version's openAPIV3Schema) against `obj`
 * (and `old` on update) and returns the failures as field errors, in schema walk order.
 */
export function validateCelRules(schema: JsonObject, obj: JsonObject, old: JsonObject | undefined): FieldError[] {
  const out: FieldError[] = [];
  walk(schema, obj, old, old !== undefined, '', true, out);
  return out;
}
