/**
 * The in-memory cluster state: typed resource registry, object storage with one global resourceVersion counter,
 * bounded event history for watches, and the write semantics of the real API server (generation, status
 * subresource, finalizers, optimistic concurrency, namespaces, garbage collection hooks).
 */
import { randomUUID } from 'node:crypto';
import { matchLabelRequirements, type LabelRequirement } from '@keelson/api';
import { builtinTypes } from './builtins.js';
import {
  alreadyExists,
  ApiError,
  badRequest,
  conflict,
  expired,
  forbidden,
  invalid,
  notFound,
  type FieldError,
} from './errors.js';
import { specChanged, stripVolatile } from './object-diff.js';
import { decodeContinue, encodeContinue, listDocument } from './list-page.js';
import { matchFields, type FieldRequirement } from './selectors.js';
import { apiVersionOf, grKey, type KubeObject, type ObjectMeta, type ResourceType } from './types.js';
import { clone, sortedClone, deepEqual, deleteKey, isObject, must, nowTime, randomSuffix } from './util.js';
import { validateMeta } from './validation.js';
import { recordUpdate } from './managed.js';
import { WatcherIndex, firstAfter } from './watcher-index.js';

/** The type of a watch event. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One change recorded in history and fanned out to watchers. */
export interface ChangeEvent {
  rv: number;
  gr: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  /** The object before the change (for MODIFIED), used to compute selector transitions. */
  previous?: KubeObject;
}

/** A watcher registered on one group/resource. */
export interface Watcher {
  gr: string;
  namespace?: string;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  send(type: WatchEventType, obj: KubeObject): void;
}

/** Options of a write. */
export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  subresource?: string;
  /** Do not record managedFields (the caller, e.g. server-side apply, already did). */
  skipTracking?: boolean;
}

/** Options of a delete. */
export interface DeleteOptions extends WriteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

/** Hooks a type can register to default/validate/transform objects on writes. */
export interface TypeStrategy {
  /** Called on create before validation; may default fields. */
  prepareCreate?(obj: KubeObject): void;
  /** Called on update (main resource) before validation. */
  prepareUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Extra validation; returns field errors. */
  validate?(obj: KubeObject, old: KubeObject | undefined): FieldError[];
  /** Called after a successful (non-dry-run) write or delete. */
  afterWrite?(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject, old: KubeObject | undefined): void;
}

/** Options of the cluster store. */
export interface ClusterOptions {
  /** Number of change events kept for watch resumption (older resourceVersions get 410 Gone). Default 10000. */
  historySize?: number;
}

interface Stored {
  t: ResourceType;
  objects: Map<string, KubeObject>;
  /**
   * resourceVersion at which this resource's watch window begins (like the kube-apiserver watch cache, which
   * starts from a list at that version): watches from older versions get 410 Expired.
   */
  watchStart: number;
}

function objKey(ns: string | undefined, name: string): string {
  return `${ns ?? ''}/${name}`;
}

/** The in-memory cluster. */
export class Cluster {
  /** Served types keyed by `group/version/plural`. */
  private readonly types = new Map<string, ResourceType>();
  /** Storage keyed by `group/plural`. */
  private readonly storage = new Map<string, Stored>();
  private readonly strategies = new Map<string, TypeStrategy>();
  private readonly watchers = new WatcherIndex();
  private history: ChangeEvent[] = [];
  private historyStart = 0;
  private readonly historySize: number;
  /** The last resourceVersion handed out. */
  rv = 1;
  /** Lowest resourceVersion a watch can resume from. */
  compactedRv = 1;
  /** Listeners on every change (controllers). */
  private readonly listeners = new Set<(e: ChangeEvent) => void>();
  /** Owner uid → number of stored objects naming it in their ownerReferences (kept current by every write). */
  private readonly dependentCount = new Map<string, number>();
  /** Bumped on every change of the served type set (discovery caches). */
  discoveryGeneration = 0;

  constructor(opts: ClusterOptions = {}) {
    this.historySize = opts.historySize ?? 10000;
    for (const t of builtinTypes()) this.addType(t);
  }

  /** Registers (or replaces) a served type. */
  addType(t: ResourceType): void {
    this.types.set(`${t.group}/${t.version}/${t.plural}`, t);
    if (t.storedAs) {
      this.discoveryGeneration++;
      return;
    }
    const k = grKey(t.group, t.plural);
    const s = this.storage.get(k);
    if (!s) this.storage.set(k, { t, objects: new Map(), watchStart: this.rv });
    else if (t.crd?.storage || !s.t.crd) s.t = t;
    this.discoveryGeneration++;
  }

  /** Removes served versions of a group/resource; with `dropStorage` also its storage. */
  removeTypes(group: string, plural: string, keepVersions: string[] = [], dropStorage = false): void {
    for (const [k, t] of this.types)
      if (t.group === group && t.plural === plural && !keepVersions.includes(t.version)) this.types.delete(k);
    if (dropStorage) this.storage.delete(grKey(group, plural));
    this.discoveryGeneration++;
  }

  /** Registers strategy hooks for a group/resource. */
  setStrategy(group: string, plural: string, s: TypeStrategy): void {
    this.strategies.set(grKey(group, plural), s);
  }

  /** All served types. */
  allTypes(): ResourceType[] {
    return [...this.types.values()];
  }

  /** Finds a served type. */
  findType(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.get(`${group}/${version}/${plural}`);
  }

  /** Finds the storage type for a group/kind (any version). */
  typeForKind(apiVersion: string, kind: string): ResourceType | undefined {
    const [g, v] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    for (const t of this.types.values()) if (t.group === g && t.version === v && t.kind === kind) return t;
    for (const t of this.types.values()) if (t.group === g && t.kind === kind) return t;
    return undefined;
  }

  /** Subscribes to all changes. Returns an unsubscribe function. */
  onChange(fn: (e: ChangeEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The type whose storage holds objects of `t` (itself unless `t.storedAs`). */
  private base(t: ResourceType): ResourceType {
    if (!t.storedAs) return t;
    const { group, plural } = t.storedAs;
    for (const x of this.types.values()) if (x.group === group && x.plural === plural && !x.storedAs) return x;
    throw new Error(`internal: storage ${group}/${plural} of ${t.group}/${t.plural} is not registered`);
  }

  private store(t0: ResourceType): Stored {
    const t = this.base(t0);
    const k = grKey(t.group, t.plural);
    let s = this.storage.get(k);
    if (!s) {
      s = { t, objects: new Map(), watchStart: this.rv };
      this.storage.set(k, s);
    }
    return s;
  }

  /** Returns the stored object (not a copy: do not mutate) or undefined. */
  peek(t0: ResourceType, ns: string | undefined, name: string): KubeObject | undefined {
    const t = this.base(t0);
    return this.storage.get(grKey(t.group, t.plural))?.objects.get(objKey(t.namespaced ? ns : undefined, name));
  }

  /** Stored objects of a group/resource (not copies). */
  peekAll(t0: ResourceType, ns?: string): KubeObject[] {
    const t = this.base(t0);
    const s = this.storage.get(grKey(t.group, t.plural));
    if (!s) return [];
    const all = [...s.objects.values()];
    return ns === undefined ? all : all.filter((o) => o.metadata?.namespace === ns);
  }

  /** Every stored object with its type (for GC, namespace cleanup and snapshots). */
  *everything(): Generator<{ t: ResourceType; obj: KubeObject }> {
    for (const s of this.storage.values()) for (const obj of s.objects.values()) yield { t: s.t, obj };
  }

  /** Serves an object at a given version: sets apiVersion/kind (CRD versions share storage). */
  view(t: ResourceType, obj: KubeObject): KubeObject {
    if (t.crd) {
      // custom objects are unstructured maps upstream, serialized with sorted keys
      return sortedClone({ ...obj, apiVersion: apiVersionOf(t.group, t.version), kind: t.kind }) as KubeObject;
    }
    const out = t.storedAs ? t.storedAs.fromStorage(clone(obj)) : clone(obj);
    out.apiVersion = apiVersionOf(t.group, t.version);
    out.kind = t.kind;
    return out;
  }

  // ---------------------------------------------------------------- reads

  /** get */
  get(t: ResourceType, ns: string | undefined, name: string): KubeObject {
    const o = this.peek(t, ns, name);
    if (!o) throw notFound({ group: t.group, resource: t.plural }, name);
    return this.view(t, o);
  }

  /** list with selectors and pagination. */
  list(
    t: ResourceType,
    ns: string | undefined,
    opts: { labels?: LabelRequirement[]; fields?: FieldRequirement[]; limit?: number; continueToken?: string } = {},
  ): KubeObject {
    const s = this.store(t);
    let startAfter = '';
    let listRv = this.rv;
    if (opts.continueToken) {
      const tok = decodeContinue(opts.continueToken, this.compactedRv);
      startAfter = tok.start;
      listRv = tok.rv;
    }
    const keys = [...s.objects.keys()].sort();
    const items: KubeObject[] = [];
    let next: string | undefined;
    let remaining = 0;
    for (const k of keys) {
      if (startAfter && k <= startAfter) continue;
      const o = s.objects.get(k);
      if (!o) continue;
      if (t.namespaced && ns !== undefined && o.metadata?.namespace !== ns) continue;
      if (opts.labels && opts.labels.length && !matchLabelRequirements(opts.labels, o.metadata?.labels)) continue;
      if (opts.fields && opts.fields.length && !matchFields(opts.fields, o)) continue;
      if (opts.limit && items.length >= opts.limit) {
        remaining++;
        continue;
      }
      items.push(this.view(t, o));
      next = k;
    }
    const cont = opts.limit && remaining > 0 && next ? encodeContinue(listRv, next) : undefined;
    return listDocument(t, items, listRv, cont, remaining);
  }

  // ---------------------------------------------------------------- watch

  /**
   * Starts a watch. Replays history after `resourceVersion` (or sends the current state as ADDED events when
   * it is empty or "0"), then streams live changes. Throws 410 Expired when history no longer covers it.
   */
  watch(t: ResourceType, w: Omit<Watcher, 'gr'>, resourceVersion: string | undefined): () => void {
    const b = this.base(t);
    const gr = grKey(b.group, b.plural);
    const watcher: Watcher = { ...w, gr };
    this.watcherTypes.set(watcher, t);
    if (resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0') {
      for (const o of this.store(t).objects.values()) if (this.matches(watcher, o)) w.send('ADDED', this.view(t, o));
    } else {
      const from = Number(resourceVersion);
      if (!Number.isInteger(from) || from < 0)
        throw badRequest(`invalid resource version: ${JSON.stringify(resourceVersion)}`);
      const oldest = Math.max(this.compactedRv, this.storage.get(gr)?.watchStart ?? 0);
      if (from < oldest) throw expired(`too old resource version: ${from} (${oldest})`);
      // history is in resourceVersion order: start at the first event after `from` (a binary search)
      for (let i = firstAfter(this.history, this.historyStart, from); i < this.history.length; i++) {
        const e = this.history[i] as ChangeEvent;
        if (e.gr === gr) this.deliver(watcher, t, e);
      }
    }
    return this.watchers.add(watcher);
  }

  private matches(w: Watcher, o: KubeObject): boolean {
    if (w.namespace !== undefined && o.metadata?.namespace !== w.namespace) return false;
    if (w.labels.length && !matchLabelRequirements(w.labels, o.metadata?.labels)) return false;
    if (w.fields.length && !matchFields(w.fields, o)) return false;
    return true;
  }

  private deliver(w: Watcher, t: ResourceType, e: ChangeEvent, viewOf?: (t: ResourceType) => KubeObject): void {
    const now = this.matches(w, e.object);
    const v = (): KubeObject => (viewOf ? viewOf(t) : this.view(t, e.object));
    if (e.type === 'MODIFIED' && e.previous) {
      const before = this.matches(w, e.previous);
      if (now && before) w.send('MODIFIED', v());
      else if (now) w.send('ADDED', v());
      else if (before) w.send('DELETED', v());
      return;
    }
    if (now) w.send(e.type, v());
  }

  /** Number of open watches. */
  watcherCount(): number {
    return this.watchers.size;
  }

  private emit(t: ResourceType, type: ChangeEvent['type'], obj: KubeObject, previous?: KubeObject): void {
    const e: ChangeEvent = {
      rv: Number(obj.metadata?.resourceVersion),
      gr: grKey(t.group, t.plural),
      type,
      object: obj,
    };
    if (previous) e.previous = previous;
    this.indexOwners(type, obj, previous);
    this.history.push(e);
    if (this.history.length - this.historyStart > this.historySize) {
      const dropped = must(this.history[this.historyStart], 'watch history entry');
      this.compactedRv = dropped.rv;
      this.historyStart++;
      if (this.historyStart > 4096) {
        this.history = this.history.slice(this.historyStart);
        this.historyStart = 0;
      }
    }
    const views = new Map<ResourceType, KubeObject>();
    const viewOf = (vt: ResourceType): KubeObject => {
      let v = views.get(vt);
      if (!v) {
        v = this.view(vt, e.object);
        views.set(vt, v);
      }
      return v;
    };
    for (const w of this.watchers.candidates(e.gr, obj.metadata?.name)) {
      // watchers receive the object in their own version (CRD versions share storage); one view per version
      this.deliver(w, this.watchType(w, t), e, viewOf);
    }
    for (const l of this.listeners) l(e);
  }

  private readonly watcherTypes = new WeakMap<Watcher, ResourceType>();
  private watchType(w: Watcher, fallback: ResourceType): ResourceType {
    return this.watcherTypes.get(w) ?? fallback;
  }

  /**
   * Starts every resource's watch window at the current resourceVersion, as kube-apiserver's watch caches start
   * from a list when the server starts (called once the sandbox has created its bootstrap objects).
   */
  markWatchCacheStart(): void {
    for (const s of this.storage.values()) s.watchStart = this.rv;
  }

  /** Drops history so that watches from older resourceVersions get 410 (tests of relist). */
  compact(): void {
    this.rv++;
    this.compactedRv = this.rv;
    this.history = [];
    this.historyStart = 0;
  }

  /** Ends every open watch (their send function receives no more events; the HTTP layer closes streams). */
  private readonly closers = new Set<() => void>();
  /** Registers a function that closes one watch stream. */
  addCloser(fn: () => void): () => void {
    this.closers.add(fn);
    return () => this.closers.delete(fn);
  }
  /** Closes all watch streams (clients see the stream end and re-watch). */
  closeAllWatches(): void {
    for (const c of [...this.closers]) c();
  }

  private nextRv(): string {
    this.rv++;
    return String(this.rv);
  }

  // ---------------------------------------------------------------- writes

  private strategy(t: ResourceType): TypeStrategy {
    return this.strategies.get(grKey(t.group, t.plural)) ?? {};
  }

  private checkNamespace(t: ResourceType, ns: string | undefined, name: string, creating: boolean): void {
    if (!t.namespaced) return;
    if (!ns) throw badRequest('the server could not find the requested resource');
    const nsType = must(this.findType('', 'v1', 'namespaces'), 'built-in type v1/namespaces');
    const n = this.peek(nsType, undefined, ns);
    if (!n) throw notFound({ group: '', resource: 'namespaces' }, ns);
    if (creating && n.metadata?.deletionTimestamp)
      throw forbidden(
        { group: t.group, resource: t.plural },
        name,
        `unable to create new content in namespace ${ns} because it is being terminated`,
        [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${ns} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      );
  }

  private checkBody(t: ResourceType, body: unknown): KubeObject {
    if (!isObject(body)) throw badRequest('the body of the request was not a JSON object');
    const obj = body as KubeObject;
    const want = apiVersionOf(t.group, t.version);
    if (obj.apiVersion !== undefined && obj.apiVersion !== want) {
      const okOther = t.crd !== undefined && this.findType(t.group, obj.apiVersion.split('/')[1] ?? '', t.plural);
      if (!okOther)
        throw badRequest(
          `the API version in the data (${obj.apiVersion}) does not match the expected API version (${want})`,
        );
    }
    if (obj.kind !== undefined && obj.kind !== t.kind)
      throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${t.kind})`);
    if (obj.metadata !== undefined && !isObject(obj.metadata)) throw badRequest('metadata must be an object');
    return obj;
  }

  /** create */
  create(t: ResourceType, ns: string | undefined, body: unknown, opts: WriteOptions = {}): KubeObject {
    if (t.storedAs)
      return this.view(t, this.create(this.base(t), ns, t.storedAs.toStorage(this.checkBody(t, body)), opts));
    const obj = clone(this.checkBody(t, body));
    obj.apiVersion = apiVersionOf(t.group, t.version);
    obj.kind = t.kind;
    const md: ObjectMeta = (obj.metadata ??= {});
    if (t.namespaced) {
      if (md.namespace && ns && md.namespace !== ns)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      md.namespace = ns ?? md.namespace ?? 'default';
    } else delete md.namespace;
    if (!md.name && md.generateName) md.name = `${md.generateName}${randomSuffix()}`;
    const name = md.name ?? '';
    this.checkNamespace(t, md.namespace, name, true);
    for (const k of ['uid', 'resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'] as const)
      deleteKey(md, k);
    md.uid = randomUUID();
    md.creationTimestamp = nowTime();
    if (t.generation || t.crd) md.generation = 1;
    else delete md.generation;
    if (
      t.subresources.includes('status') &&
      t.plural !== 'nodes' &&
      t.plural !== 'customresourcedefinitions' &&
      t.plural !== 'namespaces'
    ) {
      if (t.crd) delete obj['status'];
    }
    const st = this.strategy(t);
    st.prepareCreate?.(obj);
    const errs = [...validateMeta(t, obj), ...(st.validate?.(obj, undefined) ?? [])];
    if (errs.length) throw invalid(t.group, t.kind, name, errs);
    if (this.peek(t, md.namespace, name)) throw alreadyExists({ group: t.group, resource: t.plural }, name);
    if (!opts.skipTracking) {
      delete md.managedFields;
      if (opts.fieldManager) recordUpdate(t, undefined, obj, opts.fieldManager, undefined);
    }
    if (opts.dryRun) return this.view(t, obj);
    md.resourceVersion = this.nextRv();
    this.store(t).objects.set(objKey(md.namespace, name), obj);
    this.emit(t, 'ADDED', obj);
    st.afterWrite?.('ADDED', obj, undefined);
    return this.view(t, obj);
  }

  /**
   * update (PUT). `subresource` "status" replaces only status; the main resource keeps the stored status when
   * the type has a status subresource.
   */
  update(t: ResourceType, ns: string | undefined, name: string, body: unknown, opts: WriteOptions = {}): KubeObject {
    if (t.storedAs)
      return this.view(t, this.update(this.base(t), ns, name, t.storedAs.toStorage(this.checkBody(t, body)), opts));
    const incoming = this.checkBody(t, body);
    const old = this.peek(t, ns, name);
    if (!old) throw notFound({ group: t.group, resource: t.plural }, name);
    const inMd = incoming.metadata ?? {};
    if (inMd.name !== undefined && inMd.name !== name)
      throw badRequest(`the name of the object (${inMd.name}) does not match the name on the URL (${name})`);
    if (t.namespaced && inMd.namespace && inMd.namespace !== ns)
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (
      inMd.resourceVersion !== undefined &&
      inMd.resourceVersion !== '' &&
      inMd.resourceVersion !== old.metadata?.resourceVersion
    ) {
      throw conflict({ group: t.group, resource: t.plural }, name);
    }
    if ((inMd.resourceVersion === undefined || inMd.resourceVersion === '') && t.crd) {
      throw invalid(t.group, t.kind, name, [
        {
          field: 'metadata.resourceVersion',
          type: 'FieldValueInvalid',
          value: 0,
          detail: 'must be specified for an update',
        },
      ]);
    }
    return this.applyUpdate(t, old, clone(incoming), opts);
  }

  /** Shared tail of update/patch: merges immutable fields, subresource semantics, generation, finalizers. */
  applyUpdate(t: ResourceType, old: KubeObject, next: KubeObject, opts: WriteOptions = {}): KubeObject {
    if (t.storedAs) return this.view(t, this.applyUpdate(this.base(t), old, t.storedAs.toStorage(next), opts));
    const oldMd = old.metadata ?? {};
    const name = oldMd.name ?? '';
    next.apiVersion = apiVersionOf(t.group, t.version);
    next.kind = t.kind;
    let md: ObjectMeta = (next.metadata ??= {});
    const sub = opts.subresource;
    if (sub === 'status') {
      const status = next['status'];
      const managed = md.managedFields;
      next = clone(old);
      if (status === undefined) delete next['status'];
      else next['status'] = status;
      md = next.metadata ??= {};
      if (opts.skipTracking && managed) md.managedFields = managed;
    } else if (
      t.subresources.includes('status') &&
      (t.crd ? t.crd.statusSubresource : true) &&
      t.plural !== 'namespaces'
    ) {
      if (old['status'] === undefined) delete next['status'];
      else next['status'] = clone(old['status']);
    }
    md.name = name;
    if (t.namespaced) md.namespace = must(oldMd.namespace, 'stored object metadata.namespace');
    else delete md.namespace;
    md.uid = must(oldMd.uid, 'stored object metadata.uid');
    md.creationTimestamp = must(oldMd.creationTimestamp, 'stored object metadata.creationTimestamp');
    if (oldMd.deletionTimestamp) {
      md.deletionTimestamp = oldMd.deletionTimestamp;
      if (oldMd.deletionGracePeriodSeconds !== undefined)
        md.deletionGracePeriodSeconds = oldMd.deletionGracePeriodSeconds;
    } else {
      delete md.deletionTimestamp;
      delete md.deletionGracePeriodSeconds;
    }
    if (oldMd.generateName !== undefined && md.generateName === undefined) md.generateName = oldMd.generateName;
    if (oldMd.generation !== undefined) md.generation = oldMd.generation;
    else delete md.generation;
    md.resourceVersion = must(oldMd.resourceVersion, 'stored object metadata.resourceVersion');
    if (oldMd.managedFields && md.managedFields === undefined) md.managedFields = oldMd.managedFields;
    const st = this.strategy(t);
    if (sub !== 'status' && sub !== 'finalize') st.prepareUpdate?.(next, old);
    const errs = [...validateMeta(t, next), ...(st.validate?.(next, old) ?? [])];
    if (oldMd.deletionTimestamp) {
      const added = (md.finalizers ?? []).filter((f) => !(oldMd.finalizers ?? []).includes(f));
      if (added.length)
        errs.push({
          field: 'metadata.finalizers',
          type: 'FieldValueForbidden',
          detail:
            'no new finalizers can be added if the object is being deleted, found new finalizers ' +
            JSON.stringify(added),
        });
    }
    if (errs.length) throw invalid(t.group, t.kind, name, errs);
    if (md.generation !== undefined && specChanged(t, old, next)) md.generation = (oldMd.generation ?? 0) + 1;
    if (!opts.skipTracking && opts.fieldManager) {
      md.managedFields = oldMd.managedFields ?? [];
      recordUpdate(t, old, next, opts.fieldManager, sub);
    }
    if (deepEqual(stripVolatile(old), stripVolatile(next))) return this.view(t, old);
    if (opts.dryRun) return this.view(t, next);
    const specFinalizers =
      t.group === '' && t.plural === 'namespaces' && isObject(next['spec']) && Array.isArray(next['spec']['finalizers'])
        ? next['spec']['finalizers'].length
        : 0;
    if (md.deletionTimestamp && (md.finalizers ?? []).length === 0 && specFinalizers === 0) {
      md.resourceVersion = this.nextRv();
      this.store(t).objects.delete(objKey(md.namespace, name));
      // the stored version was `old`: its owner references leave the index (the DELETED event carries `next`'s)
      this.indexOwners('MODIFIED', next, old);
      this.emit(t, 'DELETED', next);
      st.afterWrite?.('DELETED', next, old);
      return this.view(t, next);
    }
    md.resourceVersion = this.nextRv();
    this.store(t).objects.set(objKey(md.namespace, name), next);
    this.emit(t, 'MODIFIED', next, old);
    st.afterWrite?.('MODIFIED', next, old);
    return this.view(t, next);
  }

  /**
   * delete. Objects with finalizers (or a Foreground policy) get a deletionTimestamp and stay until the
   * finalizers are removed; returns `{ object, deleted }`.
   */
  delete(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): { object: KubeObject; deleted: boolean } {
    if (t.storedAs) {
      const r = this.delete(this.base(t), ns, name, opts);
      return { object: this.view(t, r.object), deleted: r.deleted };
    }
    const old = this.peek(t, ns, name);
    if (!old) throw notFound({ group: t.group, resource: t.plural }, name);
    const md = old.metadata ?? {};
    if (opts.preconditions?.uid && opts.preconditions.uid !== md.uid)
      throw conflict(
        { group: t.group, resource: t.plural },
        name,
        `Precondition failed: UID in precondition: ${opts.preconditions.uid}, UID in object meta: ${md.uid ?? ''}`,
      );
    if (opts.preconditions?.resourceVersion && opts.preconditions.resourceVersion !== md.resourceVersion)
      throw conflict(
        { group: t.group, resource: t.plural },
        name,
        `Precondition failed: ResourceVersion in precondition: ${opts.preconditions.resourceVersion}, ResourceVersion in object meta: ${md.resourceVersion ?? ''}`,
      );
    const finalizers = [...(md.finalizers ?? [])];
    if (
      opts.propagationPolicy === 'Foreground' &&
      !finalizers.includes('foregroundDeletion') &&
      this.hasDependents(md.uid ?? '')
    )
      finalizers.push('foregroundDeletion');
    if (opts.propagationPolicy === 'Orphan' && !finalizers.includes('orphan') && this.hasDependents(md.uid ?? ''))
      finalizers.push('orphan');
    const isNamespace = t.group === '' && t.plural === 'namespaces';
    if (finalizers.length > 0 || isNamespace) {
      if (md.deletionTimestamp && deepEqual(finalizers, md.finalizers ?? []))
        return { object: this.view(t, old), deleted: false };
      const next = clone(old);
      const nmd = (next.metadata ??= {});
      nmd.deletionTimestamp ??= nowTime();
      nmd.deletionGracePeriodSeconds ??= 0;
      if (finalizers.length) nmd.finalizers = finalizers;
      if (isNamespace) next['status'] = { ...(isObject(next['status']) ? next['status'] : {}), phase: 'Terminating' };
      if (opts.dryRun) return { object: this.view(t, next), deleted: false };
      nmd.resourceVersion = this.nextRv();
      this.store(t).objects.set(objKey(nmd.namespace, name), next);
      this.emit(t, 'MODIFIED', next, old);
      this.strategy(t).afterWrite?.('MODIFIED', next, old);
      return { object: this.view(t, next), deleted: false };
    }
    if (opts.dryRun) return { object: this.view(t, old), deleted: true };
    const gone = clone(old);
    (gone.metadata ??= {}).resourceVersion = this.nextRv();
    this.store(t).objects.delete(objKey(md.namespace, name));
    this.emit(t, 'DELETED', gone);
    this.strategy(t).afterWrite?.('DELETED', gone, old);
    return { object: this.view(t, gone), deleted: true };
  }

  /** Removes an object immediately (finalization done), emitting DELETED. */
  removeNow(t: ResourceType, ns: string | undefined, name: string): void {
    const old = this.peek(t, ns, name);
    if (!old) throw notFound({ group: t.group, resource: t.plural }, name);
    const gone = clone(old);
    (gone.metadata ??= {}).resourceVersion = this.nextRv();
    this.store(t).objects.delete(objKey(t.namespaced ? ns : undefined, name));
    this.emit(t, 'DELETED', gone);
    this.strategy(t).afterWrite?.('DELETED', gone, old);
  }

  /** Whether any stored object names `uid` among its ownerReferences (an index lookup, not a scan). */
  hasDependents(uid: string): boolean {
    return uid !== '' && (this.dependentCount.get(uid) ?? 0) > 0;
  }

  /** Keeps {@link dependentCount} current: a write replaces the previous version's owner references by the new ones. */
  private indexOwners(type: ChangeEvent['type'], obj: KubeObject, previous: KubeObject | undefined): void {
    const before = type === 'ADDED' ? undefined : (previous ?? obj).metadata?.ownerReferences;
    const after = type === 'DELETED' ? undefined : obj.metadata?.ownerReferences;
    if (before === after) return;
    for (const r of before ?? []) this.countDependent(r.uid, -1);
    for (const r of after ?? []) this.countDependent(r.uid, 1);
  }

  private countDependent(uid: string, delta: number): void {
    const n = (this.dependentCount.get(uid) ?? 0) + delta;
    if (n > 0) this.dependentCount.set(uid, n);
    else this.dependentCount.delete(uid);
  }

  /** Restores objects from a snapshot (bypassing validation; resourceVersions kept). */
  restore(items: { group: string; plural: string; object: KubeObject }[], rv: number): void {
    for (const it of items) {
      const s = this.storage.get(grKey(it.group, it.plural));
      if (!s) continue;
      const md = it.object.metadata ?? {};
      const key = objKey(s.t.namespaced ? md.namespace : undefined, md.name ?? '');
      const old = s.objects.get(key);
      s.objects.set(key, it.object);
      this.indexOwners(old === undefined ? 'ADDED' : 'MODIFIED', it.object, old);
    }
    this.rv = Math.max(this.rv, rv);
    this.compactedRv = this.rv;
  }

  /** Generates a name for a generateName prefix (exported for controllers). */
  static generateName(prefix: string): string {
    return `${prefix}${randomSuffix()}`;
  }
}

export { ApiError };
