import { KubeError } from './errors.js';
import type { KubeObject } from './types.js';

/** Computes index values for an object (e.g. its namespace, a label, an owner). */
export type IndexFunc<T extends KubeObject> = (obj: T) => string[];

/** `namespace/name` for namespaced objects, `name` otherwise (client-go `MetaNamespaceKeyFunc`). */
export function objectKey(obj: KubeObject): string {
  const name = obj.metadata.name;
  if (name === undefined || name === '')
    throw new KubeError('KUBE_INVALID_ARGUMENT', 'object has no metadata.name, cannot compute its cache key');
  const ns = obj.metadata.namespace;
  return ns !== undefined && ns !== '' ? `${ns}/${name}` : name;
}

/** Split a key made by {@link objectKey}. */
export function splitObjectKey(key: string): { namespace?: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1 && parts[0] !== '') return { name: parts[0] as string };
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '')
    return { namespace: parts[0] as string, name: parts[1] as string };
  throw new KubeError(
    'KUBE_INVALID_ARGUMENT',
    `unexpected cache key ${JSON.stringify(key)}: expected "name" or "namespace/name"`,
  );
}

/** Index objects by namespace (client-go `MetaNamespaceIndexFunc`). */
export const namespaceIndex = (obj: KubeObject): string[] => [obj.metadata.namespace ?? ''];

/** Index objects by the value of label `label` (objects without it are not indexed). */
export function labelIndex<T extends KubeObject>(label: string): IndexFunc<T> {
  return (obj) => {
    const v = obj.metadata.labels?.[label];
    return v === undefined ? [] : [v];
  };
}

/** Index objects by the uid of their controller owner reference. */
export const controllerOwnerIndex = (obj: KubeObject): string[] => {
  const o = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  return o === undefined ? [] : [o.uid];
};

/** A thread-safe-by-construction (single-threaded) object cache with secondary indexes (client-go `cache.Indexer`). */
export class Indexer<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Record<string, IndexFunc<T>> = {}) {
    for (const [name, fn] of Object.entries(indexers)) this.addIndexer(name, fn);
  }

  /** True when an index of that name exists. */
  hasIndexer(name: string): boolean {
    return this.indexers.has(name);
  }

  /** Add an index (allowed at any time; existing items are indexed). */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name)) throw new KubeError('KUBE_INVALID_ARGUMENT', `indexer "${name}" already exists`);
    this.indexers.set(name, fn);
    const idx = new Map<string, Set<string>>();
    this.indices.set(name, idx);
    for (const [key, obj] of this.items) this.indexOne(idx, fn, key, obj);
  }

  private indexOne(idx: Map<string, Set<string>>, fn: IndexFunc<T>, key: string, obj: T): void {
    for (const v of fn(obj)) {
      let s = idx.get(v);
      if (s === undefined) idx.set(v, (s = new Set()));
      s.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name) as Map<string, Set<string>>;
      for (const v of fn(obj)) {
        const s = idx.get(v);
        if (s === undefined) continue;
        s.delete(key);
        if (s.size === 0) idx.delete(v);
      }
    }
  }

  /** Insert or replace an object; returns the previous one. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old !== undefined) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers)
      this.indexOne(this.indices.get(name) as Map<string, Set<string>>, fn, key, obj);
    return old;
  }

  /** Remove by key; returns the removed object. */
  deleteKey(key: string): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /** Object by key (`namespace/name` or `name`). */
  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  /** Object by name (and namespace for namespaced kinds). */
  get(name: string, namespace?: string): T | undefined {
    return this.items.get(namespace !== undefined && namespace !== '' ? `${namespace}/${name}` : name);
  }

  /** All objects. */
  list(): T[] {
    return [...this.items.values()];
  }

  /** All keys. */
  listKeys(): string[] {
    return [...this.items.keys()];
  }

  /** Number of objects. */
  size(): number {
    return this.items.size;
  }

  /** Objects whose index `indexName` contains `value`. */
  byIndex(indexName: string, value: string): T[] {
    return this.indexKeys(indexName, value).map((k) => this.items.get(k) as T);
  }

  /** Keys of objects whose index `indexName` contains `value`. */
  indexKeys(indexName: string, value: string): string[] {
    const idx = this.indices.get(indexName);
    if (idx === undefined)
      throw new KubeError(
        'KUBE_INVALID_ARGUMENT',
        `no indexer named "${indexName}"; add it with addIndexer() or the informer's indexers option`,
      );
    return [...(idx.get(value) ?? [])];
  }

  /** Distinct values currently present in index `indexName`. */
  indexValues(indexName: string): string[] {
    const idx = this.indices.get(indexName);
    if (idx === undefined) throw new KubeError('KUBE_INVALID_ARGUMENT', `no indexer named "${indexName}"`);
    return [...idx.keys()];
  }
}
