/**
 * The small controller set that makes the sandbox behave like a cluster: garbage collection of dependents,
 * namespace deletion, PodDisruptionBudget status, and an optional pod simulator (ReplicaSets, Deployments,
 * DaemonSets and "ready" pods on nodes).
 */
import type { ChangeEvent, Cluster } from './cluster.js';
import { matchLabelRequirements } from '@keelson/api';
import { conditions, getSpec, podReady, setStatus, tolerate, typeOf } from './controller-util.js';
import { requirementsFromSelector } from './selectors.js';
import type { JsonObject, KubeObject, OwnerReference, ResourceType } from './types.js';
import { clone, isObject } from './util.js';
import { WorkloadControllers, type WorkloadSyncCounts } from './workloads.js';

export { nodeReady, podReady } from './controller-util.js';
export { nodeChangeMatters, nodeEligibilityChanged, type WorkloadSyncCounts } from './workloads.js';

function ownerUids(refs: readonly OwnerReference[] | undefined): string {
  return (refs ?? []).map((r) => r.uid).join(',');
}

/**
 * Whether a change can give the garbage collector work (pure): a deletion (dependents may be left without their
 * owner), a new object with owners (its owner may be gone already), a change of an object's owners, or an object
 * being deleted with the orphan / foreground finalizers. A status write of an owned pod or ReplicaSet is none of
 * these: running the collector over every object on each such write made it quadratic in cluster size.
 */
export function gcRelevant(
  e: Pick<ChangeEvent, 'type' | 'previous'>,
  owners: readonly OwnerReference[] | undefined,
  finalizers: readonly string[],
): boolean {
  if (e.type === 'DELETED') return true;
  if (finalizers.includes('orphan') || finalizers.includes('foregroundDeletion')) return true;
  if ((owners?.length ?? 0) === 0)
    return e.type === 'MODIFIED' && (e.previous?.metadata?.ownerReferences?.length ?? 0) > 0;
  if (e.type === 'ADDED' || e.previous === undefined) return true;
  return ownerUids(owners) !== ownerUids(e.previous.metadata?.ownerReferences);
}

/**
 * Least time between two passes of the workload controllers (Deployments, ReplicaSets, DaemonSets, pods; see
 * workloads.ts): a pass syncs what changed since the last one, and at thousands of nodes one pass per event-loop turn
 * still cost more than the changes it reacted to. Changes in between coalesce into the next pass (the controllers are level-triggered, as
 * kube-controller-manager's work queues coalesce a key's events while it is being synced).
 */
export const WORKLOAD_PASS_INTERVAL_MS = 50;

/** Runs controllers on cluster changes, coalescing bursts into one pass. */
export class Controllers {
  private scheduled = false;
  private stopped = false;
  private unsubscribe: () => void;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Whether pods are simulated for workloads (turning it on syncs every workload on the next pass). */
  get simulatePods(): boolean {
    return this.podsSimulated;
  }
  set simulatePods(on: boolean) {
    if (on && !this.podsSimulated) this.workloads.markAll();
    this.podsSimulated = on;
  }
  private podsSimulated: boolean;
  private readonly workloads: WorkloadControllers;
  private readonly seeded = new Set<string>();
  /** CA bundle published as kube-root-ca.crt in every namespace. */
  caBundle = '';
  /** Errors raised by controller passes (surfaced for debugging). */
  readonly errors: unknown[] = [];

  constructor(
    private readonly c: Cluster,
    opts: { simulatePods?: boolean } = {},
  ) {
    this.workloads = new WorkloadControllers(c);
    this.podsSimulated = opts.simulatePods ?? false;
    this.unsubscribe = c.onChange((e) => {
      this.onChange(e);
    });
  }

  /** Objects each workload controller synced so far. */
  get workloadSyncs(): Readonly<WorkloadSyncCounts> {
    return this.workloads.stats;
  }

  /** Stops reacting to changes. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    for (const t of this.timers) clearTimeout(t);
  }

  private dirty = { gc: false, ns: false, workloads: false, pdb: false };
  /**
   * Incremental garbage collection: objects written with ownerReferences (and nothing being deleted) only need their
   * own owners checked, through `uids` (uid → where the object lives), kept current from the change events once a
   * full pass has built it. Deletions and orphan/foreground finalizers still take a full pass.
   */
  private readonly gcPending = new Map<string, { gr: string; ns: string | undefined; name: string }>();
  private readonly uids = new Map<string, { gr: string; ns: string | undefined; name: string }>();
  private uidsBuilt = false;

  private onChange(e: ChangeEvent): void {
    const md = e.object.metadata ?? {};
    const fins = md.finalizers ?? [];
    let any = false;
    this.indexUid(e);
    this.trackForeground(e);
    const owned = (md.ownerReferences?.length ?? 0) > 0;
    if (
      // a deletion leaves work only when something names the deleted object as its owner (an index lookup), or when
      // it was the dependent of an owner waiting in the foreground for its dependents to go
      (e.type === 'DELETED' && (this.c.hasDependents(md.uid ?? '') || this.awaitsForeground(md.ownerReferences))) ||
      fins.includes('orphan') ||
      fins.includes('foregroundDeletion') ||
      (owned && md.deletionTimestamp !== undefined)
    )
      this.dirty.gc = any = true;
    else if (owned && gcRelevant(e, md.ownerReferences, fins)) {
      // a new object or new owners: check them (an unchanged owner list was checked when it was written)
      this.gcPending.set(`${e.gr}|${md.namespace ?? ''}|${md.name ?? ''}`, {
        gr: e.gr,
        ns: md.namespace,
        name: md.name ?? '',
      });
      any = true;
    }
    if (
      e.gr === '/namespaces' ||
      (md.deletionTimestamp === undefined && this.terminating.size > 0 && e.type === 'DELETED')
    )
      this.dirty.ns = any = true;
    if (this.terminating.size > 0 && md.namespace && this.terminating.has(md.namespace)) this.dirty.ns = any = true;
    if (this.simulatePods && this.workloads.observe(e)) this.dirty.workloads = any = true;
    if (e.gr === '/pods' || e.gr === 'policy/poddisruptionbudgets') this.dirty.pdb = any = true;
    if (any) this.schedule();
  }

  /** Uids of objects being deleted in the foreground (they wait for their dependents). */
  private readonly foreground = new Set<string>();

  private trackForeground(e: ChangeEvent): void {
    const md = e.object.metadata ?? {};
    if (md.uid === undefined) return;
    if (e.type !== 'DELETED' && md.deletionTimestamp && (md.finalizers ?? []).includes('foregroundDeletion'))
      this.foreground.add(md.uid);
    else this.foreground.delete(md.uid);
  }

  private awaitsForeground(owners: readonly OwnerReference[] | undefined): boolean {
    return this.foreground.size > 0 && (owners ?? []).some((r) => this.foreground.has(r.uid));
  }

  private indexUid(e: ChangeEvent): void {
    const md = e.object.metadata ?? {};
    if (!this.uidsBuilt || md.uid === undefined) return;
    if (e.type === 'DELETED') this.uids.delete(md.uid);
    else this.uids.set(md.uid, { gr: e.gr, ns: md.namespace, name: md.name ?? '' });
  }

  /** Namespaces being deleted. */
  private readonly terminating = new Set<string>();

  /** Schedules a pass soon. */
  schedule(delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) {
      const tm = setTimeout(() => {
        this.timers.delete(tm);
        this.schedule();
      }, delayMs);
      this.timers.add(tm);
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.stopped) return;
      try {
        this.pass();
      } catch (e) {
        this.errors.push(e);
      }
    });
  }

  /** One reconcile pass over everything (level-triggered). */
  pass(): void {
    const d = this.dirty;
    this.dirty = { gc: false, ns: false, workloads: false, pdb: false };
    if (d.gc || (this.gcPending.size > 0 && !this.uidsBuilt)) this.garbageCollect();
    else if (this.gcPending.size > 0) this.collectPending();
    if (d.ns) this.namespaces();
    if (this.simulatePods && d.workloads && !this.workloadsDue()) this.dirty.workloads = true;
    else if (this.simulatePods && d.workloads) {
      this.lastWorkloadPass = Date.now();
      this.workloads.run();
    }
    if (d.pdb) this.disruptionBudgets();
  }

  /** No pass is scheduled or deferred. */
  idle(): boolean {
    return !this.scheduled && !this.workloadTimer;
  }

  private lastWorkloadPass = 0;
  private workloadTimer = false;

  /** Whether the workload controllers may run now; if not, one pass is scheduled for when they may. */
  private workloadsDue(): boolean {
    const wait = this.lastWorkloadPass + WORKLOAD_PASS_INTERVAL_MS - Date.now();
    if (wait <= 0) return true;
    if (!this.workloadTimer) {
      this.workloadTimer = true;
      const tm = setTimeout(() => {
        this.timers.delete(tm);
        this.workloadTimer = false;
        this.schedule();
      }, wait);
      this.timers.add(tm);
    }
    return false;
  }

  /** Marks every controller dirty and runs a pass soon (after start or a snapshot restore). */
  kick(): void {
    this.dirty = { gc: true, ns: true, workloads: true, pdb: true };
    this.workloads.markAll();
    this.schedule();
  }

  /**
   * The objects written with ownerReferences since the last pass (no deletion involved): when every owner they name is
   * stored (looked up by uid) and not being deleted in the foreground there is nothing to collect; otherwise (or when
   * in doubt) a full pass decides.
   */
  private collectPending(): void {
    const c = this.c;
    const pending = [...this.gcPending.values()];
    this.gcPending.clear();
    const types = new Map(c.allTypes().map((t) => [`${t.group}/${t.plural}`, t]));
    const find = (at: { gr: string; ns: string | undefined; name: string }): KubeObject | undefined => {
      const t = types.get(at.gr);
      return t ? c.peek(t, t.namespaced ? at.ns : undefined, at.name) : undefined;
    };
    const ownerStands = (uid: string): boolean => {
      const at = this.uids.get(uid);
      const om = at ? find(at)?.metadata : undefined;
      return om?.uid === uid && !(om.deletionTimestamp && (om.finalizers ?? []).includes('foregroundDeletion'));
    };
    for (const p of pending) {
      const md = find(p)?.metadata;
      if (!md || md.deletionTimestamp) continue;
      if (!(md.ownerReferences ?? []).every((r) => ownerStands(r.uid))) {
        this.garbageCollect();
        return;
      }
    }
  }

  /** Deletes a dependent whose owners are all gone (or being deleted in the foreground), or drops dangling references. */
  private collectDependent(t: ResourceType, obj: KubeObject, owner: (uid: string) => KubeObject | undefined): void {
    const c = this.c;
    const md = obj.metadata ?? {};
    const refs = md.ownerReferences ?? [];
    const live = refs.filter((r) => {
      const om = owner(r.uid)?.metadata;
      if (!om) return false;
      // an owner being deleted in the foreground takes its dependents with it
      return !(om.deletionTimestamp && (om.finalizers ?? []).includes('foregroundDeletion'));
    });
    const dangling = refs.filter((r) => !owner(r.uid));
    if (live.length === 0) {
      tolerate(() => c.delete(t, md.namespace, md.name ?? '', { propagationPolicy: 'Background' }));
    } else if (dangling.length) {
      tolerate(() => {
        const next = clone(obj);
        (next.metadata ??= {}).ownerReferences = refs.filter((r) => owner(r.uid));
        c.applyUpdate(t, obj, next, { fieldManager: 'garbage-collector' });
      });
    }
  }

  private garbageCollect(): void {
    const c = this.c;
    this.gcPending.clear();
    const uids = new Map<string, { t: ResourceType; obj: KubeObject }>();
    const all: { t: ResourceType; obj: KubeObject }[] = [];
    this.uids.clear();
    for (const e of c.everything()) {
      all.push(e);
      const md = e.obj.metadata;
      if (md?.uid) {
        uids.set(md.uid, e);
        this.uids.set(md.uid, { gr: `${e.t.group}/${e.t.plural}`, ns: md.namespace, name: md.name ?? '' });
      }
    }
    this.uidsBuilt = true;
    // owner uid -> dependents, built once per pass (a filter over everything per owner was quadratic)
    const dependents = new Map<string, { t: ResourceType; obj: KubeObject }[]>();
    for (const e of all) {
      for (const r of e.obj.metadata?.ownerReferences ?? []) {
        const list = dependents.get(r.uid);
        if (list === undefined) dependents.set(r.uid, [e]);
        else if (!list.includes(e)) list.push(e);
      }
    }
    const dependentsOf = (uid: string): { t: ResourceType; obj: KubeObject }[] => dependents.get(uid) ?? [];
    for (const { t, obj } of all) {
      const md = obj.metadata ?? {};
      const refs = md.ownerReferences ?? [];
      if (refs.length && !md.deletionTimestamp) this.collectDependent(t, obj, (uid) => uids.get(uid)?.obj);
      if (md.deletionTimestamp) {
        const fins = md.finalizers ?? [];
        if (fins.includes('orphan')) {
          for (const d of dependentsOf(md.uid ?? '')) {
            tolerate(() => {
              const next = clone(d.obj);
              (next.metadata ??= {}).ownerReferences = (d.obj.metadata?.ownerReferences ?? []).filter(
                (r: OwnerReference) => r.uid !== md.uid,
              );
              if (next.metadata?.ownerReferences?.length === 0) delete next.metadata.ownerReferences;
              c.applyUpdate(d.t, d.obj, next, { fieldManager: 'garbage-collector' });
            });
          }
          removeFinalizer(c, t, obj, 'orphan');
        } else if (fins.includes('foregroundDeletion')) {
          const deps = dependentsOf(md.uid ?? '');
          if (deps.length === 0) removeFinalizer(c, t, obj, 'foregroundDeletion');
          else
            for (const d of deps)
              if (!d.obj.metadata?.deletionTimestamp)
                tolerate(() =>
                  c.delete(d.t, d.obj.metadata?.namespace, d.obj.metadata?.name ?? '', {
                    propagationPolicy: 'Foreground',
                  }),
                );
        }
      }
    }
  }

  private namespaces(): void {
    const c = this.c;
    const nsType = typeOf(c, '', 'namespaces');
    const cmType = typeOf(c, '', 'configmaps');
    const saType = typeOf(c, '', 'serviceaccounts');
    this.terminating.clear();
    for (const ns of c.peekAll(nsType))
      if (ns.metadata?.deletionTimestamp) this.terminating.add(ns.metadata.name ?? '');
    for (const ns of c.peekAll(nsType)) {
      if (!ns.metadata?.deletionTimestamp) {
        // what the root-ca publisher and the serviceaccounts controller create in every namespace
        const name = ns.metadata?.name ?? '';
        if (!this.seeded.has(ns.metadata?.uid ?? '')) {
          this.seeded.add(ns.metadata?.uid ?? '');
          if (!c.peek(saType, name, 'default'))
            tolerate(() =>
              c.create(saType, name, { metadata: { name: 'default' } }, { fieldManager: 'kube-controller-manager' }),
            );
          if (!c.peek(cmType, name, 'kube-root-ca.crt'))
            tolerate(() =>
              c.create(
                cmType,
                name,
                {
                  metadata: {
                    name: 'kube-root-ca.crt',
                    annotations: {
                      'kubernetes.io/description':
                        'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
                    },
                  },
                  data: { 'ca.crt': this.caBundle },
                },
                { fieldManager: 'kube-controller-manager' },
              ),
            );
        }
        continue;
      }
      const name = ns.metadata.name ?? '';
      let remaining = 0;
      for (const { t, obj } of [...c.everything()]) {
        if (!t.namespaced || obj.metadata?.namespace !== name) continue;
        remaining++;
        if (!obj.metadata.deletionTimestamp)
          tolerate(() => c.delete(t, name, obj.metadata?.name ?? '', { propagationPolicy: 'Background' }));
      }
      if (remaining > 0) continue;
      const spec = isObject(ns['spec']) ? ns['spec'] : {};
      const specFins = Array.isArray(spec['finalizers']) ? (spec['finalizers'] as string[]) : [];
      if (specFins.includes('kubernetes')) {
        tolerate(() => {
          const next = clone(ns);
          (next['spec'] as JsonObject)['finalizers'] = specFins.filter((f) => f !== 'kubernetes');
          c.applyUpdate(nsType, ns, next, { fieldManager: 'namespace-controller', subresource: 'finalize' });
        });
        continue;
      }
      if ((ns.metadata.finalizers ?? []).length === 0)
        tolerate(() => {
          c.removeNow(nsType, undefined, name);
        });
    }
  }

  private disruptionBudgets(): void {
    const c = this.c;
    const pdbType = typeOf(c, 'policy', 'poddisruptionbudgets');
    for (const pdb of c.peekAll(pdbType)) {
      const s = computePdb(c, pdb);
      const status: JsonObject = {
        observedGeneration: pdb.metadata?.generation ?? 1,
        disruptionsAllowed: s.allowed,
        currentHealthy: s.current,
        desiredHealthy: s.desired,
        expectedPods: s.expected,
        conditions: conditions(pdb, [
          s.allowed > 0
            ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' }
            : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '' },
        ]),
      };
      setStatus(c, pdbType, pdb, status);
    }
  }
}

/** PDB arithmetic shared by the eviction subresource and the status controller. */
export function computePdb(
  c: Cluster,
  pdb: KubeObject,
): { expected: number; current: number; desired: number; allowed: number } {
  const podType = typeOf(c, '', 'pods');
  const spec = getSpec(pdb);
  const reqs = requirementsFromSelector(spec['selector']) ?? [];
  const pods = c
    .peekAll(podType, pdb.metadata?.namespace)
    .filter(
      (p) => reqs.length > 0 && matchLabelRequirements(reqs, p.metadata?.labels) && !p.metadata?.deletionTimestamp,
    );
  const expected = pods.length;
  const current = pods.filter(podReady).length;
  let desired: number;
  const resolve = (v: unknown): number =>
    typeof v === 'string' && v.endsWith('%') ? Math.ceil((Number(v.slice(0, -1)) / 100) * expected) : Number(v);
  if (spec['minAvailable'] !== undefined) desired = resolve(spec['minAvailable']);
  else if (spec['maxUnavailable'] !== undefined) desired = Math.max(0, expected - resolve(spec['maxUnavailable']));
  else desired = expected;
  return { expected, current, desired, allowed: Math.max(0, current - desired) };
}

function removeFinalizer(c: Cluster, t: ResourceType, obj: KubeObject, f: string): void {
  tolerate(() => {
    const cur = c.peek(t, obj.metadata?.namespace, obj.metadata?.name ?? '');
    if (!cur) return;
    const next = clone(cur);
    (next.metadata ??= {}).finalizers = (next.metadata?.finalizers ?? []).filter((x) => x !== f);
    c.applyUpdate(t, cur, next, { fieldManager: 'garbage-collector' });
  });
}
