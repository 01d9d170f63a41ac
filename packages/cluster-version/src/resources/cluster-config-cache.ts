/**
 * Watch-backed reads of Proxy and Infrastructure `cluster` for the builders' manifest changes (`modifyManifest`):
 * every Deployment or DaemonSet with `config.openshift.io/inject-proxy`, and the CVO's own Deployment, needs one of
 * them on every apply, and a reconciling pass would GET them each time. The first read starts an informer on the one
 * object (`fieldSelector=metadata.name=cluster`); once it has synced the reads come from its cache. Until then the
 * read falls back to {@link clusterConfigReader}'s GET. A GET that finds nothing (the object or its kind absent, e.g.
 * a cluster without the config CRDs, whose list the informer keeps retrying with backoff) is remembered until the
 * informer syncs, so an absent object is not read again on every apply; it is picked up within the informer's list
 * backoff (at most 30 s) once it exists.
 */
import {
  defineResource,
  Informer,
  type KubeClient,
  type KubeObject,
  type Logger,
  type ResourceDescriptor,
} from '@keelson/kube';
import { isObject, type JsonObject } from './merge-core.js';
import { clusterConfigReader, type ClusterConfigReader } from './modify.js';

type ConfigObject = KubeObject & { status?: JsonObject };

const PROXIES = defineResource<ConfigObject>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'Proxy',
  plural: 'proxies',
  namespaced: false,
});
const INFRASTRUCTURES = defineResource<ConfigObject>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'Infrastructure',
  plural: 'infrastructures',
  namespaced: false,
});

/** A {@link ClusterConfigReader} answering from watches of the two `cluster` objects once they have synced. */
export class WatchedClusterConfig implements ClusterConfigReader {
  private readonly fallback: ClusterConfigReader;
  private readonly informers = new Map<string, Informer<ConfigObject>>();
  /** Kinds whose fallback GET found nothing, while their informer has not synced. */
  private readonly absent = new Set<string>();
  private closed = false;

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
  ) {
    this.fallback = clusterConfigReader(client);
  }

  proxyStatus(
    signal?: AbortSignal,
  ): Promise<{ httpProxy?: string; httpsProxy?: string; noProxy?: string } | undefined> {
    const cached = this.lookup(PROXIES);
    if (cached === undefined) return this.read(PROXIES, () => this.fallback.proxyStatus(signal));
    return Promise.resolve(cached === null ? undefined : isObject(cached.status) ? { ...cached.status } : {});
  }

  apiServerInternalURI(signal?: AbortSignal): Promise<string | undefined> {
    const cached = this.lookup(INFRASTRUCTURES);
    if (cached === undefined) return this.read(INFRASTRUCTURES, () => this.fallback.apiServerInternalURI(signal));
    if (cached === null) return Promise.resolve(undefined);
    const uri = isObject(cached.status) ? cached.status['apiServerInternalURI'] : undefined;
    return Promise.resolve(typeof uri === 'string' ? uri : '');
  }

  /** The fallback GET; remembers an absent object until the informer syncs. */
  private async read<R>(
    d: ResourceDescriptor<ConfigObject>,
    get: () => Promise<R | undefined>,
  ): Promise<R | undefined> {
    if (this.absent.has(d.plural)) return undefined;
    const r = await get();
    if (r === undefined) this.absent.add(d.plural);
    return r;
  }

  /** Stops the watches. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.informers.values()];
    this.informers.clear();
    await Promise.all(all.map((i) => i.stop()));
  }

  /** The cached `cluster` object, `null` when the synced cache has none, `undefined` when it cannot answer yet. */
  private lookup(d: ResourceDescriptor<ConfigObject>): ConfigObject | null | undefined {
    if (this.closed) return undefined;
    let inf = this.informers.get(d.plural);
    if (inf === undefined) {
      inf = new Informer<ConfigObject>(this.client, d, {
        fieldSelector: 'metadata.name=cluster',
        logger: this.log,
      });
      this.informers.set(d.plural, inf);
      inf.start();
      return undefined;
    }
    if (!inf.hasSynced()) return undefined;
    this.absent.delete(d.plural);
    return inf.store.get('cluster', '') ?? null;
  }
}
