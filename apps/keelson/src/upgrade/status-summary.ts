/**
 * `keelson upgrade status`: a diagnosis of an update computed from ClusterVersion + ClusterOperators +
 * MachineConfigPools (what users ask for beyond `oc adm upgrade status`): per-operator progress, a completion percentage
 * that never goes backwards, what the update waits on and for how long, and the node pools. Pure.
 */
import { findCondition, type ClusterOperator, type ClusterVersion, type MachineConfigPool } from './api-types.js';

/** Where one ClusterOperator stands in the update. */
export type OperatorUpdateState = 'Updated' | 'Updating' | 'Pending' | 'Degraded' | 'Unavailable';

/** One ClusterOperator's progress. */
export interface OperatorProgress {
  name: string;
  state: OperatorUpdateState;
  /** Its reported `operator` version ('' when none). */
  version: string;
  /** From its conditions: Available=False → Unavailable, Degraded=True → Degraded, no Available → Unknown. */
  health: 'Healthy' | 'Unavailable' | 'Degraded' | 'Unknown';
  /** Since when it is in this state (ISO time), when known. */
  since?: string;
  reason?: string;
  message?: string;
}

/** One MachineConfigPool's progress. */
export interface PoolProgress {
  name: string;
  assessment: 'Completed' | 'Progressing' | 'Degraded' | 'Excluded' | 'Pending';
  percent: number;
  machines: number;
  updated: number;
  ready: number;
  unavailable: number;
  degraded: number;
  paused: boolean;
  since?: string;
  message?: string;
}

/** Something the update waits on, and for how long. */
export interface WaitItem {
  name: string;
  kind: 'ClusterOperator' | 'MachineConfigPool';
  since?: string;
  /** Milliseconds waited so far (when `since` is known). */
  waitedMs?: number;
  reason?: string;
}

/** The whole diagnosis. */
export interface UpgradeStatusSummary {
  /** `Progressing` while history[0] is Partial, `Stalled` when also Failing=True, `Completed` otherwise. */
  assessment: 'Progressing' | 'Stalled' | 'Completed';
  target: { version: string; image: string };
  /** Previous completed version, when updating from one. */
  from?: string;
  startedTime?: string;
  completionTime?: string;
  /** Milliseconds since the update started (or its duration when completed). */
  durationMs?: number;
  completion: { percent: number; updated: number; total: number; updating: number; pending: number };
  /** The CVO's own Progressing message (its "N of M done"). */
  cvoMessage: string;
  failing?: { reason: string; message: string };
  operators: OperatorProgress[];
  waitingOn: WaitItem[];
  pools: PoolProgress[];
}

/** Inputs of {@link computeUpgradeStatus}. */
export interface UpgradeStatusInput {
  clusterVersion: ClusterVersion;
  operators: readonly ClusterOperator[];
  pools: readonly MachineConfigPool[];
  /** Now, ms since epoch. */
  now: number;
  /** The previous summary of the same update (a watch): completion never drops below it. */
  previous?: UpgradeStatusSummary;
}

function operatorProgress(co: ClusterOperator, target: string, updateStart: string | undefined): OperatorProgress {
  const name = co.metadata.name ?? '';
  const conds = co.status?.conditions;
  const version = co.status?.versions?.find((v) => v.name === 'operator')?.version ?? '';
  const available = findCondition(conds, 'Available');
  const degraded = findCondition(conds, 'Degraded');
  const progressing = findCondition(conds, 'Progressing');
  const health: OperatorProgress['health'] =
    available === undefined
      ? 'Unknown'
      : available.status === 'False'
        ? 'Unavailable'
        : degraded?.status === 'True'
          ? 'Degraded'
          : 'Healthy';
  const base = { name, version, health };
  const withDetail = (
    state: OperatorUpdateState,
    c: { lastTransitionTime?: string | null; reason?: string; message?: string } | undefined,
    since?: string,
  ): OperatorProgress => {
    const p: OperatorProgress = { ...base, state };
    const s = c?.lastTransitionTime ?? since ?? undefined;
    if (s !== undefined) p.since = s;
    if (c?.reason !== undefined) p.reason = c.reason;
    if (c?.message !== undefined) p.message = c.message;
    return p;
  };
  if (available !== undefined && available.status === 'False') return withDetail('Unavailable', available);
  if (degraded?.status === 'True') return withDetail('Degraded', degraded);
  if (target !== '' && version === target) return { ...base, state: 'Updated' };
  if (progressing?.status === 'True') return withDetail('Updating', progressing);
  return withDetail('Pending', undefined, updateStart);
}

function poolProgress(p: MachineConfigPool): PoolProgress {
  const st = p.status ?? {};
  const machines = st.machineCount ?? 0;
  const updated = st.updatedMachineCount ?? 0;
  const degraded = st.degradedMachineCount ?? 0;
  const paused = p.spec?.paused === true;
  const conds = st.conditions;
  const updating = findCondition(conds, 'Updating');
  const degradedCond = findCondition(conds, 'Degraded');
  const updatedCond = findCondition(conds, 'Updated');
  let assessment: PoolProgress['assessment'] = 'Pending';
  let since = updating?.lastTransitionTime;
  let message = updating?.message;
  if (paused) assessment = 'Excluded';
  else if (degraded > 0 || degradedCond?.status === 'True') {
    assessment = 'Degraded';
    since = degradedCond?.lastTransitionTime ?? since;
    message = degradedCond?.message ?? message;
  } else if (updating?.status === 'True') assessment = 'Progressing';
  else if (updatedCond?.status === 'True' && updated >= machines) {
    assessment = 'Completed';
    since = updatedCond.lastTransitionTime;
    message = updatedCond.message;
  }
  const out: PoolProgress = {
    name: p.metadata.name ?? '',
    assessment,
    percent: machines === 0 ? (assessment === 'Completed' ? 100 : 0) : Math.floor((updated * 100) / machines),
    machines,
    updated,
    ready: st.readyMachineCount ?? 0,
    unavailable: st.unavailableMachineCount ?? 0,
    degraded,
    paused,
  };
  if (since !== undefined && since !== null) out.since = since;
  if (message !== undefined && message !== '') out.message = message;
  return out;
}

function waitedMs(since: string | undefined, now: number): number | undefined {
  if (since === undefined) return undefined;
  const t = Date.parse(since);
  return Number.isNaN(t) ? undefined : Math.max(0, now - t);
}

function waitItems(operators: readonly OperatorProgress[], pools: readonly PoolProgress[], now: number): WaitItem[] {
  const items: WaitItem[] = [];
  for (const o of operators) {
    if (o.state === 'Updated') continue;
    const w: WaitItem = { name: o.name, kind: 'ClusterOperator' };
    if (o.since !== undefined) w.since = o.since;
    const ms = waitedMs(o.since, now);
    if (ms !== undefined) w.waitedMs = ms;
    w.reason =
      o.state === 'Pending'
        ? 'has not reported the target version'
        : o.state === 'Updating'
          ? 'is updating'
          : `is ${o.state.toLowerCase()}${o.reason ? ` (${o.reason})` : ''}`;
    items.push(w);
  }
  for (const p of pools) {
    if (p.assessment === 'Completed' || p.assessment === 'Excluded') continue;
    const w: WaitItem = {
      name: p.name,
      kind: 'MachineConfigPool',
      reason: `${p.updated} of ${p.machines} machines updated${p.degraded > 0 ? `, ${p.degraded} degraded` : ''}`,
    };
    if (p.since !== undefined) w.since = p.since;
    const ms = waitedMs(p.since, now);
    if (ms !== undefined) w.waitedMs = ms;
    items.push(w);
  }
  return items.sort((a, b) => (b.waitedMs ?? -1) - (a.waitedMs ?? -1) || a.name.localeCompare(b.name));
}

/** Computes the diagnosis of the current (or last) update. */
export function computeUpgradeStatus(input: UpgradeStatusInput): UpgradeStatusSummary {
  const cv = input.clusterVersion;
  const history = cv.status?.history ?? [];
  const current = history[0];
  const target = {
    version: cv.status?.desired?.version ?? current?.version ?? '',
    image: cv.status?.desired?.image ?? current?.image ?? '',
  };
  const partial = current?.state === 'Partial';
  const failingCond = findCondition(cv.status?.conditions, 'Failing');
  const operators = input.operators
    .map((co) => operatorProgress(co, target.version, partial ? current.startedTime : undefined))
    .sort((a, b) => a.name.localeCompare(b.name));
  const pools = input.pools.map(poolProgress).sort((a, b) => a.name.localeCompare(b.name));
  const updated = operators.filter((o) => o.state === 'Updated').length;
  const total = operators.length;
  let percent = total === 0 ? (partial ? 0 : 100) : Math.floor((updated * 100) / total);
  const prev = input.previous;
  if (prev && prev.target.version === target.version && prev.target.image === target.image)
    percent = Math.max(percent, prev.completion.percent);
  const summary: UpgradeStatusSummary = {
    assessment: partial ? (failingCond?.status === 'True' ? 'Stalled' : 'Progressing') : 'Completed',
    target,
    completion: {
      percent,
      updated,
      total,
      updating: operators.filter((o) => o.state === 'Updating').length,
      pending: operators.filter((o) => o.state === 'Pending').length,
    },
    cvoMessage: findCondition(cv.status?.conditions, 'Progressing')?.message ?? '',
    operators,
    waitingOn: partial ? waitItems(operators, pools, input.now) : [],
    pools,
  };
  const from = history.slice(1).find((h) => h.state === 'Completed')?.version;
  if (from !== undefined && partial) summary.from = from;
  else if (!partial && history[1]?.version !== undefined) summary.from = history[1].version;
  if (current) {
    summary.startedTime = current.startedTime;
    if (current.completionTime) summary.completionTime = current.completionTime;
    const end = current.completionTime ? Date.parse(current.completionTime) : input.now;
    const start = Date.parse(current.startedTime);
    if (!Number.isNaN(start) && !Number.isNaN(end)) summary.durationMs = Math.max(0, end - start);
  }
  if (failingCond?.status === 'True')
    summary.failing = { reason: failingCond.reason ?? '', message: failingCond.message ?? '' };
  return summary;
}
