/**
 * Per-node and per-pool assessment of `keelson upgrade status`, as `oc adm upgrade status` computes it
 * (openshift/oc pkg/cli/admin/upgrade/status/workerpool.go `assessNodesStatus`, `calculatePhase`,
 * `assessMachineConfigPool`, and mco/layered_node_state.go `isNodeUnavailable`/`checkNodeReady`). Pure.
 * Layered (on-cluster image) pools are treated as not layered: a node with a desiredImage annotation is not
 * "desired equal to pool".
 */
import { labelSelectorMatches, type Node } from '@keelson/api';
import type { ClusterVersion, MachineConfigPool } from './api-types.js';
import { type UpdateInsight } from './status-insights.js';

const MCO = 'machineconfiguration.openshift.io/';
export const NODE_ANNOTATIONS = {
  currentConfig: `${MCO}currentConfig`,
  desiredConfig: `${MCO}desiredConfig`,
  currentImage: `${MCO}currentImage`,
  desiredImage: `${MCO}desiredImage`,
  state: `${MCO}state`,
  reason: `${MCO}reason`,
  desiredDrain: `${MCO}desiredDrain`,
  lastAppliedDrain: `${MCO}lastAppliedDrain`,
  releaseImageVersion: `${MCO}release-image-version`,
} as const;

/** oc's node phases, in its sort order. */
export const NODE_PHASES = ['Draining', 'Updating', 'Rebooting', 'Paused', 'Pending', 'Updated'] as const;
export type NodePhase = (typeof NODE_PHASES)[number];
/** oc's node assessments, in its sort order. */
export const NODE_ASSESSMENTS = [
  'Degraded',
  'Unavailable',
  'Progressing',
  'Excluded',
  'Outdated',
  'Completed',
] as const;
export type NodeAssessment = (typeof NODE_ASSESSMENTS)[number];

/** One row of a node table. */
export interface NodeStatus {
  name: string;
  assessment: NodeAssessment;
  phase: NodePhase;
  /** OpenShift version of its current MachineConfig ('' when unknown). */
  version: string;
  /** `?`, `-`, `+5m`, `+10m`. */
  estimate: string;
  message: string;
  isUnavailable: boolean;
  isDegraded: boolean;
  isUpdating: boolean;
  isUpdated: boolean;
}

/** One MachineConfigPool as oc summarises it. */
export interface PoolStatus {
  name: string;
  assessment: 'Completed' | 'Pending' | 'Degraded' | 'Excluded' | 'Progressing';
  /** Updated nodes / nodes × 100 (NaN for an empty pool, as oc). */
  completion: number;
  overview: {
    total: number;
    available: number;
    progressing: number;
    outdated: number;
    draining: number;
    excluded: number;
    degraded: number;
  };
  nodes: NodeStatus[];
}

interface BadCondition {
  reason: string;
  message: string;
  since?: string;
}

const NOT_READY = 'Not ready';
const DISK_PRESSURE = 'Disk pressure';
const NETWORK_UNAVAILABLE = 'Network unavailable';
const UNSCHEDULABLE = 'Node is marked unschedulable';
const MCD_WORKING = 'Machine Config Daemon is processing the node';

function annotations(node: Node): Record<string, string> {
  return node.metadata.annotations ?? {};
}

/** `checkNodeReady`: the reasons a node is not schedulable (empty when ready). */
function readinessProblems(node: Node): BadCondition[] {
  const out: BadCondition[] = [];
  for (const c of node.status?.conditions ?? []) {
    const b = { message: c.message ?? '', ...(c.lastTransitionTime ? { since: c.lastTransitionTime } : {}) };
    if (c.type === 'Ready' && c.status !== 'True') out.push({ ...b, reason: NOT_READY });
    if (c.type === 'DiskPressure' && c.status !== 'False') out.push({ ...b, reason: DISK_PRESSURE });
    if (c.type === 'NetworkUnavailable' && c.status !== 'False') out.push({ ...b, reason: NETWORK_UNAVAILABLE });
  }
  if (node.spec?.unschedulable === true) out.push({ reason: UNSCHEDULABLE, message: '' });
  return out;
}

function isNodeDone(a: Record<string, string>): boolean {
  const cur = a[NODE_ANNOTATIONS.currentConfig] ?? '';
  const des = a[NODE_ANNOTATIONS.desiredConfig] ?? '';
  if (cur === '' || des === '' || cur !== des) return false;
  const hasDes = NODE_ANNOTATIONS.desiredImage in a;
  const hasCur = NODE_ANNOTATIONS.currentImage in a;
  if (hasDes || hasCur) {
    const di = a[NODE_ANNOTATIONS.desiredImage] ?? '';
    const ci = a[NODE_ANNOTATIONS.currentImage] ?? '';
    if (di === '' || ci === '' || di !== ci) return false;
  }
  return a[NODE_ANNOTATIONS.state] === 'Done';
}

/** `isNodeUnavailable` + `isDesiredImageEqualToPool` (not layered): unavailable and the reasons collected. */
function unavailability(node: Node): { unavailable: boolean; problems: BadCondition[] } {
  const a = annotations(node);
  const problems = readinessProblems(node);
  let unavailable: boolean;
  if (problems.length > 0) unavailable = true;
  else if (isNodeDone(a)) unavailable = false;
  else if (a[NODE_ANNOTATIONS.state] === 'Degraded' || a[NODE_ANNOTATIONS.state] === 'Unreconcilable')
    unavailable = false;
  else {
    problems.push({ reason: MCD_WORKING, message: '' });
    unavailable = true;
  }
  const desiredImage = a[NODE_ANNOTATIONS.desiredImage] ?? '';
  return { unavailable: unavailable && desiredImage === '', problems };
}

/** `SeriouslyUnavailable`: a reason an admin has to act on (short NotReady/pressure blips are not). */
function seriouslyUnavailable(problems: readonly BadCondition[], now: number): boolean {
  return problems.some((c) => {
    if (c.reason === UNSCHEDULABLE || c.reason === MCD_WORKING) return false;
    const age = c.since === undefined ? Infinity : now - Date.parse(c.since);
    if (c.reason === NOT_READY && age < 5 * 60_000) return false;
    if ((c.reason === DISK_PRESSURE || c.reason === NETWORK_UNAVAILABLE) && age < 60_000) return false;
    return true;
  });
}

function unavailableSince(problems: readonly BadCondition[]): string | undefined {
  let best: number | undefined;
  let iso: string | undefined;
  for (const c of problems) {
    if (c.since === undefined) continue;
    const t = Date.parse(c.since);
    if (best === undefined || t < best) {
      best = t;
      iso = c.since;
    }
  }
  return iso;
}

function unavailableMessage(node: string, problems: readonly BadCondition[]): string {
  return problems
    .map((c) =>
      c.reason === NOT_READY
        ? `Node ${node} is not ready`
        : c.reason === DISK_PRESSURE
          ? `Node ${node} has disk pressure`
          : c.reason === NETWORK_UNAVAILABLE
            ? `Node ${node} has unavailable network`
            : c.reason,
    )
    .join(' | ');
}

function unavailableDescription(problems: readonly BadCondition[]): string {
  const q = (s: string): string => JSON.stringify(s);
  return problems
    .map((c) =>
      c.reason === NOT_READY
        ? `Node has a Ready!=True condition with Reason ${q(NOT_READY)} and message ${q(c.message)}`
        : c.reason === DISK_PRESSURE
          ? `Node has a DiskPressure!=False condition with Reason ${q(DISK_PRESSURE)} and message ${q(c.message)}`
          : c.reason === NETWORK_UNAVAILABLE
            ? `Node has a NetworkUnavailable!=False condition with Reason ${q(NETWORK_UNAVAILABLE)} and message ${q(c.message)}`
            : c.reason,
    )
    .join(' | ');
}

/** `whichPool`: master first, then custom pools (by name), then worker; '' when none selects the node. */
export function poolOfNode(pools: readonly MachineConfigPool[], node: Node): string {
  const labels = node.metadata.labels ?? {};
  const sel = (name: string): boolean => {
    const p = pools.find((x) => x.metadata.name === name);
    return p !== undefined && labelSelectorMatches(p.spec.nodeSelector ?? null, labels);
  };
  if (sel('master')) return 'master';
  const custom = pools
    .map((p) => p.metadata.name ?? '')
    .filter((n) => n !== 'master' && n !== 'worker')
    .sort();
  for (const name of custom) if (sel(name)) return name;
  if (sel('worker')) return 'worker';
  return '';
}

function isDraining(a: Record<string, string>, isUpdating: boolean): boolean {
  const desired = a[NODE_ANNOTATIONS.desiredDrain] ?? '';
  const applied = a[NODE_ANNOTATIONS.lastAppliedDrain] ?? '';
  if (desired === '' || applied === '') return false;
  if (desired !== applied && desired.split('-')[0] === 'drain') return true;
  return isUpdating && a[NODE_ANNOTATIONS.state] === 'Done';
}

function phaseOf(pool: MachineConfigPool, a: Record<string, string>, updating: boolean, updated: boolean): NodePhase {
  if (updating && isDraining(a, updating)) return 'Draining';
  if (updating) {
    const s = a[NODE_ANNOTATIONS.state];
    return s === 'Rebooting' ? 'Rebooting' : s === 'Done' ? 'Updated' : 'Updating';
  }
  if (updated) return 'Updated';
  if (pool.spec.paused === true) return 'Paused';
  return 'Pending';
}

const PHASE_ASSESSMENT: Record<NodePhase, [NodeAssessment, string]> = {
  Paused: ['Excluded', '-'],
  Pending: ['Outdated', '?'],
  Draining: ['Progressing', '+10m'],
  Updating: ['Progressing', '+5m'],
  Rebooting: ['Progressing', '+5m'],
  Updated: ['Completed', '-'],
};

/** What {@link assessNodes} needs. */
export interface NodesInput {
  clusterVersion: ClusterVersion;
  pool: MachineConfigPool;
  nodes: readonly Node[];
  /** MachineConfig name → its release-image-version annotation ('' when absent). */
  mcVersions: ReadonlyMap<string, string>;
  multiArchMigrationInProgress: boolean;
  now: number;
}

/** `assessNodesStatus`: the node rows of one pool (sorted as oc) and the insights they raise. */
export function assessNodes(input: NodesInput): { nodes: NodeStatus[]; insights: UpdateInsight[] } {
  const { pool } = input;
  const latest = input.clusterVersion.status?.history?.[0]?.version;
  const nodes: NodeStatus[] = [];
  const insights: UpdateInsight[] = [];
  for (const node of input.nodes) {
    const a = annotations(node);
    const name = node.metadata.name ?? '';
    const hasDesired = NODE_ANNOTATIONS.desiredConfig in a;
    const desiredConfig = a[NODE_ANNOTATIONS.desiredConfig] ?? '';
    const current = input.mcVersions.get(a[NODE_ANNOTATIONS.currentConfig] ?? '') ?? '';
    const desired = input.mcVersions.get(desiredConfig) ?? '';
    const { unavailable, problems } = unavailability(node);
    const state = a[NODE_ANNOTATIONS.state] ?? '';
    const degraded = desiredConfig !== '' && (state === 'Degraded' || state === 'Unreconcilable');
    const annotationMatched = a[NODE_ANNOTATIONS.currentConfig] === desiredConfig;
    const desiredUpdated = desiredConfig === (pool.spec.configuration?.name ?? '');
    const updated =
      current !== '' &&
      latest === current &&
      (!input.multiArchMigrationInProgress || !hasDesired || (annotationMatched && desiredUpdated));
    const updating =
      !updated && current !== '' && desired !== '' && latest === desired && !annotationMatched && desiredUpdated;
    const phase = phaseOf(pool, a, updating, updated);
    let [assessment, estimate] = PHASE_ASSESSMENT[phase];
    let message = '';
    let summary = '';
    let description = '';
    if (unavailable && !updating) {
      assessment = 'Unavailable';
      message = problems.map((c) => c.reason).join(' | ');
      summary = unavailableMessage(name, problems);
      description = unavailableDescription(problems);
      estimate = updated ? '-' : '?';
    }
    if (degraded) {
      assessment = 'Degraded';
      message = a[NODE_ANNOTATIONS.reason] ?? '';
      description = message;
      estimate = updated ? '-' : '?';
    }
    insights.push(
      ...nodeInsights(pool.metadata.name ?? '', name, {
        summary,
        description,
        unavailable: seriouslyUnavailable(problems, input.now),
        updating,
        degraded,
        since: unavailableSince(problems),
      }),
    );
    nodes.push({
      name,
      assessment,
      phase,
      version: current,
      estimate,
      message: name.length < 8 ? message : message.replaceAll(name, '<node>'),
      isUnavailable: unavailable,
      isDegraded: degraded,
      isUpdating: updating,
      isUpdated: updated,
    });
  }
  nodes.sort(
    (x, y) =>
      NODE_ASSESSMENTS.indexOf(x.assessment) - NODE_ASSESSMENTS.indexOf(y.assessment) ||
      NODE_PHASES.indexOf(x.phase) - NODE_PHASES.indexOf(y.phase) ||
      (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
  );
  return { nodes, insights };
}

const MCO_DOC =
  'https://docs.openshift.com/container-platform/latest/post_installation_configuration/machine-configuration-tasks.html#understanding-the-machine-config-operator';

function nodeInsights(
  pool: string,
  node: string,
  d: {
    summary: string;
    description: string;
    unavailable: boolean;
    updating: boolean;
    degraded: boolean;
    since: string | undefined;
  },
): UpdateInsight[] {
  const scope = pool === 'master' ? 'ControlPlane' : 'WorkerPool';
  const resources = [{ group: '', kind: 'Node', name: node }];
  const out: UpdateInsight[] = [];
  if (d.unavailable && !d.updating)
    out.push({
      ...(d.since !== undefined ? { startedAt: d.since } : {}),
      scope,
      resources,
      level: 'Warning',
      impact: 'Update Speed',
      summary: d.summary,
      description: d.description,
      reference: MCO_DOC,
    });
  if (d.degraded)
    out.push({
      scope,
      resources,
      level: 'Error',
      impact: 'Update Stalled',
      summary: `Node ${node} is degraded`,
      description: d.description,
      reference: MCO_DOC,
    });
  return out;
}

/** `assessMachineConfigPool`: the pool summary from its node rows, and the paused-pool insight. */
export function assessPool(
  pool: MachineConfigPool,
  nodes: NodeStatus[],
): { pool: PoolStatus; insights: UpdateInsight[] } {
  const o = { total: nodes.length, available: 0, progressing: 0, outdated: 0, draining: 0, excluded: 0, degraded: 0 };
  let updated = 0;
  let pending = 0;
  for (const n of nodes) {
    if (!n.isUnavailable) o.available++;
    if (n.isDegraded) o.degraded++;
    if (n.phase === 'Updated') {
      updated++;
      continue;
    }
    o.outdated++;
    if (n.phase === 'Paused') o.excluded++;
    else if (n.phase === 'Pending') pending++;
    else {
      if (n.phase === 'Draining') o.draining++;
      if (!n.isDegraded) o.progressing++;
    }
  }
  const assessment: PoolStatus['assessment'] =
    updated === nodes.length
      ? 'Completed'
      : pending === nodes.length
        ? 'Pending'
        : o.degraded > 0
          ? 'Degraded'
          : o.excluded > 0
            ? 'Excluded'
            : 'Progressing';
  const name = pool.metadata.name ?? '';
  const insights: UpdateInsight[] = [];
  if (o.excluded > 0 && pool.spec.paused === true)
    insights.push({
      scope: 'WorkerPool',
      resources: [{ group: 'machineconfiguration.openshift.io', kind: 'MachineConfigPool', name }],
      level: 'Warning',
      impact: 'Update Stalled',
      summary: `Outdated nodes in a paused pool '${name}' will not be updated`,
      description:
        'Pool is paused, which stops all changes to the nodes in the pool, including updates. The nodes will not be updated until the pool is unpaused by the administrator.',
      reference:
        'https://docs.openshift.com/container-platform/latest/support/troubleshooting/troubleshooting-operator-issues.html#troubleshooting-disabling-autoreboot-mco_troubleshooting-operator-issues',
    });
  return {
    pool: { name, assessment, completion: (updated / nodes.length) * 100, overview: o, nodes },
    insights,
  };
}
