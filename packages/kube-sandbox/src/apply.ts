/** Server-side apply (`application/apply-patch+yaml`): field managers, conflicts, force, removal of un-applied fields. */
import type { Cluster, WriteOptions } from './cluster.js';
import { ApiError, badRequest, type StatusCause } from './errors.js';
import { fromFieldsV1, humanPath, keyPath, leafPaths, removeAt, toFieldsV1, valueAt } from './managed.js';
import { strategicMergePatch } from './patch.js';
import { apiVersionOf, type KubeObject, type ManagedFieldsEntry, type ResourceType } from './types.js';
import { clone, deepEqual, isObject, nowTime } from './util.js';

/** How the apiserver names a conflicting manager: Apply managers by name, Update managers with version and time. */
function describeManager(e: ManagedFieldsEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}${e.time ? ` at ${e.time}` : ''}`;
  return s;
}

/** Options of an apply. */
export interface ApplyOptions extends WriteOptions {
  fieldManager: string;
  force: boolean;
}

/** Applies a configuration for a field manager; creates the object when absent. */
export function applyPatch(
  cluster: Cluster,
  t: ResourceType,
  ns: string | undefined,
  name: string,
  body: unknown,
  opts: ApplyOptions,
): KubeObject {
  const applied = checkApplyConfiguration(t, name, body);
  const part = opts.subresource === 'status' ? 'status' : 'main';
  const appliedSet = leafPaths(t, applied, part);
  const existing = cluster.peek(t, ns, name);
  const entry = applyEntry(opts, String(applied.apiVersion), appliedSet);
  if (!existing) {
    if (opts.subresource)
      throw new ApiError(404, 'NotFound', `${t.group ? `${t.plural}.${t.group}` : t.plural} "${name}" not found`, {
        name,
        kind: t.plural,
      });
    const obj = clone(applied);
    (obj.metadata ??= {}).managedFields = [entry];
    const wo: WriteOptions = { fieldManager: opts.fieldManager, skipTracking: true };
    if (opts.dryRun) wo.dryRun = true;
    return cluster.create(t, ns, obj, wo);
  }
  const entries = (existing.metadata?.managedFields ?? []).map((e) => ({ ...e }));
  const mine = entries.find(
    (e) =>
      e.manager === opts.fieldManager && e.operation === 'Apply' && (e.subresource ?? undefined) === opts.subresource,
  );
  const forced = forcedOrConflict(t, name, { existing, applied, appliedSet, entries, mine, opts });
  const merged = mergeApplied(t, existing, applied, appliedSet, entries, mine);
  (merged.metadata ??= {}).managedFields = [...keptEntries(entries, mine, forced, appliedSet, opts), entry];
  const wo: WriteOptions = { fieldManager: opts.fieldManager, skipTracking: true };
  if (opts.dryRun) wo.dryRun = true;
  if (opts.subresource) wo.subresource = opts.subresource;
  return cluster.applyUpdate(t, existing, merged, wo);
}

/** The apply configuration checked against the URL's type and name (a copy, its name set). */
function checkApplyConfiguration(t: ResourceType, name: string, body: unknown): KubeObject {
  if (!isObject(body)) throw badRequest('error decoding YAML: the apply configuration must be an object');
  const applied = clone(body) as KubeObject;
  const want = apiVersionOf(t.group, t.version);
  if (!applied.apiVersion || !applied.kind)
    throw badRequest('invalid object type: /, Kind=: apiVersion and kind must be set in an apply configuration');
  if (applied.apiVersion !== want && !(t.crd && applied.apiVersion.startsWith(`${t.group}/`)))
    throw badRequest(
      `the API version in the data (${applied.apiVersion}) does not match the expected API version (${want})`,
    );
  if (applied.kind !== t.kind)
    throw badRequest(`the kind in the data (${applied.kind}) does not match the expected kind (${t.kind})`);
  const md = (applied.metadata ??= {});
  if (md.name !== undefined && md.name !== name)
    throw badRequest(`the name of the object (${md.name}) does not match the name on the URL (${name})`);
  md.name = name;
  if (md.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
  return applied;
}

/** The Apply managed-fields entry of this manager owning `fields`. */
function applyEntry(opts: ApplyOptions, apiVersion: string, fields: Set<string>): ManagedFieldsEntry {
  const e: ManagedFieldsEntry = {
    manager: opts.fieldManager,
    operation: 'Apply',
    apiVersion,
    time: nowTime(),
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(fields),
  };
  if (opts.subresource) e.subresource = opts.subresource;
  return e;
}

/** What an apply over an existing object is checked against. */
interface ApplyState {
  existing: KubeObject;
  applied: KubeObject;
  appliedSet: Set<string>;
  entries: ManagedFieldsEntry[];
  mine: ManagedFieldsEntry | undefined;
  opts: ApplyOptions;
}

/**
 * Leaves owned by other managers whose value would change: taken over (returned) when forced or owned by this
 * manager's Update entry, otherwise a 409 Conflict naming every one.
 */
function forcedOrConflict(t: ResourceType, name: string, st: ApplyState): Set<string> {
  const { existing, applied, appliedSet, entries, mine, opts } = st;
  const conflicts: { who: string; path: string }[] = [];
  const forced = new Set<string>();
  for (const e of entries) {
    if (e === mine || (e.subresource ?? undefined) !== opts.subresource) continue;
    for (const k of fromFieldsV1(e.fieldsV1)) {
      if (!appliedSet.has(k)) continue;
      const p = keyPath(k);
      if (p.at(-1) === '.') continue;
      if (deepEqual(valueAt(existing, p), valueAt(applied, p))) continue;
      if (e.manager === opts.fieldManager) {
        forced.add(k);
        continue;
      }
      if (opts.force) forced.add(k);
      else conflicts.push({ who: describeManager(e), path: humanPath(k) });
    }
  }
  if (conflicts.length) {
    const causes: StatusCause[] = conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${c.who}`,
      field: c.path,
    }));
    const head =
      conflicts.length === 1 ? 'Apply failed with 1 conflict' : `Apply failed with ${conflicts.length} conflicts`;
    const list = conflicts.map((c) => `conflict with ${c.who}: ${c.path}`).join('\n');
    const d: ApiError['details'] = { name, kind: t.plural, causes };
    if (t.group) d.group = t.group;
    throw new ApiError(409, 'Conflict', `${head}: ${list}`, d);
  }
  return forced;
}

/** The existing object without the fields this manager no longer applies (owned by nobody else), merged with the configuration. */
function mergeApplied(
  t: ResourceType,
  existing: KubeObject,
  applied: KubeObject,
  appliedSet: Set<string>,
  entries: ManagedFieldsEntry[],
  mine: ManagedFieldsEntry | undefined,
): KubeObject {
  const prevMine = mine ? fromFieldsV1(mine.fieldsV1) : new Set<string>();
  const next = clone(existing);
  const othersOwn = new Set<string>();
  for (const e of entries) if (e !== mine) for (const k of fromFieldsV1(e.fieldsV1)) othersOwn.add(k);
  const drop = [...prevMine]
    .filter((k) => !appliedSet.has(k) && !othersOwn.has(k))
    .sort((a, b) => keyPath(b).length - keyPath(a).length);
  for (const k of drop) removeAt(next, keyPath(k));
  const appliedBody = clone(applied);
  if (appliedBody.metadata) delete appliedBody.metadata.managedFields;
  const merged = strategicMergePatch(next, appliedBody, (p) => t.lists[p]) as KubeObject;
  (merged.metadata ??= {}).resourceVersion = existing.metadata?.resourceVersion ?? '';
  return merged;
}

/** The other managers' entries after the apply: forced leaves removed, emptied entries dropped. */
function keptEntries(
  entries: ManagedFieldsEntry[],
  mine: ManagedFieldsEntry | undefined,
  forced: Set<string>,
  appliedSet: Set<string>,
  opts: ApplyOptions,
): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e === mine) continue;
    const owned = [...fromFieldsV1(e.fieldsV1)].filter(
      (k) => !(forced.has(k) && e.manager !== opts.fieldManager) || !appliedSet.has(k),
    );
    const keep = owned.filter((k) => !forced.has(k));
    if (keep.length) out.push({ ...e, fieldsV1: toFieldsV1(keep) });
  }
  return out;
}
