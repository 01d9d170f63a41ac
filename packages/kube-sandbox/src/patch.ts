/** Patch application: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch. */
import { ApiError, badRequest } from './errors.js';
import type { ListStrategy } from './types.js';
import { clone, deepEqual, deleteKey, isObject, must } from './util.js';

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) deleteKey(out, k);
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function unescapePointer(seg: string): string {
  return seg.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(p: unknown): string[] {
  if (typeof p !== 'string') throw badRequest('json patch: "path" must be a string');
  if (p === '') return [];
  if (!p.startsWith('/')) throw badRequest(`json patch: invalid pointer "${p}"`);
  return p.slice(1).split('/').map(unescapePointer);
}

/**
 * A JSON patch operation that does not apply. kube-apiserver answers it with a generic 422 Invalid
 * (`NewGenericServerResponse(422, ...)`: fixed message, empty details, the json-patch text dropped), so the Status
 * body carries the generic text; the operation's own error stays readable as {@link JsonPatchError.operationError}.
 */
export class JsonPatchError extends ApiError {
  constructor(readonly operationError: string) {
    super(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
    this.name = 'JsonPatchError';
  }
}

function jsonPatchError(message: string): ApiError {
  return new JsonPatchError(message);
}

function resolveParent(
  doc: unknown,
  segs: string[],
  op: string,
  path: string,
): { parent: Record<string, unknown> | unknown[]; key: string } {
  let cur: unknown = doc;
  for (const s of segs.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const idx = Number(s);
      if (!Number.isInteger(idx) || idx < 0 || idx >= cur.length)
        throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
      cur = cur[idx];
    } else if (isObject(cur)) {
      if (!(s in cur))
        throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
      cur = cur[s];
    } else throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isObject(cur))
    throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  return { parent: cur, key: must(segs[segs.length - 1], `last segment of JSON pointer "${path}"`) };
}

function getAt(doc: unknown, segs: string[], op: string, path: string): unknown {
  let cur = doc;
  for (const s of segs) {
    if (Array.isArray(cur)) cur = cur[Number(s)];
    else if (isObject(cur)) cur = cur[s];
    else cur = undefined;
    if (cur === undefined)
      throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  return cur;
}

/** RFC 6902 JSON patch; throws 422 when an operation does not apply. */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch: the body must be a JSON array of operations');
  let root = clone(doc);
  for (const raw of ops) {
    if (!isObject(raw)) throw badRequest('json patch: each operation must be an object');
    const op = String(raw['op']);
    const path = raw['path'];
    const segs = parsePointer(path);
    const p = String(path);
    const remove = (): unknown => {
      if (segs.length === 0) throw jsonPatchError('remove operation does not apply: cannot remove the document root');
      const { parent, key } = resolveParent(root, segs, op, p);
      if (Array.isArray(parent)) {
        const idx = Number(key);
        if (!Number.isInteger(idx) || idx < 0 || idx >= parent.length)
          throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${p}": missing value`);
        return parent.splice(idx, 1)[0];
      }
      if (!(key in parent))
        throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${p}": missing value`);
      const v = parent[key];
      deleteKey(parent, key);
      return v;
    };
    const add = (value: unknown, replace: boolean): void => {
      if (segs.length === 0) {
        root = clone(value);
        return;
      }
      const { parent, key } = resolveParent(root, segs, op, p);
      if (Array.isArray(parent)) {
        const idx = key === '-' ? parent.length : Number(key);
        if (!Number.isInteger(idx) || idx < 0 || idx > parent.length || (replace && idx >= parent.length))
          throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${p}": missing value`);
        if (replace) parent[idx] = clone(value);
        else parent.splice(idx, 0, clone(value));
      } else {
        if (replace && !(key in parent))
          throw jsonPatchError(`replace operation does not apply: doc is missing key: ${p}: missing value`);
        parent[key] = clone(value);
      }
    };
    switch (op) {
      case 'add':
        if (!('value' in raw)) throw badRequest('json patch: add operation needs a "value"');
        add(raw['value'], false);
        break;
      case 'remove':
        remove();
        break;
      case 'replace':
        if (!('value' in raw)) throw badRequest('json patch: replace operation needs a "value"');
        add(raw['value'], true);
        break;
      case 'move':
      case 'copy': {
        const fromSegs = parsePointer(raw['from']);
        const v = clone(getAt(root, fromSegs, op, String(raw['from'])));
        // moving the root itself leaves the source in place (nothing to detach), as before; the copy is added below
        if (op === 'move' && fromSegs.length > 0) {
          const { parent, key } = resolveParent(root, fromSegs, op, String(raw['from']));
          if (Array.isArray(parent)) parent.splice(Number(key), 1);
          else deleteKey(parent, key);
        }
        add(v, false);
        break;
      }
      case 'test': {
        const v = getAt(root, segs, op, p);
        if (!deepEqual(v, raw['value'])) throw jsonPatchError(`testing value ${p} failed: test failed`);
        break;
      }
      default:
        throw badRequest(`json patch: unexpected kind of operation "${op}"`);
    }
  }
  return root;
}

/** Looks up the list strategy for a dotted path (`spec.template.spec.containers[].env`). */
export type StrategyLookup = (path: string) => ListStrategy | undefined;

/**
 * Strategic merge patch. Lists with a merge key are merged item-by-item; primitive lists marked `set` are unioned;
 * other lists are replaced. Honours `$patch: delete|replace|merge`, `$deleteFromPrimitiveList/<field>` and
 * `$retainKeys`; `$setElementOrder/<field>` directives are accepted and used for ordering.
 */
export function strategicMergePatch(target: unknown, patch: unknown, lookup: StrategyLookup, path = ''): unknown {
  if (!isObject(patch)) return clone(patch);
  if (patch['$patch'] === 'replace') {
    const c = { ...patch };
    delete c['$patch'];
    return stripDirectives(c);
  }
  if (patch['$patch'] === 'delete') return undefined;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  const retain = patch['$retainKeys'];
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) out[field] = cur.filter((x) => !v.some((y) => deepEqual(x, y)));
      continue;
    }
    const childPath = path ? `${path}.${k}` : k;
    if (v === null) {
      deleteKey(out, k);
      continue;
    }
    if (Array.isArray(v)) {
      const strat = lookup(childPath);
      const order = patch[`$setElementOrder/${k}`];
      out[k] = mergeList(out[k], v, strat, lookup, childPath, Array.isArray(order) ? order : undefined);
      continue;
    }
    if (isObject(v)) {
      const merged = strategicMergePatch(out[k], v, lookup, childPath);
      if (merged === undefined) deleteKey(out, k);
      else out[k] = merged;
      continue;
    }
    out[k] = v;
  }
  if (Array.isArray(retain)) {
    for (const k of Object.keys(out)) if (!retain.includes(k)) deleteKey(out, k);
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) o[k] = stripDirectives(x);
  return o;
}

function mergeList(
  current: unknown,
  patch: unknown[],
  strat: ListStrategy | undefined,
  lookup: StrategyLookup,
  path: string,
  order: unknown[] | undefined,
): unknown[] {
  const cur: unknown[] = Array.isArray(current) ? current : [];
  if (strat?.set) {
    const out = [...cur];
    for (const p of patch) {
      if (isObject(p) && p['$patch'] === 'replace') return [];
      if (!out.some((x) => deepEqual(x, p))) out.push(p);
    }
    return out;
  }
  const key = strat?.mergeKey;
  if (!key) {
    // atomic list; a `$patch: replace` item means replace by the other items
    return patch.filter((p) => !(isObject(p) && p['$patch'] === 'replace')).map(stripDirectives);
  }
  if (patch.some((p) => isObject(p) && p['$patch'] === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p['$patch'] === 'replace')).map(stripDirectives);
  }
  const out: unknown[] = cur.map((x) => x);
  const keys = strat.mergeKeys ?? [key];
  const sameItem = (x: unknown, p: Record<string, unknown>): boolean =>
    isObject(x) && keys.every((k) => deepEqual(x[k], p[k]));
  for (const p of patch) {
    if (!isObject(p)) {
      out.push(p);
      continue;
    }
    const idx = out.findIndex((x) => sameItem(x, p));
    if (p['$patch'] === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = strategicMergePatch(out[idx], p, lookup, `${path}[]`);
    else out.push(strategicMergePatch(undefined, p, lookup, `${path}[]`));
  }
  if (order) {
    const pos = (x: unknown): number => {
      const i = order.findIndex((o) => isObject(o) && isObject(x) && keys.every((k) => deepEqual(o[k], x[k])));
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    };
    out.sort((a, b) => pos(a) - pos(b));
  }
  return out;
}
