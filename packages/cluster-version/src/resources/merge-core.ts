/**
 * Pure merge primitives shared by the per-kind merges (upstream lib/resourcemerge): "set" a value the manifest gives,
 * "merge" maps key-wise, match lists by name. Everything works on plain JSON values and returns new values; the live
 * object passed in is never modified.
 */

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain (non-array) object. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Deep copy of a JSON value. */
export function clone<T>(v: T): T {
  return structuredClone(v);
}

/**
 * Overlays `required` onto `live` so that every field the manifest states wins while fields only the server set
 * (defaults such as `protocol: TCP`, `imagePullPolicy`, `clusterIP`) survive. Objects recurse; arrays of equal
 * length merge element-wise (so defaulted fields inside list items survive), arrays of different length are replaced.
 * This is the "compare after defaulting" rule: a live object that already satisfies the manifest merges to itself.
 */
export function overlay(live: unknown, required: unknown): unknown {
  if (isObject(required)) {
    if (!isObject(live)) return clone(required);
    const out: JsonObject = { ...live };
    for (const [k, v] of Object.entries(required)) {
      if (v === undefined) continue;
      out[k] = overlay(live[k], v);
    }
    return out;
  }
  if (Array.isArray(required)) {
    if (Array.isArray(live) && live.length === required.length) return required.map((r, i) => overlay(live[i], r));
    return clone(required);
  }
  return required;
}

/** Merges string maps key-wise (labels, annotations, ConfigMap data): keys of `required` win, other live keys stay. */
export function mergeMap(live: unknown, required: unknown): Record<string, unknown> | undefined {
  if (!isObject(required) || Object.keys(required).length === 0) return isObject(live) ? live : undefined;
  return { ...(isObject(live) ? live : {}), ...required };
}

/**
 * Matches list items by `name` (containers, volumes): live items absent from `required` are dropped, missing ones are
 * appended, the live order is kept, and each kept item is merged with `mergeItem`.
 */
export function mergeByName(
  live: unknown,
  required: unknown,
  mergeItem: (l: JsonObject, r: JsonObject) => JsonObject,
): JsonObject[] {
  const req = (Array.isArray(required) ? required : []).filter(isObject);
  const lv = (Array.isArray(live) ? live : []).filter(isObject);
  const byName = new Map(req.map((r) => [String(r['name']), r]));
  const out: JsonObject[] = [];
  const seen = new Set<string>();
  for (const l of lv) {
    const name = String(l['name']);
    const r = byName.get(name);
    if (!r) continue;
    seen.add(name);
    out.push(mergeItem(l, r));
  }
  for (const r of req) if (!seen.has(String(r['name']))) out.push(clone(r));
  return out;
}

/** Reads `obj[key]` as an object (empty object when absent). */
export function child(obj: unknown, key: string): JsonObject {
  if (!isObject(obj)) return {};
  const v = obj[key];
  return isObject(v) ? v : {};
}
