/**
 * Field ownership (managedFields, FieldsV1) for server-side apply and update tracking. Lists with a merge key
 * are tracked per item (`k:{"name":"x"}`), set lists per value (`v:"x"`), other lists atomically.
 */
import type { JsonObject, KubeObject, ListStrategy, ManagedFieldsEntry, ResourceType } from './types.js';
import { deepEqual, deleteKey, isObject, nowTime } from './util.js';

/** A leaf path: FieldsV1 keys from the root (`f:spec`, `k:{"name":"c"}`, `f:image`). */
export type FieldPath = string[];

const SEP = '\u0000';

/** Encodes a path as a set key. */
export function pathKey(p: FieldPath): string {
  return p.join(SEP);
}

/** Decodes a set key. */
export function keyPath(k: string): FieldPath {
  return k.split(SEP);
}

function strategyFor(t: ResourceType, dotted: string): ListStrategy | undefined {
  return t.lists[dotted];
}

const IGNORED_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

/** All leaf paths of an object, for the fields a manager sets (status excluded unless `status`). */
export function leafPaths(t: ResourceType, obj: KubeObject, part: 'main' | 'status'): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, p: FieldPath, dotted: string): void => {
    if (isObject(v) && Object.keys(v).length > 0) {
      for (const [k, x] of Object.entries(v)) {
        if (x === undefined) continue;
        walk(x, [...p, `f:${k}`], dotted ? `${dotted}.${k}` : k);
      }
      return;
    }
    if (Array.isArray(v) && v.length > 0) {
      const st = strategyFor(t, dotted);
      if (st?.mergeKey) {
        const keys = st.mergeKeys ?? [st.mergeKey];
        for (const item of v) {
          if (!isObject(item) || item[st.mergeKey] === undefined) {
            out.add(pathKey(p));
            return;
          }
        }
        for (const item of v as JsonObject[]) {
          const key: JsonObject = {};
          for (const k of keys) if (item[k] !== undefined) key[k] = item[k];
          const ip = [...p, `k:${JSON.stringify(key)}`];
          out.add(pathKey([...ip, '.']));
          walk(item, ip, `${dotted}[]`);
        }
        return;
      }
      if (st?.set) {
        for (const item of v) out.add(pathKey([...p, `v:${JSON.stringify(item)}`]));
        return;
      }
    }
    if (p.length) out.add(pathKey(p));
  };
  const root: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (part === 'main' && k === 'status' && t.subresources.includes('status')) continue;
    if (part === 'status' && k !== 'status') continue;
    if (k === 'metadata' && isObject(v)) {
      const md: JsonObject = {};
      for (const [mk, mv] of Object.entries(v)) if (!IGNORED_META.has(mk)) md[mk] = mv;
      if (Object.keys(md).length) root[k] = md;
    } else root[k] = v;
  }
  walk(root, [], '');
  return out;
}

/** Resolves a path in an object; `undefined` when absent. */
export function valueAt(obj: unknown, p: FieldPath): unknown {
  let cur: unknown = obj;
  for (const seg of p) {
    if (seg === '.') return cur;
    if (seg.startsWith('f:')) cur = isObject(cur) ? cur[seg.slice(2)] : undefined;
    else if (seg.startsWith('k:')) {
      const key = JSON.parse(seg.slice(2)) as JsonObject;
      cur = Array.isArray(cur)
        ? cur.find((it) => isObject(it) && Object.entries(key).every(([kk, kv]) => deepEqual(it[kk], kv)))
        : undefined;
    } else if (seg.startsWith('v:')) {
      const val = JSON.parse(seg.slice(2)) as unknown;
      cur = Array.isArray(cur) && cur.some((it) => deepEqual(it, val)) ? val : undefined;
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Removes the field at a path, in place. */
export function removeAt(obj: unknown, p: FieldPath): void {
  if (p.length === 0) return;
  const last = p[p.length - 1];
  if (last === undefined) return;
  if (last === '.') {
    removeAt(obj, p.slice(0, -1));
    return;
  }
  const parent = valueAt(obj, p.slice(0, -1));
  if (last.startsWith('f:') && isObject(parent)) deleteKey(parent, last.slice(2));
  else if (last.startsWith('k:') && Array.isArray(parent)) {
    const key = JSON.parse(last.slice(2)) as JsonObject;
    const i = parent.findIndex((it) => isObject(it) && Object.entries(key).every(([kk, kv]) => deepEqual(it[kk], kv)));
    if (i >= 0) parent.splice(i, 1);
  } else if (last.startsWith('v:') && Array.isArray(parent)) {
    const val = JSON.parse(last.slice(2)) as unknown;
    const i = parent.findIndex((it) => deepEqual(it, val));
    if (i >= 0) parent.splice(i, 1);
  }
}

/** Builds the FieldsV1 tree from a set of leaf paths. */
export function toFieldsV1(paths: Iterable<string>): JsonObject {
  const root: JsonObject = {};
  for (const k of paths) {
    let cur = root;
    for (const seg of keyPath(k)) cur = (cur[seg] ??= {}) as JsonObject;
  }
  return root;
}

/** Flattens a FieldsV1 tree to leaf paths. */
export function fromFieldsV1(f: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown, p: FieldPath): void => {
    if (!isObject(node) || Object.keys(node).length === 0) {
      if (p.length) out.add(pathKey(p));
      return;
    }
    for (const [k, v] of Object.entries(node)) walk(v, [...p, k]);
  };
  walk(f, []);
  return out;
}

/** Human path as in apply conflict messages: `.spec.containers[name="c"].image`. */
export function humanPath(k: string): string {
  let s = '';
  for (const seg of keyPath(k)) {
    if (seg === '.') continue;
    if (seg.startsWith('f:')) s += `.${seg.slice(2)}`;
    else if (seg.startsWith('k:')) {
      const key = JSON.parse(seg.slice(2)) as JsonObject;
      s += `[${Object.entries(key)
        .map(([kk, kv]) => `${kk}=${JSON.stringify(kv)}`)
        .join(',')}]`;
    } else if (seg.startsWith('v:')) s += `[=${seg.slice(2)}]`;
  }
  return s;
}

/** The operation that wrote fields. */
export interface ManagerKey {
  manager: string;
  operation: 'Apply' | 'Update';
  subresource: string | undefined;
}

function sameEntry(e: ManagedFieldsEntry, k: ManagerKey): boolean {
  return e.manager === k.manager && e.operation === k.operation && (e.subresource ?? undefined) === k.subresource;
}

/**
 * Records an Update by `manager`: it takes ownership of every leaf it changed or added; other managers lose
 * those leaves. Used for create, update and non-apply patches.
 */
export function recordUpdate(
  t: ResourceType,
  old: KubeObject | undefined,
  next: KubeObject,
  manager: string,
  subresource: string | undefined,
): void {
  const part = subresource === 'status' ? 'status' : 'main';
  const after = leafPaths(t, next, part);
  const changed = new Set<string>();
  for (const k of after) {
    const p = keyPath(k);
    if (!old || !deepEqual(valueAt(old, p), valueAt(next, p))) changed.add(k);
  }
  const entries = (old?.metadata?.managedFields ?? next.metadata?.managedFields ?? []).map((e) => ({ ...e }));
  const keep: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    const owned = fromFieldsV1(e.fieldsV1);
    const rest = [...owned].filter(
      (k) => !changed.has(k) && (valueAt(next, keyPath(k)) !== undefined || keyPath(k).at(-1) === '.'),
    );
    if (rest.length === 0 && !sameEntry(e, { manager, operation: 'Update', subresource })) continue;
    keep.push({ ...e, fieldsV1: toFieldsV1(rest) });
  }
  if (changed.size > 0) {
    const me: ManagerKey = { manager, operation: 'Update', subresource };
    const idx = keep.findIndex((e) => sameEntry(e, me));
    const found = keep[idx];
    const prev = idx >= 0 && found ? fromFieldsV1(found.fieldsV1) : new Set<string>();
    for (const k of changed) prev.add(k);
    const entry: ManagedFieldsEntry = {
      manager,
      operation: 'Update',
      apiVersion: String(next.apiVersion),
      time: nowTime(),
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(prev),
    };
    if (subresource) entry.subresource = subresource;
    if (idx >= 0) keep[idx] = entry;
    else keep.push(entry);
  }
  const nonEmpty = keep.filter((e) => Object.keys(e.fieldsV1).length > 0);
  if (nonEmpty.length) (next.metadata ??= {}).managedFields = nonEmpty;
  else if (next.metadata) delete next.metadata.managedFields;
}
