/** REST mapping of manifest kinds through API discovery (`/api/v1`, `/apis/<group>/<version>`), cached per group-version. */
import { isNotFound, type KubeClient } from '@keelson/kube';
import { NoKindMatchError } from '../errors.js';

/** Where a kind is served. */
export interface RestMapping {
  plural: string;
  namespaced: boolean;
}

interface ApiResourceList {
  resources?: { name: string; kind: string; namespaced: boolean }[];
}

/** Resolves group/version/kind to the plural resource name and scope. */
export class RestMapper {
  private readonly cache = new Map<string, Map<string, RestMapping>>();
  private readonly pending = new Map<string, Promise<Map<string, RestMapping>>>();
  constructor(private readonly client: KubeClient) {}

  /** The mapping of a kind; rediscovers once on a miss (a CRD may just have been created); throws {@link NoKindMatchError}. */
  async resolve(group: string, version: string, kind: string): Promise<RestMapping> {
    const gv = group === '' ? version : `${group}/${version}`;
    let kinds = this.cache.get(gv);
    let found = kinds?.get(kind);
    if (found) return found;
    kinds = await this.discover(gv);
    found = kinds.get(kind);
    if (!found) throw new NoKindMatchError(`${gv}, Kind=${kind}`);
    return found;
  }

  /** Path of an object (or of the collection when `name` is empty). */
  static path(group: string, version: string, m: RestMapping, namespace: string, name: string): string {
    const base = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    const ns = m.namespaced && namespace !== '' ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${base}${ns}/${m.plural}${name !== '' ? `/${encodeURIComponent(name)}` : ''}`;
  }

  private discover(gv: string): Promise<Map<string, RestMapping>> {
    const inflight = this.pending.get(gv);
    if (inflight) return inflight;
    const p = (async () => {
      const path = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
      const kinds = new Map<string, RestMapping>();
      try {
        const list = await this.client.request<ApiResourceList>('GET', path);
        for (const r of list.resources ?? [])
          if (!r.name.includes('/')) kinds.set(r.kind, { plural: r.name, namespaced: r.namespaced });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      this.cache.set(gv, kinds);
      return kinds;
    })().finally(() => this.pending.delete(gv));
    this.pending.set(gv, p);
    return p;
  }
}
