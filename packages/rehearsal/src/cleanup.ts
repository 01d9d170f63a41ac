/**
 * The cleanup of `keelson rehearse --kubeconfig` (skipped with `--keep`): what the rehearsal put in an existing
 * cluster is deleted once every component has stopped. Recorded before the first write ({@link planCleanup}): the
 * namespaces, the objects of both releases that live outside the namespaces the rehearsal creates (cluster-scoped
 * kinds, or namespaced in a namespace that was already there), the Nodes of the virtual machines and their Leases.
 * An object that already existed is never deleted. Custom resources go with their CRDs, namespaced objects with their
 * namespaces, both deleted last (the server's garbage collector and namespace controller finish the work).
 */
import { isNotFound, type KubeClient } from '@keelson/kube';
import type { ReleasePayload } from '@keelson/release-payload';
import { exists, isOpenShiftGroup } from './target.js';

/** An object of a release or of the bootstrap, as it appears in a manifest. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** What {@link runCleanup} deletes, in order. */
export interface CleanupPlan {
  /** Object paths (cluster-scoped objects, objects in namespaces that pre-existed, Nodes, node Leases). */
  objects: string[];
  /** Namespaces created by the rehearsal (deleted after the objects). */
  namespaces: string[];
  /** CRDs the rehearsal installs (deleted last: their custom resources go with them). */
  crds: string[];
  /** Namespaces that existed before: the Events recorded there about the rehearsal's objects are deleted. */
  existingNamespaces: string[];
  /** The virtual machines' Node names. */
  nodes: string[];
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** Discovery: the plural and scope of `kind` in `apiVersion`; undefined when the server does not serve it (yet). */
export class Discovery {
  private readonly lists = new Map<string, Promise<ApiResource[] | undefined>>();
  constructor(private readonly client: KubeClient) {}

  async resource(apiVersion: string, kind: string): Promise<ApiResource | undefined> {
    let list = this.lists.get(apiVersion);
    if (list === undefined) {
      const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      list = this.client.request<{ resources?: ApiResource[] }>('GET', path).then(
        (r) => r.resources ?? [],
        (e: unknown) => {
          if (isNotFound(e)) return undefined;
          throw e;
        },
      );
      this.lists.set(apiVersion, list);
    }
    return (await list)?.find((r) => r.kind === kind && !r.name.includes('/'));
  }

  /** The object's path, or undefined when its kind is not served. */
  async path(o: ObjectRef): Promise<{ path: string; namespaced: boolean } | undefined> {
    const r = await this.resource(o.apiVersion, o.kind);
    if (r === undefined) return undefined;
    const base = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
    const ns = r.namespaced ? `/namespaces/${o.namespace ?? 'default'}` : '';
    return { path: `${base}${ns}/${r.name}/${o.name}`, namespaced: r.namespaced };
  }
}

/** The objects of a release's manifests (every manifest, whatever the cluster's filters: the CVO may apply any). */
export function releaseObjects(p: ReleasePayload): ObjectRef[] {
  return p.manifests.map((m) => ({
    apiVersion: m.gvk.group === '' ? m.gvk.version : `${m.gvk.group}/${m.gvk.version}`,
    kind: m.gvk.kind,
    ...(m.namespace !== undefined && m.namespace !== '' ? { namespace: m.namespace } : {}),
    name: m.name,
  }));
}

/** Named in a manifest as a plain object (`{apiVersion, kind, metadata}`). */
export function refOf(o: { apiVersion?: unknown; kind?: unknown; metadata?: unknown }): ObjectRef | undefined {
  const md = (o.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof md.name !== 'string') return undefined;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: md.name,
    ...(typeof md.namespace === 'string' && md.namespace !== '' ? { namespace: md.namespace } : {}),
  };
}

/**
 * Records, before anything is written, what the rehearsal will create: the objects it may write (`refs`: both
 * releases and the bootstrap) that do not exist yet, and the virtual machines' Nodes.
 */
export async function planCleanup(
  client: KubeClient,
  refs: readonly ObjectRef[],
  nodeNames: readonly string[],
): Promise<CleanupPlan> {
  const disc = new Discovery(client);
  const namespaces = await client.request<{ items?: { metadata?: { name?: string } }[] }>('GET', '/api/v1/namespaces');
  const before = new Set((namespaces.items ?? []).map((n) => n.metadata?.name ?? ''));
  const plan: CleanupPlan = {
    objects: [],
    namespaces: [],
    crds: [],
    existingNamespaces: [...before].sort(),
    nodes: [...nodeNames],
  };
  const created = new Set<string>();
  const add = (list: string[], v: string): void => {
    if (!created.has(v)) list.push(v);
    created.add(v);
  };
  for (const r of refs) {
    if (r.kind === 'Namespace' && r.apiVersion === 'v1') {
      if (!before.has(r.name)) add(plan.namespaces, r.name);
      continue;
    }
    if (r.namespace !== undefined && !before.has(r.namespace)) {
      add(plan.namespaces, r.namespace);
      continue;
    }
    if (r.kind === 'CustomResourceDefinition' && r.apiVersion.startsWith('apiextensions.k8s.io/')) {
      const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${r.name}`;
      if (!(await exists(client, path))) add(plan.crds, path);
      continue;
    }
    // not served yet: a custom resource of a CRD the rehearsal installs, deleted with it
    const at = await disc.path(r);
    if (at === undefined || (await exists(client, at.path))) continue;
    add(plan.objects, at.path);
  }
  for (const n of nodeNames) {
    add(plan.objects, `/api/v1/nodes/${n}`);
    add(plan.objects, `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${n}`);
  }
  return plan;
}

interface EventLike {
  metadata?: { name?: string; namespace?: string };
  involvedObject?: { kind?: string; name?: string; namespace?: string; apiVersion?: string };
}

/**
 * The Events recorded in namespaces that existed before about the rehearsal's objects (Node events and
 * MachineConfigPool events go to `default`, as upstream's recorders put events of cluster-scoped objects there): about
 * its Nodes, about OpenShift objects (its CRDs' resources), or about objects of the namespaces it created.
 */
async function eventsAbout(client: KubeClient, plan: CleanupPlan): Promise<string[]> {
  const nodes = new Set(plan.nodes);
  const created = new Set(plan.namespaces);
  const out: string[] = [];
  for (const ns of plan.existingNamespaces) {
    let list: { items?: EventLike[] };
    try {
      list = await client.request<{ items?: EventLike[] }>('GET', `/api/v1/namespaces/${ns}/events`);
    } catch {
      continue;
    }
    for (const e of list.items ?? []) {
      const o = e.involvedObject ?? {};
      const group = (o.apiVersion ?? '').includes('/') ? ((o.apiVersion ?? '').split('/')[0] ?? '') : '';
      if ((o.kind === 'Node' && nodes.has(o.name ?? '')) || isOpenShiftGroup(group) || created.has(o.namespace ?? ''))
        out.push(`/api/v1/namespaces/${ns}/events/${e.metadata?.name ?? ''}`);
    }
  }
  return out;
}

/** How long {@link runCleanup} waits for the namespaces and CRDs to finish terminating. */
export const CLEANUP_WAIT_MS = 60_000;

/**
 * Deletes what {@link planCleanup} recorded (404s ignored), then waits up to `waitMs` for the namespaces and CRDs to
 * be gone (so that a next rehearsal finds the cluster empty); returns what was deleted, what could not be, and what
 * was still terminating.
 */
export async function runCleanup(
  client: KubeClient,
  plan: CleanupPlan,
  waitMs = CLEANUP_WAIT_MS,
): Promise<{ deleted: number; failed: string[]; terminating: string[] }> {
  let deleted = 0;
  const failed: string[] = [];
  const del = async (path: string): Promise<void> => {
    try {
      await client.request('DELETE', path, {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
      });
      deleted++;
    } catch (e) {
      if (!isNotFound(e)) failed.push(`${path}: ${(e as Error).message}`);
    }
  };
  for (const p of plan.objects) await del(p);
  for (const p of await eventsAbout(client, plan)) await del(p);
  for (const ns of plan.namespaces) await del(`/api/v1/namespaces/${ns}`);
  for (const p of plan.crds) await del(p);
  const pending = [...plan.namespaces.map((ns) => `/api/v1/namespaces/${ns}`), ...plan.crds];
  const deadline = Date.now() + waitMs;
  let terminating = pending;
  for (;;) {
    const still: string[] = [];
    for (const p of terminating) if (await exists(client, p).catch(() => true)) still.push(p);
    terminating = still;
    if (terminating.length === 0 || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return { deleted, failed, terminating };
}
