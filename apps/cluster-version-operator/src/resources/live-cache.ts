/**
 * Watch-backed reads of the objects the CVO applies, so a reconcile pass does not GET every manifest again: the first
 * apply of a kind in a namespace starts an informer on that collection (list, then watch); once it has synced, the
 * applier reads the live object from its cache instead of a GET. Until then (and for kinds not cached) the applier
 * GETs as upstream's resourceapply does. A stale cache costs at most a conflict, which the applier answers with a GET
 * and one retry.
 */
import { defineResource, Informer, type KubeClient, type KubeObject, type Logger } from '@keelson/kube';
import type { JsonObject } from './merge-core.js';
import type { RestMapping } from './restmapper.js';

/**
 * Kinds never cached: cluster-wide lists of them are large in a real cluster (CRDs carry their whole schemas), and
 * Secrets are not kept in memory for a comparison.
 */
const UNCACHED = new Set(['apiextensions.k8s.io/CustomResourceDefinition', '/Secret']);

/** Informers per collection (`group/version/plural` and namespace), started on first use. */
export class LiveObjectCache {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private closed = false;

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
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
    if (this.closed || UNCACHED.has(`${group}/${kind}`)) return undefined;
    const ns = mapping.namespaced ? namespace : '';
    const key = `${group}/${version}/${mapping.plural}/${ns}`;
    let inf = this.informers.get(key);
    if (inf === undefined) {
      const d = defineResource<KubeObject>({
        group,
        version,
        kind,
        plural: mapping.plural,
        namespaced: mapping.namespaced,
      });
      inf = new Informer<KubeObject>(this.client, d, { logger: this.log, ...(ns !== '' ? { namespace: ns } : {}) });
      this.informers.set(key, inf);
      inf.start();
      return undefined;
    }
    if (!inf.hasSynced()) return undefined;
    const obj = inf.store.get(name, ns);
    return obj === undefined ? null : (JSON.parse(JSON.stringify(obj)) as JsonObject);
  }

  /** Number of collections watched. */
  size(): number {
    return this.informers.size;
  }

  /** Stops every informer. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.informers.values()];
    this.informers.clear();
    await Promise.all(all.map((i) => i.stop()));
  }
}
