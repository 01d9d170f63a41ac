/** Discovery documents: `/apis` APIGroupList and the per group/version APIResourceList. */
import { createHash } from 'node:crypto';
import type { Cluster } from './cluster.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';
import { must } from './util.js';

/** The `/apis` APIGroupList document. */
export interface ApiGroupList {
  kind: string;
  apiVersion: string;
  groups: {
    name: string;
    versions: { groupVersion: string; version: string }[];
    preferredVersion: { groupVersion: string; version: string };
  }[];
}

/** `/apis` APIGroupList of the named groups the cluster serves, preferred version first. */
export function groupList(cluster: Cluster): ApiGroupList {
  const byGroup = new Map<string, string[]>();
  for (const t of cluster.allTypes()) {
    if (t.group === '') continue;
    const vs = byGroup.get(t.group) ?? [];
    if (!vs.includes(t.version)) vs.push(t.version);
    byGroup.set(t.group, vs);
  }
  const groups = [...byGroup.entries()].map(([name, vs]) => {
    const sorted = sortVersions(vs);
    const versions = sorted.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
    return { name, versions, preferredVersion: must(versions[0], `preferred version of group ${name}`) };
  });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** How a subresource is listed in discovery: its kind (group/version when not the parent's) and verbs. */
interface SubresourceEntry {
  group?: string;
  version?: string;
  kind?: string;
  verbs: string[];
}

const SUBRESOURCE_ENTRIES: Readonly<Record<string, SubresourceEntry>> = {
  status: { verbs: ['get', 'patch', 'update'] },
  scale: { group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
  eviction: { group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
  finalize: { verbs: ['update'] },
  token: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
};

function subresourceResource(t: ResourceType, sub: string): Record<string, unknown> | undefined {
  const e = SUBRESOURCE_ENTRIES[sub];
  if (!e) return undefined;
  const r: Record<string, unknown> = { name: `${t.plural}/${sub}`, singularName: '', namespaced: t.namespaced };
  if (e.group !== undefined) {
    r['group'] = e.group;
    r['version'] = e.version;
  }
  r['kind'] = e.kind ?? t.kind;
  r['verbs'] = e.verbs;
  return r;
}

function mainResource(cluster: Cluster, t: ResourceType): Record<string, unknown> {
  const r: Record<string, unknown> = {
    name: t.plural,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: t.verbs,
  };
  if (t.shortNames.length) r['shortNames'] = t.shortNames;
  if (t.categories.length) r['categories'] = t.categories;
  const hash = storageVersionHash(cluster, t);
  if (hash) r['storageVersionHash'] = hash;
  return r;
}

/** `/api/v1` or `/apis/<g>/<v>` APIResourceList, or null when the group/version is not served. */
export function resourceList(cluster: Cluster, group: string, version: string): KubeObject | null {
  const types = cluster.allTypes().filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return null;
  const resources: Record<string, unknown>[] = [];
  for (const t of types.sort((a, b) => a.plural.localeCompare(b.plural))) {
    resources.push(mainResource(cluster, t));
    for (const sub of t.subresources) {
      const r = subresourceResource(t, sub);
      if (r) resources.push(r);
    }
  }
  const out: KubeObject = { kind: 'APIResourceList', groupVersion: apiVersionOf(group, version), resources };
  if (group !== '') out.apiVersion = 'v1';
  return out;
}

/**
 * `storageVersionHash` of a resource: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>") of the
 * version objects are stored in (apiserver `discovery.StorageVersionHash`); none for kinds that are not stored.
 */
function storageVersionHash(cluster: Cluster, t: ResourceType): string | undefined {
  if (t.group === 'authorization.k8s.io' || t.group === 'authentication.k8s.io') return undefined;
  let gvk = `${t.group}/${t.version}/${t.kind}`;
  if (t.crd && !t.crd.storage) {
    const stored = cluster.allTypes().find((x) => x.group === t.group && x.plural === t.plural && x.crd?.storage);
    if (stored) gvk = `${stored.group}/${stored.version}/${stored.kind}`;
  }
  if (t.storedAs) {
    const st = cluster.allTypes().find((x) => x.group === t.storedAs?.group && x.plural === t.storedAs.plural);
    if (st) gvk = `${st.group}/${st.version}/${st.kind}`;
  }
  return createHash('sha256').update(gvk).digest().subarray(0, 8).toString('base64');
}

/** Sorts versions by Kubernetes version priority (GA > beta > alpha, higher first). */
export function sortVersions(vs: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  return [...vs].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (const i of [0, 1, 2] as const) if (ra[i] !== rb[i]) return rb[i] - ra[i];
    return a.localeCompare(b);
  });
}
