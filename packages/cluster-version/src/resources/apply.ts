/**
 * Create-or-update of one manifest (upstream `resourceapply.Apply<Kind>` + `resourcebuilder`): read the live object
 * (from a watch once one has synced, else GET; in Initializing, without a synced watch, create first and read only on
 * AlreadyExists); create when absent;
 * honour `release.openshift.io/create-only`; merge with the kind's builder and update only when the merge changed
 * something; `release.openshift.io/delete`; post-apply health checks outside Initializing.
 */
import { isAlreadyExists, isConflict, isNotFound, type KubeClient, type Logger } from '@keelson/kube';
import { WatchedClusterConfig } from './cluster-config-cache.js';
import { LiveObjectCache } from './live-cache.js';
import { deepEqual, isObject, type JsonObject } from './merge-core.js';
import { stripUndefined } from './merge.js';
import { clusterConfigReader, modifyManifest, type ClusterConfigReader } from './modify.js';
import {
  builderFor,
  type ApplyAction,
  type ApplyMode,
  type ApplyResult,
  type BuilderContext,
  type ClusterOperatorSource,
} from './registry.js';
import { RestMapper, type RestMapping } from './restmapper.js';

export type { ApplyAction, ApplyMode, ApplyResult } from './registry.js';

/** Annotation: create only, never update. */
export const CREATE_ONLY_ANNOTATION = 'release.openshift.io/create-only';
/** Annotation: delete the object instead of applying it. */
export const DELETE_ANNOTATION = 'release.openshift.io/delete';

/** The owner reference added to applied objects. */
export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/** Counts of API writes, for metrics and benchmarks. */
export interface WriteCounts {
  creates: number;
  updates: number;
  deletes: number;
}

function splitApiVersion(apiVersion: unknown): { group: string; version: string } {
  const s = typeof apiVersion === 'string' ? apiVersion : '';
  const i = s.indexOf('/');
  return i < 0 ? { group: '', version: s } : { group: s.slice(0, i), version: s.slice(i + 1) };
}

/** `release.openshift.io/delete` value: true, false (absent), or an invalid value error. */
export function deleteRequested(annotations: Record<string, unknown> | undefined): boolean {
  const v = annotations?.[DELETE_ANNOTATION];
  if (v === undefined) return false;
  if (v === 'true') return true;
  throw new Error(`invalid delete annotation ${JSON.stringify(DELETE_ANNOTATION)} value: ${JSON.stringify(v)}`);
}

/** Adds the ClusterVersion owner reference unless the manifest carries non-ClusterVersion owners (upstream lib/resourcebuilder). */
export function withOwner(obj: JsonObject, owner: OwnerRef | undefined, createOnly: boolean): JsonObject {
  if (!owner) return obj;
  const meta = isObject(obj['metadata']) ? { ...obj['metadata'] } : {};
  const existing = Array.isArray(meta['ownerReferences']) ? (meta['ownerReferences'] as JsonObject[]) : [];
  if (existing.some((o) => o['kind'] !== 'ClusterVersion')) return obj;
  meta['ownerReferences'] = [{ ...owner, ...(createOnly ? {} : { controller: true }) }];
  return { ...obj, metadata: meta };
}

/** What {@link ResourceApplier.apply} resolved about one manifest. */
interface ApplyTarget {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  mapping: RestMapping;
  path: string;
  annotations: Record<string, unknown> | undefined;
  mode: ApplyMode;
}

/** Options of a {@link ResourceApplier}. */
export interface ResourceApplierOptions {
  /** Read applied objects from watches instead of a GET per apply (default true). */
  liveObjectCache?: boolean;
  /** The ClusterOperator cache and callbacks of the ClusterOperator builder (without it, the builder GETs). */
  clusterOperators?: ClusterOperatorSource;
}

/** Applies manifests to the cluster through one {@link KubeClient}. */
export class ResourceApplier {
  private readonly clusterOperators: ClusterOperatorSource | undefined;
  readonly mapper: RestMapper;
  /** API writes issued so far. */
  readonly writes: WriteCounts = { creates: 0, updates: 0, deletes: 0 };
  /** Deletions requested and not yet observed complete (`kind ns/name`). */
  readonly deletesInProgress = new Set<string>();
  /** Live objects read from watches instead of a GET per apply (see {@link LiveObjectCache}). */
  readonly cache: LiveObjectCache;
  /** Proxy / Infrastructure `cluster` for the builders' manifest changes (and the updates poller's egress). */
  readonly clusterConfig: ClusterConfigReader & { close?: () => Promise<void> };
  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
    opts: ResourceApplierOptions = {},
  ) {
    this.clusterOperators = opts.clusterOperators;
    this.mapper = new RestMapper(client);
    const watched = opts.liveObjectCache !== false;
    this.clusterConfig = watched ? new WatchedClusterConfig(client, log) : clusterConfigReader(client);
    this.cache = new LiveObjectCache(client, log, watched);
  }

  /** Stops the watches of the live-object cache and of the cluster configuration. */
  async close(): Promise<void> {
    await Promise.all([this.cache.close(), this.clusterConfig.close?.()]);
  }

  /**
   * Applies one object with its kind's builder; `owner` is added as upstream's modifier does (see {@link withOwner}),
   * except for builders with their own procedure. Throws API errors and health-check errors.
   */
  async apply(manifest: JsonObject, mode: ApplyMode, signal?: AbortSignal, owner?: OwnerRef): Promise<ApplyResult> {
    const { group, version } = splitApiVersion(manifest['apiVersion']);
    const kind = String(manifest['kind']);
    const meta = isObject(manifest['metadata']) ? manifest['metadata'] : {};
    const name = String(meta['name']);
    const namespace = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
    const annotations = isObject(meta['annotations']) ? meta['annotations'] : undefined;
    const mapping = await this.mapper.resolve(group, version, kind);
    const path = RestMapper.path(group, version, mapping, namespace, name);
    const id = `${kind} ${namespace === '' ? name : `${namespace}/${name}`}`;
    // a builder with its own procedure handles the whole manifest (upstream's ClusterOperator builder has no
    // resourcedelete step)
    const builder = builderFor(group, version, kind);
    if (builder.run) {
      const collection = RestMapper.path(group, version, mapping, namespace, '');
      return builder.run(manifest, this.builderContext(path, collection, mode, signal));
    }
    if (deleteRequested(annotations))
      return this.applyDelete(path, id, mode, signal, () =>
        this.cache.lookup(group, version, kind, mapping, namespace, name),
      );
    const createOnlyValue = annotations?.[CREATE_ONLY_ANNOTATION];
    const createOnly = typeof createOnlyValue === 'string' && createOnlyValue.toLowerCase() === 'true';
    manifest = await modifyManifest(withOwner(manifest, owner, createOnly), group, kind, this.clusterConfig, signal);

    const cached = this.cache.lookup(group, version, kind, mapping, namespace, name);
    // Initializing a cluster creates nearly every object: when no watch can answer yet, create it straight away (one
    // request instead of a GET and a create); an object that exists already answers AlreadyExists, then it is read
    // and merged as usual
    const optimistic = cached === undefined && mode === 'initializing';
    try {
      return await this.applyTo(
        cached === undefined && !optimistic ? await this.getLive(path, signal) : (cached ?? undefined),
        manifest,
        { group, version, kind, namespace, name, mapping, path, annotations, mode },
        signal,
      );
    } catch (e) {
      // the cache was behind the server (an object just created, or changed since), or the optimistic create found
      // the object: read it and apply once more
      if ((cached === undefined && !optimistic) || !(isConflict(e) || isAlreadyExists(e))) throw e;
      return this.applyTo(
        await this.getLive(path, signal),
        manifest,
        { group, version, kind, namespace, name, mapping, path, annotations, mode },
        signal,
      );
    }
  }

  /** What a builder with its own procedure may do with the object at `path`. */
  private builderContext(
    path: string,
    collection: string,
    mode: ApplyMode,
    signal: AbortSignal | undefined,
  ): BuilderContext {
    const opts = signal ? { signal } : {};
    return {
      mode,
      signal,
      log: this.log,
      clusterOperators: this.clusterOperators,
      get: () => this.getLive(path, signal),
      create: async (obj) => {
        const created = await this.client.request<JsonObject>('POST', collection, { body: obj, ...opts });
        this.writes.creates++;
        return created;
      },
      update: async (obj) => {
        const updated = await this.client.request<JsonObject>('PUT', path, { body: obj, ...opts });
        this.writes.updates++;
        return updated;
      },
      updateStatus: async (obj) => {
        const updated = await this.client.request<JsonObject>('PUT', `${path}/status`, { body: obj, ...opts });
        this.writes.updates++;
        return updated;
      },
    };
  }

  private async getLive(path: string, signal?: AbortSignal): Promise<JsonObject | undefined> {
    try {
      return await this.client.request<JsonObject>('GET', path, signal ? { signal } : {});
    } catch (e) {
      if (!isNotFound(e)) throw e;
      return undefined;
    }
  }

  /** Create when absent; else merge into `live` and update only when the merge changed something. */
  private async applyTo(
    live: JsonObject | undefined,
    manifest: JsonObject,
    t: ApplyTarget,
    signal?: AbortSignal,
  ): Promise<{ action: ApplyAction; object: JsonObject | undefined }> {
    const { group, version, kind, namespace, name, mapping, path, annotations, mode } = t;
    const builder = builderFor(group, version, kind);
    if (live === undefined) {
      const collection = RestMapper.path(group, version, mapping, namespace, '');
      const created = await this.client.request<JsonObject>('POST', collection, {
        body: manifest,
        ...(signal ? { signal } : {}),
      });
      this.writes.creates++;
      this.cache.remember(group, version, mapping, namespace, name, created);
      return { action: 'created', object: this.checked(builder.check, created, mode) };
    }
    const createOnly = annotations?.[CREATE_ONLY_ANNOTATION];
    if (typeof createOnly === 'string' && createOnly.toLowerCase() === 'true')
      return { action: 'unchanged', object: live };
    const merged = stripUndefined(builder.merge(live, manifest));
    if (deepEqual(merged, live)) return { action: 'unchanged', object: this.checked(builder.check, live, mode) };
    if (mode === 'reconciling')
      this.log.info(`Updating ${kind} ${namespace === '' ? name : `${namespace}/${name}`} due to diff`, {
        kind,
        namespace,
        name,
      });
    const updated = await this.client.request<JsonObject>('PUT', path, { body: merged, ...(signal ? { signal } : {}) });
    this.writes.updates++;
    this.cache.remember(group, version, mapping, namespace, name, updated);
    return { action: 'updated', object: this.checked(builder.check, updated, mode) };
  }

  private checked(check: ((o: JsonObject) => Error | null) | undefined, obj: JsonObject, mode: ApplyMode): JsonObject {
    if (check && mode !== 'initializing') {
      const err = check(obj);
      if (err) throw err;
    }
    return obj;
  }

  /** Deletion (upstream lib/resourcedelete): delete requests only in Updating; other modes observe. */
  private async applyDelete(
    path: string,
    id: string,
    mode: ApplyMode,
    signal: AbortSignal | undefined,
    cached: () => JsonObject | null | undefined,
  ): Promise<{ action: ApplyAction; object: undefined }> {
    // upstream lib/resourcedelete GETs the object on every pass; the watched cache answers the same question without a
    // request (a pass over a payload that deletes objects would otherwise GET each of them every time)
    const fromCache = cached();
    let live: JsonObject | undefined = fromCache ?? undefined;
    if (fromCache === undefined)
      try {
        live = await this.client.request<JsonObject>('GET', path, signal ? { signal } : {});
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    if (live === undefined) {
      if (this.deletesInProgress.delete(id)) this.log.info(`Delete of ${id} completed`);
      return { action: 'absent', object: undefined };
    }
    if (mode !== 'updating') return { action: 'delete-pending', object: undefined };
    const meta = isObject(live['metadata']) ? live['metadata'] : {};
    if (meta['deletionTimestamp'] === undefined) {
      try {
        await this.client.request('DELETE', path, {
          body: { propagationPolicy: 'Background' },
          ...(signal ? { signal } : {}),
        });
      } catch (e) {
        // the cache was behind: the object is gone already
        if (fromCache === undefined || !isNotFound(e)) throw e;
        if (this.deletesInProgress.delete(id)) this.log.info(`Delete of ${id} completed`);
        return { action: 'absent', object: undefined };
      }
      this.writes.deletes++;
      this.log.info(`Delete requested for ${id}`);
    }
    this.deletesInProgress.add(id);
    return { action: 'deleted', object: undefined };
  }
}
