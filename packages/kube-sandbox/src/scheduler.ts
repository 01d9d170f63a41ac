/**
 * The pod simulator's scheduler: the kube-scheduler's filters that matter to a simulated cluster, as pure
 * functions. For each node, in the scheduler's plugin order, the first filter that rejects the pod gives the
 * node's reason:
 * - NodeUnschedulable: `spec.unschedulable` nodes, unless the pod tolerates `node.kubernetes.io/unschedulable:NoSchedule`
 *   ("node(s) were unschedulable");
 * - TaintToleration: `NoSchedule`/`NoExecute` taints the pod does not tolerate; a node whose Ready condition is not
 *   True counts as tainted `node.kubernetes.io/not-ready:NoSchedule` like the node lifecycle controller marks it
 *   ("node(s) had untolerated taint {key: value}");
 * - NodeAffinity: `spec.nodeSelector` and required node affinity ("node(s) didn't match Pod's node affinity/selector").
 * Feasible nodes are taken in turn (round-robin), which spreads pods the way the default scoring roughly does.
 * A pod that fits nowhere gets the scheduler's FitError text for its `PodScheduled=False Unschedulable` condition.
 * Pods with `spec.nodeName` set are bound already and never reach the scheduler.
 */
import { matchLabelRequirements, type LabelRequirement } from '@keelson/api';

/** The pod fields scheduling reads. */
export interface SchedulablePod {
  spec?: {
    nodeName?: string;
    schedulerName?: string;
    nodeSelector?: Record<string, string>;
    tolerations?: Toleration[];
    affinity?: {
      nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } };
    };
  };
}

/** The node fields scheduling reads. */
export interface SchedulableNode {
  metadata?: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: { conditions?: { type?: string; status?: string }[] };
}

/** `corev1.Taint`. */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** `corev1.Toleration`. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: '' | 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

/** `corev1.NodeSelectorTerm` (the terms of required node affinity are ORed, the requirements of a term ANDed). */
export interface NodeSelectorTerm {
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
    values?: string[];
  }[];
  matchFields?: { key: string; operator: 'In' | 'NotIn'; values?: string[] }[];
}

/** Taint key of cordoned nodes. */
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
/** Taint key of nodes whose Ready condition is not True. */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
/** The scheduler's name for pods that do not name one. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** Filter reasons, spelled as the kube-scheduler plugins spell them. */
export const SCHEDULER_REASONS = {
  unschedulable: 'node(s) were unschedulable',
  nodeAffinity: "node(s) didn't match Pod's node affinity/selector",
} as const;

/** What {@link decidePodPlacement} returns. */
export type PodPlacement =
  { kind: 'bind'; node: string; next: number } | { kind: 'unschedulable'; message: string } | { kind: 'skip' };

/** Whether a toleration tolerates a taint (`Toleration.ToleratesTaint`). */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
  if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}

function tolerated(pod: SchedulablePod, taint: Taint): boolean {
  return (pod.spec?.tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

function nodeReady(node: SchedulableNode): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The node's scheduling taints, with the not-ready taint the node lifecycle controller would add. */
function effectiveTaints(node: SchedulableNode): Taint[] {
  const taints = [...(node.spec?.taints ?? [])];
  if (!nodeReady(node) && !taints.some((t) => t.key === TAINT_NODE_NOT_READY))
    taints.push({ key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' });
  return taints;
}

const AFFINITY_OPS = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!', Gt: 'gt', Lt: 'lt' } as const;

function termMatches(term: NodeSelectorTerm, node: SchedulableNode): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const reqs: LabelRequirement[] = exprs.map((e) => ({
    key: e.key,
    op: AFFINITY_OPS[e.operator],
    values: e.values ?? [],
  }));
  const fieldReqs: LabelRequirement[] = fields.map((f) => ({
    key: f.key,
    op: AFFINITY_OPS[f.operator],
    values: f.values ?? [],
  }));
  return (
    matchLabelRequirements(reqs, node.metadata?.labels) &&
    matchLabelRequirements(fieldReqs, { 'metadata.name': node.metadata?.name ?? '' })
  );
}

/** Why a node cannot take the pod (the first failing filter), or undefined when it fits. */
export function nodeRejection(pod: SchedulablePod, node: SchedulableNode): string | undefined {
  if (node.spec?.unschedulable === true && !tolerated(pod, { key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' }))
    return SCHEDULER_REASONS.unschedulable;
  const taint = effectiveTaints(node).find((t) => t.effect !== 'PreferNoSchedule' && !tolerated(pod, t));
  if (taint !== undefined) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
  const labels = node.metadata?.labels ?? {};
  if (!Object.entries(pod.spec?.nodeSelector ?? {}).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v))
    return SCHEDULER_REASONS.nodeAffinity;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms !== undefined && !terms.some((t) => termMatches(t, node))) return SCHEDULER_REASONS.nodeAffinity;
  return undefined;
}

/**
 * The scheduler's FitError text: `0/N nodes are available: <count> <reason>, … preemption: 0/N nodes are
 * available: N Preemption is not helpful for scheduling.` (every reason here is unresolvable by preemption);
 * `no nodes available to schedule pods` when the cluster has no node.
 */
export function unschedulableMessage(reasons: readonly string[]): string {
  if (reasons.length === 0) return 'no nodes available to schedule pods';
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const histogram = [...counts].map(([r, n]) => `${String(n)} ${r}`).sort();
  const n = String(reasons.length);
  return `0/${n} nodes are available: ${histogram.join(', ')}. preemption: 0/${n} nodes are available: ${n} Preemption is not helpful for scheduling.`;
}

/**
 * Where the pod goes: `bind` to the first feasible node from position `start` (round-robin; `next` is the position
 * after it), `unschedulable` with the FitError message, or `skip` for pods already bound, being deleted or
 * meant for another scheduler. Nodes being deleted are not candidates.
 */
export function decidePodPlacement(
  pod: SchedulablePod & { metadata?: { deletionTimestamp?: string } },
  nodes: readonly SchedulableNode[],
  start = 0,
): PodPlacement {
  const spec = pod.spec ?? {};
  if ((spec.nodeName ?? '') !== '' || pod.metadata?.deletionTimestamp !== undefined) return { kind: 'skip' };
  if ((spec.schedulerName ?? DEFAULT_SCHEDULER_NAME) !== DEFAULT_SCHEDULER_NAME) return { kind: 'skip' };
  const candidates = nodes.filter((n) => n.metadata?.deletionTimestamp === undefined);
  const reasons: string[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const at = (start + i) % candidates.length;
    const node = candidates[at];
    if (node === undefined) continue;
    const why = nodeRejection(pod, node);
    if (why === undefined) return { kind: 'bind', node: node.metadata?.name ?? '', next: at + 1 };
    reasons.push(why);
  }
  return { kind: 'unschedulable', message: unschedulableMessage(reasons) };
}
