/**
 * The "= Control Plane =" block of `keelson upgrade status` as openshift/oc pkg/cli/admin/upgrade/status/
 * controlplane.go computes it (`assessControlPlaneStatus`, `estimateCompletion`, `timewiseComplete`,
 * `versionsFromHistory`): platform operators (those carrying an include./exclude.release.openshift.io/ annotation),
 * completion, duration, estimated time remaining, the assessment (Progressing / Progressing - Slow / Stalled /
 * Completed) and the insights about operators and the ClusterVersion. Pure.
 */
import type { ClusterOperatorStatusCondition } from '@keelson/api';
import { findCondition, type ClusterOperator, type ClusterVersion, type UpdateHistory } from './api-types.js';
import { DURATION, goRound, goTruncate } from './go-duration.js';
import type { UpdateInsight } from './status-insights.js';

const { SECOND, MINUTE, HOUR } = DURATION;

/** One updating ClusterOperator (Progressing=True, not at the target). */
export interface UpdatingOperator {
  name: string;
  since?: string;
  reason: string;
  message: string;
}

/** The control plane as oc shows it. */
export interface ControlPlaneStatus {
  assessment: 'Progressing' | 'Progressing - Slow' | 'Completed' | 'Stalled';
  /** Updated platform operators × 100 / platform operators. */
  completion: number;
  /** ISO: when the update completed, or the evaluation time while it runs. */
  completionAt: string;
  durationMs: number;
  /** Estimated duration of the whole update (minutes), 0 when not estimated. */
  estDurationMs: number;
  /** Estimated time remaining; 0 when not estimated (negative when late). */
  estTimeToCompleteMs: number;
  operators: {
    total: number;
    unavailable: number;
    degraded: number;
    updated: number;
    waiting: number;
    updating: UpdatingOperator[];
  };
  target: {
    version: string;
    previous: string;
    isTargetInstall: boolean;
    isPreviousPartial: boolean;
    isMultiArchMigration: boolean;
  };
}

const RUNBOOK = 'https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/';
const CO_RESOURCE = (name: string): UpdateInsight['resources'][number] => ({
  group: 'config.openshift.io',
  kind: 'ClusterOperator',
  name,
});

function ms(iso: string | null | undefined): number {
  return iso ? Date.parse(iso) : Number.NaN;
}

type Cond = ClusterOperatorStatusCondition | undefined;

function conditionInsight(
  name: string,
  c: ClusterOperatorStatusCondition,
  what: 'unavailable' | 'degraded',
  at: number,
  errorAfter: number,
): UpdateInsight {
  const since = ms(c.lastTransitionTime);
  return {
    ...(c.lastTransitionTime ? { startedAt: c.lastTransitionTime } : {}),
    scope: 'ControlPlane',
    resources: [CO_RESOURCE(name)],
    level: at > since + errorAfter ? 'Error' : 'Warning',
    impact: 'API Availability',
    summary: `Cluster Operator ${name} is ${what} (${c.reason ?? ''})`,
    description: c.message !== undefined && c.message !== '' ? c.message : '<no message>',
    reference: `${RUNBOOK}${what === 'unavailable' ? 'ClusterOperatorDown' : 'ClusterOperatorDegraded'}.md`,
  };
}

/** `coInsights`: unavailable for more than 5 min (error after 20), degraded for more than 5 min (error after 40). */
function operatorInsights(name: string, available: Cond, degraded: Cond, at: number): UpdateInsight[] {
  const out: UpdateInsight[] = [];
  if (available?.status === 'False' && at > ms(available.lastTransitionTime) + 5 * MINUTE)
    out.push(conditionInsight(name, available, 'unavailable', at, 20 * MINUTE));
  if (degraded?.status === 'True' && at > ms(degraded.lastTransitionTime) + 5 * MINUTE)
    out.push(conditionInsight(name, degraded, 'degraded', at, 40 * MINUTE));
  return out;
}

function failingInsight(cv: ClusterVersion, at: number): UpdateInsight[] {
  const name = cv.metadata.name ?? 'version';
  const base = {
    scope: 'ControlPlane' as const,
    resources: [{ group: 'config.openshift.io', kind: 'ClusterVersion', name }],
    level: 'Warning' as const,
    impact: 'Update Stalled',
    reference: `${RUNBOOK}ClusterOperatorDegraded.md`,
  };
  const c = findCondition(cv.status?.conditions, 'Failing');
  if (c === undefined)
    return [
      {
        ...base,
        startedAt: new Date(at).toISOString(),
        summary: `Cluster Version ${name} has no Failing condition`,
        description:
          "Current status of Cluster Version reconciliation is unclear.  See 'oc -n openshift-cluster-version logs -l k8s-app=cluster-version-operator --tail -1' to debug.",
      },
    ];
  if (c.status === 'False') return [];
  return [
    {
      ...base,
      ...(c.lastTransitionTime ? { startedAt: c.lastTransitionTime } : {}),
      summary: `Cluster Version ${name} ${c.status === 'Unknown' ? 'may be' : 'is'} failing to proceed with the update (${c.reason ?? ''})`,
      description: c.message ?? '',
    },
  ];
}

function isPlatformOperator(co: ClusterOperator): boolean {
  return Object.keys(co.metadata.annotations ?? {}).some(
    (k) => k.startsWith('exclude.release.openshift.io/') || k.startsWith('include.release.openshift.io/'),
  );
}

/** Whether history[0] and history[1] are the same version from different images (a multi-arch migration). */
export function isMultiArchMigration(history: readonly UpdateHistory[]): boolean {
  const [a, b] = history;
  return a !== undefined && b !== undefined && a.version === b.version && a.image !== b.image;
}

/** `baselineDuration`: the last completed update between the current one and the install, else one hour. */
function baselineDuration(history: readonly UpdateHistory[]): number {
  if (history.length < 3) return HOUR;
  for (const h of history.slice(1, -1))
    if (h.state === 'Completed' && h.completionTime) return ms(h.completionTime) - ms(h.startedTime);
  return HOUR;
}

/** `timewiseComplete`: the fraction of the time elapsed for an operator completion (curve fitted upstream). */
export function timewiseComplete(x: number): number {
  const x2 = x ** 2;
  const x3 = x ** 3;
  const x4 = x ** 4;
  if (x < 0.25) return -0.03078788 + 2.62886 * x - 3.823954 * x2;
  if (x < 0.9) return 0.1851215 + 1.64994 * x - 4.676898 * x2 + 5.451824 * x3 - 2.125286 * x4;
  return 25053.32 - 107394.3 * x + 172527.2 * x2 - 123107 * x3 + 32921.81 * x4;
}

/** `estimateCompletion`: time remaining (ms), over-estimated by 20% (under- when late), rounded as oc. */
export function estimateCompletion(baseline: number, toLastProgress: number, updatingFor: number, co: number): number {
  if (co >= 1) return 0;
  const t = timewiseComplete(co);
  const total = co > 0 && t > 0 && toLastProgress > 5 * MINUTE ? toLastProgress / 1000 / t : baseline / 1000;
  const remaining = total - updatingFor / 1000;
  const over = remaining < 0 ? 1 / 1.2 : 1.2;
  const est = Math.trunc(remaining * over) * SECOND;
  return est > 10 * MINUTE ? goRound(est, MINUTE) : goRound(est, SECOND);
}

function versionsFromHistory(
  history: readonly UpdateHistory[],
  cvName: string,
  completed: boolean,
): { target: ControlPlaneStatus['target']; insights: UpdateInsight[] } {
  const target = {
    version: history[0]?.version ?? 'unknown',
    previous: history[1]?.version ?? 'unknown',
    isTargetInstall: history.length === 1,
    isPreviousPartial: history.length > 1 && history[1]?.state === 'Partial',
    isMultiArchMigration: isMultiArchMigration(history),
  };
  if (history.length === 1) target.previous = 'unknown';
  if (completed || !target.isPreviousPartial || target.isTargetInstall) return { target, insights: [] };
  const lastComplete = history.slice(2).find((h) => h.state === 'Completed')?.version ?? 'unknown';
  return {
    target,
    insights: [
      {
        ...(history[0]?.startedTime ? { startedAt: history[0].startedTime } : {}),
        scope: 'ControlPlane',
        resources: [{ group: 'config.openshift.io', kind: 'ClusterVersion', name: cvName }],
        level: 'Warning',
        impact: 'None',
        summary: `Previous update to ${target.previous} never completed, last complete update was ${lastComplete}`,
        description: `Current update to ${target.version} was initiated while the previous update to version ${target.previous} was still in progress`,
        reference:
          'https://docs.openshift.com/container-platform/latest/updating/troubleshooting_updates/gathering-data-cluster-update.html#gathering-clusterversion-history-cli_troubleshooting_updates',
      },
    ],
  };
}

/** Counts of the platform operators and when progress was last observed. */
function countOperators(
  operators: readonly ClusterOperator[],
  target: string,
  mcoImage: string | undefined,
  at: number,
): { ops: ControlPlaneStatus['operators']; lastProgress: number; mcoStarted: number; insights: UpdateInsight[] } {
  const ops: ControlPlaneStatus['operators'] = {
    total: 0,
    unavailable: 0,
    degraded: 0,
    updated: 0,
    waiting: 0,
    updating: [],
  };
  let lastProgress = Number.NEGATIVE_INFINITY;
  let mcoStarted = Number.NaN;
  const insights: UpdateInsight[] = [];
  for (const co of operators) {
    if (!isPlatformOperator(co)) continue;
    const name = co.metadata.name ?? '';
    const versions = co.status?.versions ?? [];
    const mcoImageUpgrading =
      name === 'machine-config' &&
      mcoImage !== undefined &&
      versions.some((v) => v.name === 'operator-image' && v.version !== mcoImage);
    const updated = !mcoImageUpgrading && versions.some((v) => v.name === 'operator' && v.version === target);
    if (updated) ops.updated++;
    ops.total++;
    const conds = co.status?.conditions;
    const available = findCondition(conds, 'Available');
    const degraded = findCondition(conds, 'Degraded');
    const progressing = findCondition(conds, 'Progressing');
    if (progressing !== undefined) {
      lastProgress = Math.max(lastProgress, ms(progressing.lastTransitionTime) || Number.NEGATIVE_INFINITY);
      if (!updated && progressing.status === 'True') {
        const u: UpdatingOperator = { name, reason: progressing.reason ?? '', message: progressing.message ?? '' };
        if (progressing.lastTransitionTime) u.since = progressing.lastTransitionTime;
        ops.updating.push(u);
        if (name === 'machine-config') mcoStarted = ms(progressing.lastTransitionTime);
      }
      if (!updated && progressing.status === 'False') ops.waiting++;
    }
    if (available?.status !== 'True') ops.unavailable++;
    else if (degraded?.status === 'True') ops.degraded++;
    insights.push(...operatorInsights(name, available, degraded, at));
  }
  return { ops, lastProgress, mcoStarted, insights };
}

/** What {@link assessControlPlane} needs. */
export interface ControlPlaneInput {
  clusterVersion: ClusterVersion;
  operators: readonly ClusterOperator[];
  /**
   * Image of the machine-config-operator container of its Deployment ('' when it has none, as oc); undefined when
   * the Deployment does not exist (then the MCO's `operator-image` version is not compared).
   */
  mcoImage?: string;
  now: number;
}

/** `assessControlPlaneStatus`. */
export function assessControlPlane(input: ControlPlaneInput): {
  status: ControlPlaneStatus;
  insights: UpdateInsight[];
} {
  const cv = input.clusterVersion;
  const at = input.now;
  const history = cv.status?.history ?? [];
  const insights = failingInsight(cv, at);
  const counted = countOperators(input.operators, cv.status?.desired?.version ?? '', input.mcoImage, at);
  insights.push(...counted.insights);
  const ops = counted.ops;
  const completed = ops.updated === ops.total;
  let lastProgress = counted.lastProgress;
  if (!Number.isNaN(counted.mcoStarted) && ops.total - ops.updated === 1) lastProgress = counted.mcoStarted;
  let updatingFor = 0;
  let toLastProgress = 0;
  let completionAt = at;
  let durationMs = 0;
  const current = history[0];
  if (current !== undefined) {
    const started = ms(current.startedTime);
    if (!(lastProgress > started)) lastProgress = at;
    toLastProgress = lastProgress - started;
    completionAt = current.state === 'Completed' && current.completionTime ? ms(current.completionTime) : at;
    updatingFor = completionAt - started;
    durationMs = updatingFor > 10 * MINUTE ? goRound(updatingFor, MINUTE) : goRound(updatingFor, SECOND);
  }
  const versions = versionsFromHistory(history, cv.metadata.name ?? 'version', completed);
  insights.push(...versions.insights);
  const co = ops.updated / ops.total;
  const status: ControlPlaneStatus = {
    assessment: completed ? 'Completed' : 'Progressing',
    completion: co * 100,
    completionAt: new Date(completionAt).toISOString(),
    durationMs,
    estDurationMs: 0,
    estTimeToCompleteMs: 0,
    operators: ops,
    target: versions.target,
  };
  if (co <= 1 && !completed) {
    status.estTimeToCompleteMs = estimateCompletion(baselineDuration(history), toLastProgress, updatingFor, co);
    status.estDurationMs = goTruncate(updatingFor + status.estTimeToCompleteMs, MINUTE);
    if (status.estTimeToCompleteMs < -10 * MINUTE) status.assessment = 'Stalled';
    else if (status.estTimeToCompleteMs < 0) status.assessment = 'Progressing - Slow';
  }
  return { status, insights };
}
