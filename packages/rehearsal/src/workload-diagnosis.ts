/**
 * Why the release's Deployments and DaemonSets are not rolled out, for a rehearsal against an existing API server
 * (`--kubeconfig`): the operators (and the CVO, as upstream's `checkDeploymentHealth`) wait for them, and on a server
 * that does not run their Pods the update stalls with nothing else to say. Each workload short of its replicas is
 * explained from its Pods: none created (no workload controllers), not scheduled (no scheduler or no node fits), or
 * scheduled on a node that does not run it (no kubelet runs Pods there: the rehearsal's virtual nodes do not).
 */
import type { Diagnosis } from './diagnosis.js';

/** A Deployment or DaemonSet as far as the diagnosis reads it. */
export interface WorkloadLike {
  kind?: string;
  metadata: { name?: string; namespace?: string; generation?: number };
  spec?: { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    availableReplicas?: number;
    updatedReplicas?: number;
    desiredNumberScheduled?: number;
    numberAvailable?: number;
    updatedNumberScheduled?: number;
  };
}

/** A Pod as far as the diagnosis reads it. */
export interface PodLike {
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

/** How the workload is short of a roll-out, or undefined when it is rolled out. */
function shortfall(kind: string, w: WorkloadLike): string | undefined {
  const s = w.status ?? {};
  const generation = w.metadata.generation ?? 0;
  if ((s.observedGeneration ?? 0) < generation)
    return `generation ${generation} not observed by a controller (status.observedGeneration ${s.observedGeneration ?? 0})`;
  const [want, have] =
    kind === 'DaemonSet'
      ? [s.desiredNumberScheduled ?? 0, Math.min(s.numberAvailable ?? 0, s.updatedNumberScheduled ?? 0)]
      : [w.spec?.replicas ?? 1, Math.min(s.availableReplicas ?? 0, s.updatedReplicas ?? 0)];
  return have < want ? `${have}/${want} Pods available and updated` : undefined;
}

function selects(sel: Record<string, string> | undefined, pod: PodLike): boolean {
  if (sel === undefined || Object.keys(sel).length === 0) return false;
  const labels = pod.metadata.labels ?? {};
  return Object.entries(sel).every(([k, v]) => labels[k] === v);
}

const ready = (p: PodLike): boolean =>
  p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

const NO_PODS = 'no Pods exist for it';

/** What the Pods of a workload short of replicas say (pure). */
function podFindings(w: WorkloadLike, pods: readonly PodLike[]): Diagnosis['findings'] {
  const ns = w.metadata.namespace ?? '';
  const mine = pods.filter((p) => p.metadata.namespace === ns && selects(w.spec?.selector?.matchLabels, p));
  if (mine.length === 0) return [{ message: NO_PODS }];
  const out: Diagnosis['findings'] = [];
  const unscheduled = mine.filter((p) => (p.spec?.nodeName ?? '') === '');
  if (unscheduled.length > 0)
    out.push({
      message: `${unscheduled.length} Pod(s) not scheduled (${unscheduled.map((p) => p.metadata.name ?? '').join(', ')})`,
      action: 'no scheduler runs, or no node fits them (node selectors, taints, resources): kubectl describe pod',
    });
  const stuck = mine.filter((p) => (p.spec?.nodeName ?? '') !== '' && !ready(p));
  if (stuck.length > 0)
    out.push({
      message: `${stuck.length} Pod(s) scheduled but not running: ${stuck.map((p) => `${p.metadata.name ?? ''} on ${p.spec?.nodeName ?? ''} (${p.status?.phase ?? 'no status'})`).join(', ')}`,
      action:
        "no kubelet runs them there: the rehearsal's virtual nodes register Nodes but do not run Pods, and a real node cannot run the release's images; rehearse against a server that runs its Pods (for the embedded one: keelson sandbox start --simulate-pods)",
    });
  return out;
}

/** The Deployments and DaemonSets short of their replicas, explained from their Pods (pure). */
export function diagnoseWorkloads(
  deployments: readonly WorkloadLike[],
  daemonSets: readonly WorkloadLike[],
  pods: readonly PodLike[],
): Diagnosis[] {
  const out: Diagnosis[] = [];
  const podless: string[] = [];
  for (const [kind, list] of [
    ['Deployment', deployments],
    ['DaemonSet', daemonSets],
  ] as const) {
    for (const w of list) {
      const short = shortfall(kind, w);
      if (short === undefined) continue;
      const subject = `${kind.toLowerCase()}/${w.metadata.namespace ?? ''}/${w.metadata.name ?? ''}`;
      const findings = podFindings(w, pods);
      if (findings.length === 1 && findings[0]?.message === NO_PODS) podless.push(subject);
      else out.push({ subject, summary: short, findings });
    }
  }
  out.sort((a, b) => a.subject.localeCompare(b.subject));
  // one entry for all the workloads without Pods: the same cause
  if (podless.length > 0)
    out.unshift({
      subject: 'workloads',
      summary: `${podless.length} Deployment(s)/DaemonSet(s) of the release have no Pods`,
      findings: [
        {
          message: `no Pods exist for ${podless.sort().join(', ')}`,
          action:
            "nothing creates their Pods: the API server runs no workload controllers (kube-controller-manager's deployment, replicaset and daemonset controllers), or they are refused; the operators wait for these roll-outs. Rehearse against a server that runs them (for the embedded one: keelson sandbox start --simulate-pods)",
        },
      ],
    });
  return out;
}
