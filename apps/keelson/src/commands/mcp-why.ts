/**
 * `keelson mcp why`: what a MachineConfigPool or a node waits on, in plain words, from a snapshot of the cluster
 * (pure: the command gathers the snapshot, these functions explain it).
 */
import {
  compileLabelSelector,
  type MachineConfigNode,
  type MachineConfigPool,
  type Node,
  type Pod,
  type PodDisruptionBudget,
} from '@keelson/api';
import {
  NodeAnnotations,
  NodePoolAssignmentError,
  computeMaxUnavailable,
  getPoolsForNode,
  isNodeDegraded,
  isNodeReady,
  isNodeUnavailable,
  isNodeUpdated,
  nodesForPool,
} from '@keelson/machineconfig';

/** What `why` looks at. */
export interface ClusterSnapshot {
  pools: MachineConfigPool[];
  nodes: Node[];
  /** Pods per node name (only for nodes that are draining). */
  podsByNode: Map<string, Pod[]>;
  pdbs: PodDisruptionBudget[];
  /** MachineConfigNodes (empty or absent on a cluster that does not serve them). */
  mcns?: MachineConfigNode[];
}

/** One finding: a stable code, the sentence, and what to do. */
export interface Finding {
  code:
    | 'UP_TO_DATE'
    | 'PAUSED_PENDING'
    | 'PAUSED'
    | 'RENDER_DEGRADED'
    | 'NOT_RENDERED'
    | 'NODE_WAITING'
    | 'NODE_WORKING'
    | 'NODE_DRAINING'
    | 'DRAIN_BLOCKED_BY_PDB'
    | 'NODE_REBOOTING'
    | 'NODE_NOT_READY'
    | 'NODE_DEGRADED'
    | 'ON_DISK_MISMATCH'
    | 'OS_UPDATE_FAILED'
    | 'NODE_UNRECONCILABLE'
    | 'NODE_MULTIPLE_CUSTOM_POOLS'
    | 'NODE_NO_POOL'
    | 'NODE_UP_TO_DATE'
    | 'NODE_UNCORDONING'
    | 'NODE_MCN';
  message: string;
  node?: string;
  action?: string;
}

/** The explanation of one pool or node. */
export interface Explanation {
  kind: 'pool' | 'node';
  name: string;
  summary: string;
  findings: Finding[];
}

const ann = (n: Node, k: string): string => n.metadata.annotations?.[k] ?? '';
const cond = (p: MachineConfigPool, t: string): { status?: string; message?: string } | undefined =>
  p.status?.conditions?.find((c) => c.type === t);

function blockingPdbs(node: Node, snap: ClusterSnapshot): Array<{ pdb: PodDisruptionBudget; pod: Pod }> {
  const out: Array<{ pdb: PodDisruptionBudget; pod: Pod }> = [];
  for (const pod of snap.podsByNode.get(node.metadata.name ?? '') ?? []) {
    for (const pdb of snap.pdbs) {
      if (pdb.metadata.namespace !== pod.metadata.namespace) continue;
      const sel = pdb.spec?.selector;
      if (sel === undefined || !compileLabelSelector(sel).matches(pod.metadata.labels)) continue;
      if ((pdb.status?.disruptionsAllowed ?? 0) <= 0) out.push({ pdb, pod });
    }
  }
  return out;
}

/** Explains one node's state relative to its pool target. */
export function nodeFindings(node: Node, pool: MachineConfigPool | undefined, snap: ClusterSnapshot): Finding[] {
  const name = node.metadata.name ?? '';
  const target = pool?.spec.configuration?.name ?? '';
  const desired = ann(node, NodeAnnotations.desiredConfig);
  const current = ann(node, NodeAnnotations.currentConfig);
  const state = ann(node, NodeAnnotations.state);
  const reason = ann(node, NodeAnnotations.reason);
  const dd = ann(node, NodeAnnotations.desiredDrain);
  const la = ann(node, NodeAnnotations.lastAppliedDrain);
  if (state === 'Degraded' || state === 'Unreconcilable')
    return degradedFindings(name, state, reason, current, desired);
  if (dd.startsWith('drain-') && dd !== la) return drainFindings(node, name, dd, snap);
  if (!isNodeReady(node))
    return notReadyFindings(node, name, state === 'Working' && dd.startsWith('drain-') && dd === la, desired);
  if (dd.startsWith('uncordon-') && dd !== la)
    return [
      { code: 'NODE_UNCORDONING', node: name, message: `node ${name} finished ${desired} and waits to be uncordoned` },
    ];
  if (state === 'Working')
    return [{ code: 'NODE_WORKING', node: name, message: `node ${name} is updating from ${current} to ${desired}` }];
  if (pool && isNodeUpdated(node, { config: target }))
    return [{ code: 'NODE_UP_TO_DATE', node: name, message: `node ${name} runs ${target}` }];
  if (desired !== '' && desired !== current)
    return [
      {
        code: 'NODE_WORKING',
        node: name,
        message: `node ${name} was told to move to ${desired} and the daemon has not started yet`,
      },
    ];
  return [
    {
      code: 'NODE_WAITING',
      node: name,
      message: `node ${name} still runs ${current || '(unknown)'} and waits its turn for ${target}`,
    },
  ];
}

/** Explains a pool. */
export function explainPool(snap: ClusterSnapshot, name: string): Explanation | undefined {
  const pool = snap.pools.find((p) => p.metadata.name === name);
  if (!pool) return undefined;
  const target = pool.spec.configuration?.name ?? '';
  const findings: Finding[] = [];
  const rd = cond(pool, 'RenderDegraded');
  if (rd?.status === 'True')
    findings.push({
      code: 'RENDER_DEGRADED',
      message: rd.message ?? 'render failed',
      action: 'fix or delete the MachineConfig the message names; the pool renders again automatically',
    });
  if (target === '') {
    findings.push({
      code: 'NOT_RENDERED',
      message: `pool ${name} has no rendered configuration yet`,
      action: 'check that MachineConfigs match its machineConfigSelector and that the machine-config-controller runs',
    });
    return { kind: 'pool', name, summary: findings.map((f) => f.message).join('; '), findings };
  }
  const nodes = nodesForPool(snap.pools, pool, snap.nodes);
  for (const n of snap.nodes) {
    if (!compileLabelSelector(pool.spec.nodeSelector).matches(n.metadata.labels)) continue;
    try {
      getPoolsForNode(snap.pools, n);
    } catch (e) {
      if (e instanceof NodePoolAssignmentError)
        findings.push({
          code: 'NODE_MULTIPLE_CUSTOM_POOLS',
          node: n.metadata.name ?? '',
          message: e.message,
          action: `label node ${n.metadata.name ?? ''} for one custom pool only (${e.pools.join(', ')}); until then the MCO ignores it`,
        });
    }
  }
  const pending = nodes.filter((n) => !isNodeUpdated(n, { config: target }));
  if (pool.spec.paused === true) {
    if (pending.length > 0 || pool.status?.configuration?.name !== target) {
      findings.push({
        code: 'PAUSED_PENDING',
        message: `pool ${name} is paused: ${String(pending.length)} of ${String(nodes.length)} nodes will not move to ${target} until it is unpaused`,
        action: `kubectl patch mcp ${name} --type merge -p '{"spec":{"paused":false}}'`,
      });
    } else findings.push({ code: 'PAUSED', message: `pool ${name} is paused (no pending configuration)` });
  }
  let max: number | undefined;
  try {
    max = computeMaxUnavailable(name, pool.spec.maxUnavailable, nodes.length);
  } catch {
    max = undefined;
  }
  const unavailable = nodes.filter(isNodeUnavailable).length;
  for (const n of pending) findings.push(...nodeFindings(n, pool, snap));
  if (pending.length === 0 && pool.status?.configuration?.name === target && rd?.status !== 'True') {
    findings.push({ code: 'UP_TO_DATE', message: `all ${String(nodes.length)} nodes of pool ${name} run ${target}` });
  }
  const waiting = findings.filter((f) => f.code === 'NODE_WAITING').length;
  const summary =
    findings.find((f) => f.code === 'UP_TO_DATE')?.message ??
    `pool ${name} targets ${target}: ${String(nodes.length - pending.length)}/${String(nodes.length)} nodes updated, ${String(unavailable)} unavailable${max !== undefined ? ` (maxUnavailable ${String(max)})` : ''}${waiting > 0 ? `, ${String(waiting)} waiting their turn` : ''}${pool.spec.paused === true ? ', paused' : ''}`;
  return { kind: 'pool', name, summary, findings };
}

/**
 * What a node's MachineConfigNode says while it updates: its latest condition that is not False (`Updated` aside),
 * e.g. `Drained=Unknown (UpdateExecutedDrained): Draining node. …`; nothing once only `Updated` is True.
 */
export function mcnFinding(mcn: MachineConfigNode | undefined): Finding | undefined {
  const active = (mcn?.status?.conditions ?? []).filter((c) => c.status !== 'False' && c.type !== 'Updated');
  if (mcn === undefined || active.length === 0) return undefined;
  const latest = active.reduce((a, b) => (b.lastTransitionTime >= a.lastTransitionTime ? b : a));
  const name = mcn.metadata.name ?? '';
  return {
    code: 'NODE_MCN',
    node: name,
    message: `MachineConfigNode ${name} (desired ${mcn.spec.configVersion.desired}, current ${mcn.status?.configVersion?.current ?? '-'}): ${latest.type}=${latest.status} (${latest.reason}): ${latest.message}`,
  };
}

/** Explains a node. */
export function explainNode(snap: ClusterSnapshot, name: string): Explanation | undefined {
  const node = snap.nodes.find((n) => n.metadata.name === name);
  if (!node) return undefined;
  let pool: MachineConfigPool | undefined;
  try {
    pool = getPoolsForNode(snap.pools, node)?.pools[0];
  } catch (e) {
    if (e instanceof NodePoolAssignmentError) {
      const f: Finding = {
        code: 'NODE_MULTIPLE_CUSTOM_POOLS',
        node: name,
        message: e.message,
        action: `label node ${name} for one custom pool only (${e.pools.join(', ')})`,
      };
      return { kind: 'node', name, summary: f.message, findings: [f] };
    }
    throw e;
  }
  if (!pool) {
    const f: Finding = {
      code: 'NODE_NO_POOL',
      node: name,
      message: `no MachineConfigPool selects node ${name}; the MCO does not manage it`,
      action: 'add a node-role label that a pool nodeSelector matches (e.g. node-role.kubernetes.io/worker)',
    };
    return { kind: 'node', name, summary: f.message, findings: [f] };
  }
  const findings = nodeFindings(node, pool, snap);
  const mcn = mcnFinding(snap.mcns?.find((m) => m.metadata.name === name));
  if (mcn !== undefined) findings.push(mcn);
  if (
    pool.spec.paused === true &&
    !isNodeUpdated(node, { config: pool.spec.configuration?.name ?? '' }) &&
    !isNodeDegraded(node)
  ) {
    findings.unshift({
      code: 'PAUSED_PENDING',
      node: name,
      message: `its pool ${pool.metadata.name ?? ''} is paused, so it will not be given ${pool.spec.configuration?.name ?? ''}`,
      action: `kubectl patch mcp ${pool.metadata.name ?? ''} --type merge -p '{"spec":{"paused":false}}'`,
    });
  }
  return {
    kind: 'node',
    name,
    summary: `node ${name} (pool ${pool.metadata.name ?? ''}): ${findings[0]?.message ?? ''}`,
    findings,
  };
}

/** Text rendering of an explanation. */
export function formatExplanation(e: Explanation): string {
  const lines = [e.summary];
  for (const f of e.findings) {
    if (f.message === e.summary) continue;
    lines.push(`- ${f.message}`);
    if (f.action) lines.push(`  what to do: ${f.action}`);
  }
  if (e.findings.length === 1 && e.findings[0]?.message === e.summary && e.findings[0].action)
    lines.push(`what to do: ${e.findings[0].action}`);
  return `${lines.join('\n')}\n`;
}

/** A Degraded or Unreconcilable node: files differ, the OS update failed, a change it cannot make, or another cause. */
function degradedFindings(name: string, state: string, reason: string, current: string, desired: string): Finding[] {
  if (reason.includes('unexpected on-disk state')) {
    return [
      {
        code: 'ON_DISK_MISMATCH',
        node: name,
        message: `node ${name} is Degraded: its files differ from ${current || 'its current config'}: ${reason}`,
        action: `restore the file content/mode the message names on ${name} (or create /run/machine-config-daemon-force on the node to skip validation once); the daemon retries and continues`,
      },
    ];
  }
  if (/rpm-ostree|failed to update OS/.test(reason)) {
    return [
      {
        code: 'OS_UPDATE_FAILED',
        node: name,
        message: `node ${name} could not update its operating system for ${desired}: ${reason}`,
        action: `check the OS image named in the MachineConfig (pull access from the node, digest) and \`rpm-ostree status\` on ${name}; the daemon rolled the OS change back and retries`,
      },
    ];
  }
  if (state === 'Unreconcilable')
    return [
      {
        code: 'NODE_UNRECONCILABLE',
        node: name,
        message: `node ${name} cannot apply ${desired}: ${reason}`,
        action:
          'remove or change the MachineConfig that makes the change (the pool then renders a config the node can reach)',
      },
    ];
  return [
    {
      code: 'NODE_DEGRADED',
      node: name,
      message: `node ${name} is Degraded while moving from ${current} to ${desired}: ${reason || '(no reason given)'}`,
      action: 'see the machine-config-daemon log on the node; fix the cause or revert the MachineConfig',
    },
  ];
}

/** A node whose drain was requested and not completed: the PodDisruptionBudgets that block it, or still draining. */
function drainFindings(node: Node, name: string, dd: string, snap: ClusterSnapshot): Finding[] {
  const blocks = blockingPdbs(node, snap);
  if (blocks.length > 0) {
    return blocks.map(({ pdb, pod }) => ({
      code: 'DRAIN_BLOCKED_BY_PDB' as const,
      node: name,
      message: `node ${name} cannot be drained: PodDisruptionBudget ${pdb.metadata.namespace ?? ''}/${pdb.metadata.name ?? ''} allows ${String(pdb.status?.disruptionsAllowed ?? 0)} disruptions and protects pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} on it`,
      action: `scale the workload up so the budget allows a disruption, relax or delete the PodDisruptionBudget, or move the pod; the drain is retried automatically`,
    }));
  }
  return [
    {
      code: 'NODE_DRAINING',
      node: name,
      message: `node ${name} is being cordoned and drained (${dd} requested, not yet completed)`,
    },
  ];
}

/** A NotReady node: rebooting into its new config (drained, daemon Working), or not ready for another cause. */
function notReadyFindings(node: Node, name: string, rebooting: boolean, desired: string): Finding[] {
  if (rebooting)
    return [
      {
        code: 'NODE_REBOOTING',
        node: name,
        message: `node ${name} is applying ${desired} and rebooting (not ready yet)`,
      },
    ];
  return [
    {
      code: 'NODE_NOT_READY',
      node: name,
      message: `node ${name} is not ready${node.spec?.unschedulable === true ? ' (cordoned)' : ''}; it counts as unavailable`,
      action:
        'check the kubelet on the node; a not-ready node holds the rollout while unavailable nodes reach maxUnavailable',
    },
  ];
}
