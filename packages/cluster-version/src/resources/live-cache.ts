/**
 * Watch-backed reads of the objects the CVO applies, so a reconcile pass does not GET every manifest again: the first
 * apply of a kind starts an informer on that resource across namespaces (list, then watch); once it has synced, the
 * applier reads the live object from its cache instead of a GET. Until then (and for kinds not cached) the applier
 * GETs as upstream's resourceapply does. A stale cache costs at most a conflict, which the applier answers with a GET
 * and one retry. At most {@link MAX_CACHED_KINDS} kinds are watched: each watch holds one of the client's sockets.
 */
import { defineResource, Informer, type KubeClient, type KubeObject, type Logger } from '@keelson/kube';
import type { JsonObject } from './merge-core.js';
import type { RestMapping } from './restmapper.js';

/**
 * Kinds never cached: Secrets are not kept in memory for a comparison. CustomResourceDefinitions are cached (every
 * pass would otherwise GET each of the payload's CRDs, schemas included); the cost is memory, every CRD of the
 * cluster.
 */
const UNCACHED = new Set(['/Secret']);

/**
 * Most kinds watched at once (the first ones applied; later kinds are read by GET). A watch keeps one of the client's
 * 64 sockets (`@keelson/kube`) for itself; this leaves most of them to requests.
 */
export const MAX_CACHED_KINDS = 16;

/** Informers per resource (`group/version/plural`), started on first use. */
export class LiveObjectCache {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  /**
   * Objects as this applier's own writes returned them, until the watch has delivered them (`resource ns/name`): two
   * manifests of one identity applied back to back must not merge into the copy before the first write (a 409, a
   * GET and a retry each time).
   */
  private readonly written = new Map<string, JsonObject>();
  private closed = false;

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
    /** false: never answers (every apply GETs its object, as upstream). */
    private readonly enabled = true,
  ) {}

  /**
   * The live object from the cache (a copy), `null` when the synced cache does not hold it, or `undefined` when the
   * cache cannot answer yet (not synced, kind not cached): then the caller GETs.
   */
  lookup(
    group: string,
    version: string,
    kind: string,
    mapping: RestMapping,
    namespace: string,
    name: string,
  ): JsonObject | null | undefined {
    if (!this.enabled || this.closed || UNCACHED.has(`${group}/${kind}`)) return undefined;
    const key = `${group}/${version}/${mapping.plural}`;
    let inf = this.informers.get(key);
    if (inf === undefined) {
      if (this.informers.size >= MAX_CACHED_KINDS) return undefined;
      const d = defineResource<KubeObject>({
        group,
        version,
        kind,
        plural: mapping.plural,
        namespaced: mapping.namespaced,
      });
      inf = new Informer<KubeObject>(this.client, d, { logger: this.log });
      this.informers.set(key, inf);
      inf.start();
      return undefined;
    }
    if (!inf.hasSynced()) return undefined;
    const obj = inf.store.get(name, mapping.namespaced ? namespace : '');
    const ownKey = `${key} ${mapping.namespaced ? namespace : ''}/${name}`;
    const own = this.written.get(ownKey);
    if (own !== undefined) {
      if (obj !== undefined && newer(own, { ...obj })) return structuredClone(own);
      this.written.delete(ownKey); // the watch caught up (or saw the object deleted)
    }
    return obj === undefined ? null : (JSON.parse(JSON.stringify(obj)) as JsonObject);
  }

  /** Records the object a create or update of this applier returned (see {@link written}). */
  remember(
    group: string,
    version: string,
    mapping: RestMapping,
    namespace: string,
    name: string,
    obj: JsonObject,
  ): void {
    const key = `${group}/${version}/${mapping.plural}`;
    if (this.closed || !this.informers.has(key)) return;
    this.written.set(`${key} ${mapping.namespaced ? namespace : ''}/${name}`, obj);
  }

  /** Number of resources watched. */
  size(): number {
    return this.informers.size;
  }

  /** Stops every informer. */
  async close(): Promise<void> {
    this.closed = true;
    this.written.clear();
    const all = [...this.informers.values()];
    this.informers.clear();
    await Promise.all(all.map((i) => i.stop()));
  }
}

/**
 * Whether `a` is a later version of the object than `b`: same uid and a larger resourceVersion, compared as numbers
 * when both are (as this server's and etcd's are; otherwise the watch's copy is taken).
 */
function newer(a: JsonObject, b: JsonObject): boolean {
  const ma = (a['metadata'] ?? {}) as { uid?: string; resourceVersion?: string };
  const mb = (b['metadata'] ?? {}) as { uid?: string; resourceVersion?: string };
  if (ma.uid !== mb.uid) return false;
  const ra = Number(ma.resourceVersion ?? '');
  const rb = Number(mb.resourceVersion ?? '');
  return Number.isSafeInteger(ra) && Number.isSafeInteger(rb) && ra > rb;
}
