/**
 * The sandbox's workload controllers (what kube-controller-manager's deployment, replicaset and daemonset controllers,
 * the scheduler and a kubelet do for the pods of a cluster without machines): ReplicaSets for Deployments, pods for
 * ReplicaSets and DaemonSets, their status, and "ready" pods on ready nodes.
 *
 * Incremental: a pass syncs only what changed since the previous one, as kube-controller-manager's controllers sync
 * only the keys their informers' event handlers queued (k8s.io/kubernetes pkg/controller/daemon daemon_controller.go
 * `addPod`/`updatePod` enqueue the pod's DaemonSet; `updateNode` enqueues the DaemonSets only when the node's
 * labels, taints or conditions change what should run on it). A pod's change queues its owner, a ReplicaSet's change
 * its Deployment; a Node's labels or deletion queue every DaemonSet, its readiness or spec every pod (scheduling and
 * the "kubelet" read them). A full pass runs after start or a snapshot restore ({@link WorkloadControllers.markAll}).
 */
import { createHash } from 'node:crypto';
import type { ChangeEvent, Cluster } from './cluster.js';
import { conditions, getSpec, nodeReady, num, podReady, setStatus, tolerate, typeOf } from './controller-util.js';
import { decidePodPlacement, type SchedulableNode } from './scheduler.js';
import type { JsonObject, KubeObject, OwnerReference, ResourceType } from './types.js';
import { clone, deepEqual, deleteKey, isObject, nowTime, text } from './util.js';

/** `spec.nodeName` of a pod ('' when unscheduled). */
function podNodeName(p: KubeObject): string {
  const n = (p['spec'] as JsonObject | undefined)?.['nodeName'];
  return typeof n === 'string' ? n : '';
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

/**
 * Whether a Node change can change which DaemonSets place a pod on it (pure): a new or deleted node, its deletion
 * starting, or its labels (the DaemonSets' nodeSelector). Readiness and spec changes do not (this simulator places
 * daemon pods by nodeSelector only).
 */
export function nodeEligibilityChanged(e: Pick<ChangeEvent, 'type' | 'object' | 'previous'>): boolean {
  const prev = e.previous;
  if (e.type !== 'MODIFIED' || prev === undefined) return true;
  return (
    prev.metadata?.deletionTimestamp !== e.object.metadata?.deletionTimestamp ||
    !deepEqual(prev.metadata?.labels ?? {}, e.object.metadata?.labels ?? {})
  );
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

const podKey = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;

/** Pods by the uid of each owner they name, kept current from the pods' change events (keys, not objects). */
class PodOwnerIndex {
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly ownersOf = new Map<string, readonly string[]>();

  /** Replaces the index by one built from `pods`. */
  rebuild(pods: readonly KubeObject[]): void {
    this.byOwner.clear();
    this.ownersOf.clear();
    for (const p of pods) this.set(podKey(p.metadata?.namespace, p.metadata?.name), p.metadata?.ownerReferences);
  }

  /** Records a pod's change; returns the owner uids it named before and after. */
  update(e: ChangeEvent): string[] {
    const key = podKey(e.object.metadata?.namespace, e.object.metadata?.name);
    const before = this.ownersOf.get(key) ?? [];
    this.set(key, e.type === 'DELETED' ? undefined : e.object.metadata?.ownerReferences);
    return [...before, ...(this.ownersOf.get(key) ?? [])];
  }

  /** Keys of the pods naming `uid` as an owner. */
  podsOf(uid: string): ReadonlySet<string> {
    return this.byOwner.get(uid) ?? new Set();
  }

  private set(key: string, refs: readonly OwnerReference[] | undefined): void {
    for (const uid of this.ownersOf.get(key) ?? []) {
      const s = this.byOwner.get(uid);
      s?.delete(key);
      if (s?.size === 0) this.byOwner.delete(uid);
    }
    const uids = [...new Set((refs ?? []).map((r) => r.uid))];
    if (uids.length === 0) this.ownersOf.delete(key);
    else this.ownersOf.set(key, uids);
    for (const uid of uids) {
      const s = this.byOwner.get(uid);
      if (s === undefined) this.byOwner.set(uid, new Set([key]));
      else s.add(key);
    }
  }
}

/** How many objects each controller synced (cumulative; what a pass costs, for tests and profiles). */
export interface WorkloadSyncCounts {
  deployments: number;
  replicaSets: number;
  daemonSets: number;
  pods: number;
}

/** The workload controllers and what they have left to sync. */
export class WorkloadControllers {
  /** Round-robin position of the scheduler among feasible nodes. */
  private nextNode = 0;
  private full = true;
  private allDaemonSets = false;
  private allPods = false;
  private readonly dirtyDeployments = new Set<string>();
  private readonly dirtyOwners = new Set<string>();
  private readonly dirtyPods = new Set<string>();
  private readonly index = new PodOwnerIndex();
  /**
   * The nodes a DaemonSet's nodeSelector places pods on, by selector: kept until a Node's eligibility changes (a
   * node added, deleted, its deletion started or its labels changed), so a DaemonSet queued by its pods' events does
   * not match every node again.
   */
  private readonly eligibleNodes = new Map<string, ReadonlySet<string>>();
  /** Objects synced so far, by controller. */
  readonly stats: WorkloadSyncCounts = { deployments: 0, replicaSets: 0, daemonSets: 0, pods: 0 };

  constructor(private readonly c: Cluster) {}

  /** Everything is synced by the next pass (after start or a snapshot restore). */
  markAll(): void {
    this.full = true;
  }

  /** Records what `e` leaves to sync; returns whether a pass is needed. */
  observe(e: ChangeEvent): boolean {
    const uid = e.object.metadata?.uid ?? '';
    switch (e.gr) {
      case '/nodes':
        if (!nodeChangeMatters(e)) return false;
        this.allPods = true;
        if (nodeEligibilityChanged(e)) this.allDaemonSets = true;
        return true;
      case '/pods':
        for (const owner of this.index.update(e)) this.dirtyOwners.add(owner);
        this.dirtyPods.add(podKey(e.object.metadata?.namespace, e.object.metadata?.name));
        return true;
      case 'apps/replicasets':
        for (const r of e.object.metadata?.ownerReferences ?? []) this.dirtyDeployments.add(r.uid);
        for (const r of e.previous?.metadata?.ownerReferences ?? []) this.dirtyDeployments.add(r.uid);
        this.dirtyOwners.add(uid);
        return true;
      case 'apps/daemonsets':
        this.dirtyOwners.add(uid);
        return true;
      case 'apps/deployments':
        this.dirtyDeployments.add(uid);
        return true;
      default:
        return false;
    }
  }

  /**
   * One pass over what changed. Each stage takes its queue when it starts, so what an earlier stage writes (a
   * Deployment's new ReplicaSet, a ReplicaSet's new pods) is synced in the same pass, as a full pass did.
   */
  run(): void {
    const full = this.full;
    this.full = false;
    if (full) this.index.rebuild(this.c.peekAll(typeOf(this.c, '', 'pods')));
    this.deployments(full ? undefined : take(this.dirtyDeployments));
    const owners = take(this.dirtyOwners);
    const allDaemonSets = full || this.allDaemonSets;
    this.allDaemonSets = false;
    if (allDaemonSets) this.eligibleNodes.clear();
    this.replicaSets(full ? undefined : owners);
    this.daemonSets(allDaemonSets ? undefined : owners);
    const allPods = full || this.allPods;
    this.allPods = false;
    const pods = take(this.dirtyPods);
    this.pods(allPods ? undefined : pods);
  }

  /** The stored pods naming `uid` as an owner. */
  private owned(podType: ResourceType, uid: string): KubeObject[] {
    return this.podsAt(podType, this.index.podsOf(uid));
  }

  private podsAt(podType: ResourceType, keys: Iterable<string>): KubeObject[] {
    const out: KubeObject[] = [];
    for (const key of keys) {
      const slash = key.indexOf('/');
      const p = this.c.peek(podType, key.slice(0, slash), key.slice(slash + 1));
      if (p !== undefined) out.push(p);
    }
    return out;
  }

  private deployments(only: ReadonlySet<string> | undefined): void {
    const c = this.c;
    const dType = typeOf(c, 'apps', 'deployments');
    const rsType = typeOf(c, 'apps', 'replicasets');
    for (const d of c.peekAll(dType)) {
      if (d.metadata?.deletionTimestamp || (only !== undefined && !only.has(d.metadata?.uid ?? ''))) continue;
      this.stats.deployments++;
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

  private replicaSets(only: ReadonlySet<string> | undefined): void {
    const c = this.c;
    const rsType = typeOf(c, 'apps', 'replicasets');
    const podType = typeOf(c, '', 'pods');
    for (const rs of c.peekAll(rsType)) {
      if (rs.metadata?.deletionTimestamp || (only !== undefined && !only.has(rs.metadata?.uid ?? ''))) continue;
      this.stats.replicaSets++;
      const spec = (rs['spec'] ?? {}) as JsonObject;
      const ns = rs.metadata?.namespace ?? 'default';
      const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
      const pods = this.owned(podType, rs.metadata?.uid ?? '').filter(
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

  private daemonSets(only: ReadonlySet<string> | undefined): void {
    const c = this.c;
    const dsType = typeOf(c, 'apps', 'daemonsets');
    const podType = typeOf(c, '', 'pods');
    const nodeType = typeOf(c, '', 'nodes');
    for (const ds of c.peekAll(dsType)) {
      if (ds.metadata?.deletionTimestamp || (only !== undefined && !only.has(ds.metadata?.uid ?? ''))) continue;
      this.stats.daemonSets++;
      const ns = ds.metadata?.namespace ?? 'default';
      const tmplSpec = ((((ds['spec'] ?? {}) as JsonObject)['template'] ?? {}) as JsonObject)['spec'] as
        JsonObject | undefined;
      const eligibleNames = this.eligibleFor(nodeType, (tmplSpec?.['nodeSelector'] ?? {}) as Record<string, string>);
      const pods = this.owned(podType, ds.metadata?.uid ?? '').filter((p) => p.metadata?.namespace === ns);
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
        desiredNumberScheduled: eligibleNames.size,
        numberMisscheduled: 0,
        numberReady: ready,
        numberAvailable: ready,
        updatedNumberScheduled: live.length,
        observedGeneration: ds.metadata?.generation ?? 1,
      };
      if (eligibleNames.size - ready > 0) status['numberUnavailable'] = eligibleNames.size - ready;
      if (ready === 0) delete status['numberAvailable'];
      setStatus(c, dsType, ds, status);
    }
  }

  /** Names of the live nodes whose labels match `nodeSelector` (cached, see {@link eligibleNodes}). */
  private eligibleFor(nodeType: ResourceType, nodeSelector: Record<string, string>): ReadonlySet<string> {
    const key = JSON.stringify(Object.entries(nodeSelector).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    let names = this.eligibleNodes.get(key);
    if (names === undefined) {
      const sel = Object.entries(nodeSelector);
      names = new Set(
        this.c
          .peekAll(nodeType)
          .filter((n) => !n.metadata?.deletionTimestamp && sel.every(([k, v]) => n.metadata?.labels?.[k] === v))
          .map((n) => n.metadata?.name ?? ''),
      );
      this.eligibleNodes.set(key, names);
    }
    return names;
  }

  /**
   * Schedules pending pods (see scheduler.ts: nodeSelector, node affinity, cordoned nodes, taints and tolerations;
   * unschedulable pods get `PodScheduled=False Unschedulable`) and marks bound pods Running/Ready (a tiny kubelet).
   */
  private pods(only: ReadonlySet<string> | undefined): void {
    const c = this.c;
    const podType = typeOf(c, '', 'pods');
    let nodes: SchedulableNode[] | undefined;
    for (const p of only === undefined ? c.peekAll(podType) : this.podsAt(podType, only)) {
      if (p.metadata?.deletionTimestamp) continue;
      this.stats.pods++;
      const spec = getSpec(p);
      if (!spec['nodeName']) {
        nodes ??= c.peekAll(typeOf(c, '', 'nodes')) as SchedulableNode[];
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
}

/** The set's members, the set emptied. */
function take(s: Set<string>): Set<string> {
  const out = new Set(s);
  s.clear();
  return out;
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
