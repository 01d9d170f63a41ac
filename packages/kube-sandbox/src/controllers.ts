/**
 * The small controller set that makes the sandbox behave like a cluster: garbage collection of dependents,
 * namespace deletion, PodDisruptionBudget status, and an optional pod simulator (ReplicaSets, Deployments,
 * DaemonSets and "ready" pods on nodes).
 */
import { createHash } from 'node:crypto';
import type { ChangeEvent, Cluster } from './cluster.js';
import { ApiError } from './errors.js';
import { matchLabelRequirements } from '@keelson/api';
import { decidePodPlacement, type SchedulableNode } from './scheduler.js';
import { requirementsFromSelector } from './selectors.js';
import type { JsonObject, KubeObject, OwnerReference, ResourceType } from './types.js';
import { clone, deepEqual, deleteKey, isObject, nowTime, text } from './util.js';

const WORKLOAD_GRS = new Set(['apps/deployments', 'apps/replicasets', 'apps/daemonsets', '/pods', '/nodes']);

function typeOf(c: Cluster, group: string, plural: string): ResourceType {
  const t = c.allTypes().find((x) => x.group === group && x.plural === plural);
  if (!t) throw new Error(`internal: type ${group}/${plural} missing`);
  return t;
}

/** Swallows the errors a controller expects from races (object gone, conflict). */
function tolerate(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError && (e.httpCode === 404 || e.httpCode === 409)) return;
    throw e;
  }
}

/** `spec.nodeName` of a pod ('' when unscheduled). */
function podNodeName(p: KubeObject): string {
  const n = (p['spec'] as JsonObject | undefined)?.['nodeName'];
  return typeof n === 'string' ? n : '';
}

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
 * Whether a Node change can change what the workload controllers do (pure): a new or deleted node, or a change of
 * what DaemonSet placement, scheduling and the pod "kubelet" read: labels, spec (unschedulable, taints), deletion,
 * readiness. The daemons' annotation writes (most Node writes of an update) are none of these: a pass over every
 * workload on each of them made the controllers' cost grow with nodes × node writes.
 */
export function nodeChangeMatters(e: Pick<ChangeEvent, 'type' | 'object' | 'previous'>): boolean {
  const prev = e.previous;
  if (e.type !== 'MODIFIED' || prev === undefined) return true;
  const cur = e.object;
  return (
    nodeReady(prev) !== nodeReady(cur) ||
    prev.metadata?.deletionTimestamp !== cur.metadata?.deletionTimestamp ||
    !deepEqual(prev.metadata?.labels ?? {}, cur.metadata?.labels ?? {}) ||
    !deepEqual(prev['spec'] ?? {}, cur['spec'] ?? {})
  );
}

/** Pods by the uid of each owner they name (one scan of the pods per pass instead of one per ReplicaSet/DaemonSet). */
function podsByOwner(pods: readonly KubeObject[]): Map<string, KubeObject[]> {
  const out = new Map<string, KubeObject[]>();
  for (const p of pods)
    for (const r of p.metadata?.ownerReferences ?? []) {
      const list = out.get(r.uid);
      if (list === undefined) out.set(r.uid, [p]);
      else if (list[list.length - 1] !== p) list.push(p);
    }
  return out;
}

/** The pod-template-hash of a Deployment's template, cached per stored template object (stored objects are replaced, never mutated). */
const templateHashes = new WeakMap<object, string>();
function templateHash(template: JsonObject): string {
  let h = templateHashes.get(template);
  if (h === undefined) {
    h = createHash('sha256')
      .update(JSON.stringify(template))
      .digest('hex')
      .slice(0, 10)
      .replace(/[aeiou]/g, 'x');
    templateHashes.set(template, h);
  }
  return h;
}

/**
 * Least time between two passes of the workload controllers (Deployments, ReplicaSets, DaemonSets, pods): their pass
 * reads every workload, node and pod, so at thousands of nodes one pass per event-loop turn cost more than the
 * changes it reacted to. Changes in between coalesce into the next pass (the controllers are level-triggered, as
 * kube-controller-manager's work queues coalesce a key's events while it is being synced).
 */
export const WORKLOAD_PASS_INTERVAL_MS = 50;

/** Runs controllers on cluster changes, coalescing bursts into one pass. */
export class Controllers {
  private scheduled = false;
  private stopped = false;
  private unsubscribe: () => void;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Whether pods are simulated for workloads. */
  simulatePods: boolean;
  private readonly seeded = new Set<string>();
  /** CA bundle published as kube-root-ca.crt in every namespace. */
  caBundle = '';
  /** Errors raised by controller passes (surfaced for debugging). */
  readonly errors: unknown[] = [];

  constructor(
    private readonly c: Cluster,
    opts: { simulatePods?: boolean } = {},
  ) {
    this.simulatePods = opts.simulatePods ?? false;
    this.unsubscribe = c.onChange((e) => {
      this.onChange(e);
    });
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
    if (this.simulatePods && WORKLOAD_GRS.has(e.gr) && (e.gr !== '/nodes' || nodeChangeMatters(e)))
      this.dirty.workloads = any = true;
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
      this.deployments();
      const byOwner = podsByOwner(this.c.peekAll(typeOf(this.c, '', 'pods')));
      this.replicaSets(byOwner);
      this.daemonSets(byOwner);
      this.pods();
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

  private deployments(): void {
    const c = this.c;
    const dType = typeOf(c, 'apps', 'deployments');
    const rsType = typeOf(c, 'apps', 'replicasets');
    for (const d of c.peekAll(dType)) {
      if (d.metadata?.deletionTimestamp) continue;
      const spec = (d['spec'] ?? {}) as JsonObject;
      const template = (spec['template'] ?? {}) as JsonObject;
      const hash = templateHash(template);
      const ns = d.metadata?.namespace ?? 'default';
      const owned = c
        .peekAll(rsType, ns)
        .filter((rs) => rs.metadata?.ownerReferences?.some((r) => r.uid === d.metadata?.uid));
      const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
      const rsName = `${d.metadata?.name ?? ''}-${hash}`;
      let current = owned.find((rs) => rs.metadata?.name === rsName);
      if (!current) {
        const tmplMeta = isObject(template['metadata']) ? template['metadata'] : {};
        const rs: KubeObject = {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: rsName,
            namespace: ns,
            labels: { ...((tmplMeta['labels'] as Record<string, string>) ?? {}), 'pod-template-hash': hash },
            ownerReferences: [ownerRef(d, true)],
          },
          spec: {
            replicas,
            selector: mergeSelector(spec['selector'], { 'pod-template-hash': hash }),
            template: {
              ...template,
              metadata: {
                ...tmplMeta,
                labels: { ...((tmplMeta['labels'] as Record<string, string>) ?? {}), 'pod-template-hash': hash },
              },
            },
          },
        };
        tolerate(() => c.create(rsType, ns, rs, { fieldManager: 'deployment-controller' }));
        current = c.peek(rsType, ns, rsName);
      } else if ((current['spec'] as JsonObject)['replicas'] !== replicas) {
        const cur = current;
        tolerate(() => {
          const next = clone(cur);
          (next['spec'] as JsonObject)['replicas'] = replicas;
          c.applyUpdate(rsType, cur, next, { fieldManager: 'deployment-controller' });
        });
      }
      for (const old of owned)
        if (old.metadata?.name !== rsName && !old.metadata?.deletionTimestamp)
          tolerate(() => c.delete(rsType, ns, old.metadata?.name ?? ''));
      const rsStatus = (current?.['status'] ?? {}) as JsonObject;
      const ready = num(rsStatus['readyReplicas']);
      const status: JsonObject = {
        observedGeneration: d.metadata?.generation ?? 1,
        replicas: num(rsStatus['replicas']),
        updatedReplicas: num(rsStatus['replicas']),
        readyReplicas: ready,
        availableReplicas: num(rsStatus['availableReplicas']),
        conditions: conditions(d, [
          {
            type: 'Available',
            status: ready >= replicas ? 'True' : 'False',
            reason: ready >= replicas ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
            message:
              ready >= replicas
                ? 'Deployment has minimum availability.'
                : 'Deployment does not have minimum availability.',
          },
          {
            type: 'Progressing',
            status: 'True',
            reason: ready >= replicas ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated',
            message:
              ready >= replicas
                ? `ReplicaSet "${rsName}" has successfully progressed.`
                : `ReplicaSet "${rsName}" is progressing.`,
          },
        ]),
      };
      if (num(status['readyReplicas']) === 0) delete status['readyReplicas'];
      if (num(status['availableReplicas']) === 0) delete status['availableReplicas'];
      if (num(status['replicas']) < replicas)
        status['unavailableReplicas'] = replicas - num(status['availableReplicas']);
      setStatus(c, dType, d, status);
    }
  }

  private replicaSets(byOwner: ReadonlyMap<string, readonly KubeObject[]>): void {
    const c = this.c;
    const rsType = typeOf(c, 'apps', 'replicasets');
    const podType = typeOf(c, '', 'pods');
    for (const rs of c.peekAll(rsType)) {
      if (rs.metadata?.deletionTimestamp) continue;
      const spec = (rs['spec'] ?? {}) as JsonObject;
      const ns = rs.metadata?.namespace ?? 'default';
      const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
      const pods = (byOwner.get(rs.metadata?.uid ?? '') ?? []).filter(
        (p) => p.metadata?.namespace === ns && !p.metadata.deletionTimestamp,
      );
      for (let i = pods.length; i < replicas; i++)
        createPod(c, podType, rs, ns, `${rs.metadata?.name ?? ''}-`, undefined);
      if (pods.length > replicas)
        for (const p of pods.slice(replicas)) tolerate(() => c.delete(podType, ns, p.metadata?.name ?? ''));
      const live = pods.slice(0, replicas);
      const ready = live.filter(podReady).length;
      const status: JsonObject = {
        replicas: live.length,
        fullyLabeledReplicas: live.length,
        readyReplicas: ready,
        availableReplicas: ready,
        observedGeneration: rs.metadata?.generation ?? 1,
      };
      for (const k of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'])
        if (status[k] === 0) deleteKey(status, k);
      setStatus(c, rsType, rs, status);
    }
  }

  private daemonSets(byOwner: ReadonlyMap<string, readonly KubeObject[]>): void {
    const c = this.c;
    const dsType = typeOf(c, 'apps', 'daemonsets');
    const podType = typeOf(c, '', 'pods');
    const nodeType = typeOf(c, '', 'nodes');
    const nodes = c.peekAll(nodeType);
    for (const ds of c.peekAll(dsType)) {
      if (ds.metadata?.deletionTimestamp) continue;
      const ns = ds.metadata?.namespace ?? 'default';
      const tmplSpec = ((((ds['spec'] ?? {}) as JsonObject)['template'] ?? {}) as JsonObject)['spec'] as
        JsonObject | undefined;
      const nodeSelector = (tmplSpec?.['nodeSelector'] ?? {}) as Record<string, string>;
      const eligible = nodes.filter(
        (n) =>
          !n.metadata?.deletionTimestamp &&
          Object.entries(nodeSelector).every(([k, v]) => n.metadata?.labels?.[k] === v),
      );
      const eligibleNames = new Set(eligible.map((n) => n.metadata?.name ?? ''));
      const pods = (byOwner.get(ds.metadata?.uid ?? '') ?? []).filter((p) => p.metadata?.namespace === ns);
      // by node name: a lookup per node instead of a scan of the pods (nodes x pods on every pass)
      const scheduled = new Set(pods.map((p) => podNodeName(p)));
      for (const name of eligibleNames)
        if (!scheduled.has(name)) createPod(c, podType, ds, ns, `${ds.metadata?.name ?? ''}-`, name);
      for (const p of pods) {
        if (!eligibleNames.has(podNodeName(p)) && !p.metadata?.deletionTimestamp)
          tolerate(() => c.delete(podType, ns, p.metadata?.name ?? ''));
      }
      const live = pods.filter((p) => !p.metadata?.deletionTimestamp && eligibleNames.has(podNodeName(p)));
      const ready = live.filter(podReady).length;
      const status: JsonObject = {
        currentNumberScheduled: live.length,
        desiredNumberScheduled: eligible.length,
        numberMisscheduled: 0,
        numberReady: ready,
        numberAvailable: ready,
        updatedNumberScheduled: live.length,
        observedGeneration: ds.metadata?.generation ?? 1,
      };
      if (eligible.length - ready > 0) status['numberUnavailable'] = eligible.length - ready;
      if (ready === 0) delete status['numberAvailable'];
      setStatus(c, dsType, ds, status);
    }
  }

  /** Round-robin position of the scheduler among feasible nodes. */
  private nextNode = 0;

  /**
   * Schedules pending pods (see scheduler.ts: nodeSelector, node affinity, cordoned nodes, taints and tolerations;
   * unschedulable pods get `PodScheduled=False Unschedulable`) and marks bound pods Running/Ready (a tiny kubelet).
   */
  private pods(): void {
    const c = this.c;
    const podType = typeOf(c, '', 'pods');
    const nodes = c.peekAll(typeOf(c, '', 'nodes')) as SchedulableNode[];
    for (const p of c.peekAll(podType)) {
      if (p.metadata?.deletionTimestamp) continue;
      const spec = getSpec(p);
      if (!spec['nodeName']) {
        this.schedulePod(podType, p, nodes);
        continue;
      }
      const phase = (p['status'] as JsonObject | undefined)?.['phase'];
      if (phase === 'Running' || phase === 'Succeeded' || phase === 'Failed') continue;
      // a run-to-completion pod (restartPolicy OnFailure / Never) has commands to run to an end: this tiny kubelet
      // cannot run them, so it leaves such pods to a kubelet that can (e.g. the rehearsal's virtual nodes)
      if (spec['restartPolicy'] === 'OnFailure' || spec['restartPolicy'] === 'Never') continue;
      const node = c.peek(typeOf(c, '', 'nodes'), undefined, text(spec['nodeName']));
      if (!node || !nodeReady(node)) continue;
      const now = nowTime();
      const containers = Array.isArray(spec['containers']) ? (spec['containers'] as JsonObject[]) : [];
      const status: JsonObject = {
        phase: 'Running',
        conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
          type,
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: now,
        })),
        hostIP: '10.0.0.1',
        podIP: `10.128.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`,
        startTime: now,
        qosClass: 'BestEffort',
        containerStatuses: containers.map((ct) => ({
          name: ct['name'],
          image: ct['image'],
          imageID: '',
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: now } },
        })),
      };
      setStatus(c, podType, p, status);
    }
  }

  /** One scheduling attempt: bind the pod (as the scheduler's binding does) or record why it cannot be placed. */
  private schedulePod(podType: ResourceType, p: KubeObject, nodes: readonly SchedulableNode[]): void {
    const c = this.c;
    const placement = decidePodPlacement(p, nodes, this.nextNode);
    if (placement.kind === 'skip') return;
    if (placement.kind === 'bind') {
      this.nextNode = placement.next;
      tolerate(() => {
        const next = clone(p);
        (next['spec'] as JsonObject)['nodeName'] = placement.node;
        c.applyUpdate(podType, p, next, { fieldManager: 'default-scheduler' });
      });
      return;
    }
    const status = isObject(p['status']) ? p['status'] : {};
    const others = (Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]) : []).filter(
      (x) => x['type'] !== 'PodScheduled',
    );
    const prev = (Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]) : []).find(
      (x) => x['type'] === 'PodScheduled',
    );
    const since =
      prev?.['status'] === 'False' && typeof prev['lastTransitionTime'] === 'string'
        ? prev['lastTransitionTime']
        : nowTime();
    const cond: JsonObject = {
      type: 'PodScheduled',
      status: 'False',
      lastProbeTime: null,
      lastTransitionTime: since,
      reason: 'Unschedulable',
      message: placement.message,
    };
    setStatus(c, podType, p, { phase: 'Pending', conditions: [...others, cond] });
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

function getSpec(o: KubeObject): JsonObject {
  return isObject(o['spec']) ? o['spec'] : {};
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** Whether a node has condition Ready=True. */
export function nodeReady(n: KubeObject): boolean {
  const conds = (n['status'] as JsonObject | undefined)?.['conditions'];
  return Array.isArray(conds) && conds.some((c) => isObject(c) && c['type'] === 'Ready' && c['status'] === 'True');
}

/** Whether a pod has condition Ready=True. */
export function podReady(p: KubeObject): boolean {
  const conds = (p['status'] as JsonObject | undefined)?.['conditions'];
  return Array.isArray(conds) && conds.some((c) => isObject(c) && c['type'] === 'Ready' && c['status'] === 'True');
}

function ownerRef(o: KubeObject, controller: boolean): OwnerReference {
  return {
    apiVersion: o.apiVersion ?? '',
    kind: o.kind ?? '',
    name: o.metadata?.name ?? '',
    uid: o.metadata?.uid ?? '',
    controller,
    blockOwnerDeletion: true,
  };
}

function mergeSelector(sel: unknown, extra: Record<string, string>): JsonObject {
  const s = isObject(sel) ? clone(sel) : {};
  s['matchLabels'] = { ...(s['matchLabels'] ?? {}), ...extra };
  return s;
}

function createPod(
  c: Cluster,
  podType: ResourceType,
  owner: KubeObject,
  ns: string,
  prefix: string,
  nodeName: string | undefined,
): void {
  const template = (((owner['spec'] ?? {}) as JsonObject)['template'] ?? {}) as JsonObject;
  const tmplMeta = isObject(template['metadata']) ? template['metadata'] : {};
  const spec = clone(isObject(template['spec']) ? template['spec'] : { containers: [] });
  if (nodeName) spec['nodeName'] = nodeName;
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: prefix,
      namespace: ns,
      labels: { ...((tmplMeta['labels'] as Record<string, string>) ?? {}) },
      ownerReferences: [ownerRef(owner, true)],
    },
    spec,
  };
  if (tmplMeta['annotations']) (pod.metadata ??= {}).annotations = tmplMeta['annotations'] as Record<string, string>;
  tolerate(() => c.create(podType, ns, pod, { fieldManager: 'kube-controller-manager' }));
}

function conditions(
  o: KubeObject,
  want: { type: string; status: string; reason: string; message: string }[],
): JsonObject[] {
  const prev = ((o['status'] as JsonObject | undefined)?.['conditions'] ?? []) as JsonObject[];
  const now = nowTime();
  return want.map((w) => {
    const p = prev.find((x) => x['type'] === w.type);
    const same = p && p['status'] === w.status && p['reason'] === w.reason && p['message'] === w.message;
    if (same) return p;
    return {
      ...w,
      lastTransitionTime: p && p['status'] === w.status ? p['lastTransitionTime'] : now,
      lastUpdateTime: now,
    };
  });
}

function setStatus(c: Cluster, t: ResourceType, o: KubeObject, status: JsonObject): void {
  const cur = isObject(o['status']) ? o['status'] : {};
  const merged = { ...cur, ...status };
  for (const k of Object.keys(cur))
    if (!(k in status) && (k.endsWith('Replicas') || k.startsWith('number') || k === 'unavailableReplicas'))
      deleteKey(merged, k);
  if (deepEqual(cur, merged)) return;
  tolerate(() => {
    const next = clone(o);
    next['status'] = merged;
    c.applyUpdate(t, o, next, { fieldManager: 'kube-controller-manager', subresource: 'status' });
  });
}
