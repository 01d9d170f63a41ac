/**
 * `keelson upgrade status` in the layout of `oc adm upgrade status` (openshift/oc pkg/cli/admin/upgrade/status/
 * status.go `Run`): "= Control Plane =" (assessment, target, updating operators, completion, duration with the
 * estimated time remaining, operator health), the control-plane node table, "= Worker Upgrade =" (pool table and
 * one node table per pool), "= Update Health =". `--details` as oc: none, all, nodes, health, operators. Pure.
 */
import type { Node } from '@keelson/api';
import { findCondition, type ClusterOperator, type ClusterVersion, type MachineConfigPool } from './api-types.js';
import { goPercent0, ocShortDuration, DURATION } from './go-duration.js';
import { assessControlPlane, isMultiArchMigration, type ControlPlaneStatus } from './status-controlplane.js';
import { assessUpdateInsights, formatUpdateHealth, type UpdateHealth, type UpdateInsight } from './status-insights.js';
import { AlertsParseError } from './recommend-alerts.js';
import { alertInsights } from './status-alerts.js';
import { assessNodes, assessPool, NODE_ANNOTATIONS, poolOfNode, type PoolStatus } from './status-nodes.js';
import { tabulate } from './text.js';

/** Values of `--details`. */
export const DETAILS = ['none', 'all', 'nodes', 'health', 'operators'] as const;
export type Details = (typeof DETAILS)[number];

/** Everything the command reads. */
export interface OcStatusInput {
  clusterVersion: ClusterVersion;
  operators: readonly ClusterOperator[];
  pools: readonly MachineConfigPool[];
  nodes: readonly Node[];
  /** MachineConfig name → its `release-image-version` annotation. */
  mcVersions: ReadonlyMap<string, string>;
  /** See {@link ControlPlaneInput.mcoImage}. */
  mcoImage?: string;
  now: number;
  /**
   * The cluster's alerts (Prometheus `/api/v1/alerts` JSON), or why they could not be fetched; absent: alerts are
   * not considered at all.
   */
  alerts?: { json: string } | { error: string };
  /** With `--watch`: the previous round's control plane, so the completion never goes backwards for one target. */
  previous?: OcStatus;
}

/** The assessment of the cluster's update. */
export interface OcStatus {
  /** False: oc prints "The cluster is not updating." and nothing else. */
  updating: boolean;
  controlPlane: ControlPlaneStatus;
  controlPlanePool?: PoolStatus;
  workerPools: PoolStatus[];
  health: UpdateHealth;
  now: number;
  /** Lines oc prints straight to stdout before the status (alerts that could not be fetched or read). */
  notes: string[];
}

/** A refusal with oc's text. */
export class OcStatusError extends Error {}

/** The MachineConfig names the node tables need (current and desired config of every node). */
export function machineConfigNames(nodes: readonly Node[]): string[] {
  const names = new Set<string>();
  for (const n of nodes)
    for (const k of [NODE_ANNOTATIONS.currentConfig, NODE_ANNOTATIONS.desiredConfig]) {
      const v = n.metadata.annotations?.[k];
      if (v !== undefined && v !== '') names.add(v);
    }
  return [...names];
}

/** Assesses the update as oc does; throws {@link OcStatusError} with oc's texts when it cannot. */
export function computeOcStatus(input: OcStatusInput): OcStatus {
  const cv = input.clusterVersion;
  if (input.operators.length === 0)
    throw new OcStatusError(
      'no cluster operator information available - you must be connected to an OpenShift version 4 server',
    );
  const progressing = findCondition(cv.status?.conditions, 'Progressing');
  if (progressing === undefined)
    throw new OcStatusError('no current Progressing info, see `oc describe clusterversion` for more details.\n');
  const history = cv.status?.history ?? [];
  const migrating = isMultiArchMigration(history) && progressing.status === 'True';
  const byPool = new Map<string, Node[]>();
  for (const n of input.nodes) {
    const p = poolOfNode(input.pools, n);
    byPool.set(p, [...(byPool.get(p) ?? []), n]);
  }
  const insights: UpdateInsight[] = [];
  const workerPools: PoolStatus[] = [];
  let controlPlanePool: PoolStatus | undefined;
  for (const pool of input.pools) {
    const assessed = assessNodes({
      clusterVersion: cv,
      pool,
      nodes: byPool.get(pool.metadata.name ?? '') ?? [],
      mcVersions: input.mcVersions,
      multiArchMigrationInProgress: migrating,
      now: input.now,
    });
    const p = assessPool(pool, assessed.nodes);
    insights.push(...assessed.insights, ...p.insights);
    if (p.pool.name === 'master') controlPlanePool = p.pool;
    else workerPools.push(p.pool);
  }
  const workerOutdated = workerPools.some((p) => p.overview.total > 0 && p.completion !== 100);
  const started = history[0]?.startedTime ?? progressing.lastTransitionTime;
  const updatingFor = started ? Math.round((input.now - Date.parse(started)) / 1000) * 1000 : 0;
  const cp = assessControlPlane({
    clusterVersion: cv,
    operators: input.operators,
    ...(input.mcoImage !== undefined ? { mcoImage: input.mcoImage } : {}),
    now: input.now,
  });
  const prev = input.previous?.controlPlane;
  if (prev && prev.target.version === cp.status.target.version && prev.completion > cp.status.completion)
    cp.status.completion = prev.completion;
  const notes: string[] = [];
  if (input.alerts !== undefined && started) insights.push(...alertInsightsOrNote(input.alerts, started, notes));
  insights.push(...cp.insights);
  const out: OcStatus = {
    notes,
    updating: progressing.status === 'True' || workerOutdated,
    controlPlane: cp.status,
    workerPools,
    health: assessUpdateInsights(insights, updatingFor, input.now),
    now: input.now,
  };
  if (controlPlanePool !== undefined) out.controlPlanePool = controlPlanePool;
  if (!out.updating) out.notes = []; // oc looks at alerts only for a cluster that is updating
  return out;
}

/** oc prints these with fmt.Println (operands joined by a space; the second text keeps its literal %w). */
function alertInsightsOrNote(
  alerts: { json: string } | { error: string },
  startedAt: string,
  notes: string[],
): UpdateInsight[] {
  if ('error' in alerts) {
    notes.push(`Unable to fetch alerts, ignoring alerts in 'Update Health':  ${alerts.error}`);
    return [];
  }
  try {
    return alertInsights(alerts.json, startedAt);
  } catch (e) {
    if (!(e instanceof AlertsParseError)) throw e;
    notes.push(`Ignoring alerts in 'Update Health'. Error unmarshaling alerts: %w ${e.message}`);
    return [];
  }
}

function targetText(t: ControlPlaneStatus['target']): string {
  if (t.isTargetInstall) return `${t.version} (a new install)`;
  if (t.isPreviousPartial) return `${t.version} (from incomplete ${t.previous})`;
  if (t.isMultiArchMigration) return `${t.version} to Multi-Architecture`;
  return `${t.version} (from ${t.previous})`;
}

function vagueUnder(actual: number, estimated: number, multiArch: boolean): string {
  if (multiArch) return 'N/A for Multi-Architecture Migration';
  if (actual < -10 * DURATION.MINUTE) return `N/A; estimate duration was ${ocShortDuration(estimated)}`;
  if (actual < 10 * DURATION.MINUTE) return `<${ocShortDuration(10 * DURATION.MINUTE)}`;
  return ocShortDuration(actual);
}

function operatorHealth(o: ControlPlaneStatus['operators']): string {
  const parts = [`${o.total - o.unavailable - o.degraded} Healthy`];
  if (o.unavailable > 0) parts.push(`${o.unavailable} Unavailable`);
  if (o.degraded > 0) parts.push(`${o.degraded} Available but degraded`);
  return parts.join(', ');
}

function ellipsis(s: string, max: number): string {
  const chars = Array.from(s); // runes, as Go's []rune(s)
  return chars.length <= max ? s : `${chars.slice(0, Math.max(max, 3) - 3).join('')}...`;
}

function rfc3339(iso: string): string {
  return new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The "= Control Plane =" block (and oc's "Updating Cluster Operators" table with `operators` details). */
export function formatControlPlane(s: OcStatus, detailed: boolean): string {
  const d = s.controlPlane;
  const o = d.operators;
  if (o.updated === o.total)
    return `= Control Plane =\nUpdate to ${d.target.version} successfully completed at ${rfc3339(d.completionAt)} (duration: ${ocShortDuration(d.durationMs)})\n`;
  const lines = ['= Control Plane =', `Assessment:      ${d.assessment}`, `Target Version:  ${targetText(d.target)}`];
  if (o.updating.length > 0) lines.push(`Updating:        ${o.updating.map((u) => u.name).join(', ')}`);
  lines.push(
    `Completion:      ${goPercent0(d.completion)}% (${o.updated} operators updated, ${o.updating.length} updating, ${o.waiting} waiting)`,
    `Duration:        ${ocShortDuration(d.durationMs)}${d.estTimeToCompleteMs !== 0 ? ` (Est. Time Remaining: ${vagueUnder(d.estTimeToCompleteMs, d.estDurationMs, d.target.isMultiArchMigration)})` : ''}`,
    `Operator Health: ${operatorHealth(o)}`,
  );
  let text = `${lines.join('\n')}\n`;
  if (detailed && o.updating.length > 0) {
    const rows: string[][] = [['NAME', 'SINCE', 'REASON', 'MESSAGE']];
    for (const u of o.updating) {
      const since = u.since === undefined ? 'now' : ocShortDuration(s.now - Date.parse(u.since));
      u.message.split('\n').forEach((line, i) => {
        rows.push(i === 0 ? [u.name, since, ellipsis(u.reason || '-', 20), line] : ['', '', '', line]);
      });
    }
    text += `\nUpdating Cluster Operators\n${tabulate(rows, 0, 3).join('\n')}\n`;
  }
  return text;
}

function omittedSummary(rest: PoolStatus['nodes']): string | undefined {
  const shown = rest.filter((n) => !n.isDegraded && (!n.isUnavailable || n.isUpdating));
  if (shown.length === 0) return undefined;
  const count = (f: (n: (typeof rest)[number]) => boolean): number => shown.filter(f).length;
  return `...\nOmitted additional ${shown.length} Total, ${count((n) => n.isUpdated)} Completed, ${count((n) => !n.isUnavailable)} Available, ${count((n) => n.assessment === 'Progressing')} Progressing, ${count((n) => !n.isUpdated)} Outdated, ${count((n) => n.phase === 'Draining')} Draining, ${count((n) => n.phase === 'Paused')} Excluded, and 0 Degraded nodes.\nPass along --details=nodes to see all information.\n`;
}

/** A pool's node table (`WriteNodes`): at most 10 healthy rows unless `detailed`. */
export function formatPoolNodes(pool: PoolStatus, detailed: boolean): string {
  if (pool.nodes.length === 0) return '';
  let text: string;
  if (pool.name === 'master') {
    if (pool.completion === 100)
      return `\nAll control plane nodes successfully updated to ${pool.nodes[0]?.version ?? ''}\n`;
    text = '\nControl Plane Nodes';
  } else text = `\nWorker Pool Nodes: ${pool.name}`;
  const rows: string[][] = [['NAME', 'ASSESSMENT', 'PHASE', 'VERSION', 'EST', 'MESSAGE']];
  const omitted: PoolStatus['nodes'] = [];
  pool.nodes.forEach((n, i) => {
    if (!detailed && i >= 10 && !n.isDegraded && (!n.isUnavailable || n.isUpdating)) {
      omitted.push(n);
      return;
    }
    rows.push([n.name, n.assessment, n.phase, n.version || '?', n.estimate, n.message]);
  });
  text += `\n${tabulate(rows, 0, 3).join('\n')}\n`;
  return text + (omittedSummary(omitted) ?? '');
}

/** The worker pool table (`writePools`). */
export function formatWorkerPools(pools: readonly PoolStatus[]): string {
  const rows: string[][] = [['WORKER POOL', 'ASSESSMENT', 'COMPLETION', 'STATUS']];
  for (const p of pools) {
    const o = p.overview;
    if (p.nodes.length === 0) {
      rows.push([p.name, 'Empty', '', `${o.total} Total`]);
      continue;
    }
    let status = `${o.available} Available, ${o.progressing} Progressing, ${o.draining} Draining`;
    if (o.excluded > 0) status += `, ${o.excluded} Excluded`;
    if (o.degraded > 0) status += `, ${o.degraded} Degraded`;
    rows.push([p.name, p.assessment, `${goPercent0(p.completion)}% (${o.total - o.outdated}/${o.total})`, status]);
  }
  return `\n${tabulate(rows, 0, 3).join('\n')}\n`;
}

/** The whole text of `oc adm upgrade status [--details=…]`. */
export function formatOcStatus(s: OcStatus, details: Details = 'none'): string {
  if (!s.updating) return 'The cluster is not updating.\n';
  const on = (what: Details): boolean => details === 'all' || details === what;
  let text = formatControlPlane(s, on('operators'));
  if (s.controlPlanePool) text += formatPoolNodes(s.controlPlanePool, on('nodes'));
  if (s.workerPools.some((p) => p.nodes.length > 0)) {
    text += '\n= Worker Upgrade =\n';
    text += formatWorkerPools(s.workerPools);
    for (const p of s.workerPools) text += formatPoolNodes(p, on('nodes'));
  }
  text += `\n${formatUpdateHealth(s.health, on('health')).join('\n')}\n`;
  return text;
}
