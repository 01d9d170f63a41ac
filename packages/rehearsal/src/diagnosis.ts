/**
 * Why a rehearsal failed or stalled, read from the cluster before it is stopped: the ClusterOperators that keep the CVO
 * waiting (their Degraded/Available conditions), pending admin acks, workloads not rolled out, and (given a
 * {@link PoolDiagnoser}, as the CLI's `keelson mcp why`) every pool that is not done.
 */
import { isNotFound, type KubeClient } from '@keelson/kube';
import { adminAckPatchCommand, pendingAdminAcks } from '@keelson/cluster-version';
import { diagnoseWorkloads, type PodLike, type WorkloadLike } from './workload-diagnosis.js';

/** One subject (a pool or an operator) and what is wrong with it. */
export interface Diagnosis {
  /** `machineconfigpool/worker`, `clusteroperator/dns`. */
  subject: string;
  summary: string;
  findings: { message: string; action?: string }[];
}

/** A ClusterOperator as far as the diagnosis reads it. */
export interface OperatorLike {
  metadata: { name?: string };
  status?: {
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    versions?: { name: string; version: string }[];
  };
}

/**
 * Explains the MachineConfigPools that are not done (the CLI's `keelson mcp why POOL` for each), read from the cluster.
 */
export type PoolDiagnoser = (client: KubeClient) => Promise<Diagnosis[]>;

/**
 * ClusterOperators that are Degraded, unavailable or (with `checkVersions`, for an accepted target) not at `target`
 * (pure).
 */
export function diagnoseOperators(cos: readonly OperatorLike[], target: string, checkVersions = true): Diagnosis[] {
  const out: Diagnosis[] = [];
  for (const co of cos) {
    const name = co.metadata.name ?? '';
    const conds = co.status?.conditions ?? [];
    const bad = conds.filter(
      (c) => (c.type === 'Degraded' && c.status === 'True') || (c.type === 'Available' && c.status !== 'True'),
    );
    const version = co.status?.versions?.find((v) => v.name === 'operator')?.version ?? '';
    if (bad.length === 0 && (version === target || !checkVersions)) continue;
    const findings = bad.map((c) => ({
      message: `${c.type}=${c.status}${c.reason !== undefined ? ` ${c.reason}` : ''}${c.message !== undefined && c.message !== '' ? `: ${c.message}` : ''}`,
      action: `the CVO waits for clusteroperator/${name} at its run level; read its conditions (keelson upgrade status, kubectl get clusteroperator ${name} -o yaml) and its operator's log; once it reports Available=True, Degraded=False at ${target} the update continues`,
    }));
    if (bad.length === 0)
      findings.push({
        message: `reports version ${version || '(none)'}, not ${target}`,
        action: `the CVO waits until clusteroperator/${name} reports ${target} (its operator has not finished its own update)`,
      });
    out.push({ subject: `clusteroperator/${name}`, summary: findings[0]?.message ?? '', findings });
  }
  return out;
}

/** What {@link diagnoseAdminAcks} reads: the ClusterVersion and the `data` of the two ConfigMaps (null: absent). */
export interface AdminAckFacts {
  clusterVersion: { status?: { history?: { state?: string; version?: string }[] } } | undefined;
  gates: Record<string, string> | null;
  acks: Record<string, string> | null;
}

/** The admin-ack gates the cluster's version still needs, with the `oc patch` that gives them (pure). */
export function diagnoseAdminAcks(f: AdminAckFacts): Diagnosis[] {
  const pending = pendingAdminAcks({ history: f.clusterVersion?.status?.history, gates: f.gates, acks: f.acks });
  if (pending.length === 0) return [];
  const findings = pending.map((p) => ({
    message: `admin ack ${p.gate} not given: ${p.description}`,
    action: `read the gate's text, then acknowledge it: ${adminAckPatchCommand([p.gate])}`,
  }));
  return [
    {
      subject: 'configmap/openshift-config/admin-acks',
      summary: `the CVO refuses a minor update until ${pending.length === 1 ? 'this gate is' : 'these gates are'} acknowledged`,
      findings,
    },
  ];
}

async function adminAckFacts(client: KubeClient): Promise<AdminAckFacts> {
  const get = async <T>(path: string): Promise<T | undefined> => {
    try {
      return await client.request<T>('GET', path);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  const [cv, gates, acks] = await Promise.all([
    get<AdminAckFacts['clusterVersion']>('/apis/config.openshift.io/v1/clusterversions/version'),
    get<{ data?: Record<string, string> }>('/api/v1/namespaces/openshift-config-managed/configmaps/admin-gates'),
    get<{ data?: Record<string, string> }>('/api/v1/namespaces/openshift-config/configmaps/admin-acks'),
  ]);
  return {
    clusterVersion: cv,
    gates: gates === undefined ? null : (gates.data ?? {}),
    acks: acks === undefined ? null : (acks.data ?? {}),
  };
}

/**
 * Reads the cluster and explains what holds the update (empty when nothing does, or the cluster cannot be read);
 * `workloads` (a rehearsal against an existing server): also the Deployments and DaemonSets not rolled out.
 */
export async function diagnose(
  client: KubeClient,
  target: string,
  opts: { workloads?: boolean; pools?: PoolDiagnoser } = {},
): Promise<Diagnosis[]> {
  try {
    const [pools, cos, acks] = await Promise.all([
      opts.pools?.(client) ?? [],
      client.request<{ items?: OperatorLike[] }>('GET', '/apis/config.openshift.io/v1/clusteroperators'),
      adminAckFacts(client),
    ]);
    const ack = diagnoseAdminAcks(acks);
    // a target the CVO never accepted: operators at the old version are expected, only their health matters
    const operators = diagnoseOperators(cos.items ?? [], target, ack.length === 0);
    const workloads = opts.workloads === true ? await readWorkloads(client) : [];
    return [...ack, ...operators, ...workloads, ...pools];
  } catch {
    return [];
  }
}

async function readWorkloads(client: KubeClient): Promise<Diagnosis[]> {
  const list = async <T>(path: string): Promise<T[]> =>
    (await client.request<{ items?: T[] }>('GET', path)).items ?? [];
  const [deployments, daemonSets, pods] = await Promise.all([
    list<WorkloadLike>('/apis/apps/v1/deployments'),
    list<WorkloadLike>('/apis/apps/v1/daemonsets'),
    list<PodLike>('/api/v1/pods'),
  ]);
  return diagnoseWorkloads(deployments, daemonSets, pods);
}

/** Text lines of a diagnosis (for the report). */
export function formatDiagnosis(ds: readonly Diagnosis[], indent = '  '): string[] {
  const out: string[] = [];
  for (const d of ds) {
    out.push(`${indent}${d.subject}: ${d.summary}`);
    for (const f of d.findings) {
      if (f.message !== d.summary) out.push(`${indent}  - ${f.message}`);
      if (f.action !== undefined) out.push(`${indent}    what to do: ${f.action}`);
    }
  }
  return out;
}
