/**
 * The alerts precheck of `keelson upgrade recommend` (openshift/oc pkg/cli/admin/upgrade/recommend/alerts.go
 * `alerts`): firing alerts from Prometheus' `/api/v1/alerts` JSON become conditions — critical alerts,
 * PodDisruptionBudget limits, container image pull waits, node readiness — each False with the alert's name as
 * its acceptance name; a family with no firing alert is True/AsExpected. Pure.
 */
import type { AcceptableCondition } from './recommend.js';

/** One alert of Prometheus' `/api/v1/alerts`. */
export interface Alert {
  labels?: {
    alertname?: string;
    name?: string;
    namespace?: string;
    poddisruptionbudget?: string;
    severity?: string;
  };
  annotations?: { description?: string; summary?: string; runbook_url?: string; message?: string };
  state?: string;
  activeAt?: string;
}

/** An alerts document that is not Prometheus' `{"data":{"alerts":[…]}}`. */
export class AlertsParseError extends Error {}

/** The alerts of an `/api/v1/alerts` document; throws {@link AlertsParseError}. */
export function parseAlerts(json: string): Alert[] {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (e) {
    throw new AlertsParseError(`parsing alerts: ${(e as Error).message}`);
  }
  const alerts = (doc as { data?: { alerts?: unknown } } | null)?.data?.alerts;
  if (alerts === undefined || alerts === null) return [];
  if (!Array.isArray(alerts)) throw new AlertsParseError('parsing alerts: data.alerts is not a list');
  return alerts as Alert[];
}

function details(a: Alert, name: string): string {
  const an = a.annotations ?? {};
  let summary = an.summary !== undefined && an.summary !== '' ? an.summary : name;
  if (!summary.endsWith('.')) summary += '.';
  const d = an.description ?? '';
  const m = an.message ?? '';
  const description =
    m !== '' && d !== ''
      ? ` The alert description is: ${d} | ${m}`
      : d !== ''
        ? ` The alert description is: ${d}`
        : m !== ''
          ? ` The alert description is: ${m}`
          : ' The alert has no description.';
  const runbook =
    an.runbook_url !== undefined && an.runbook_url !== ''
      ? an.runbook_url
      : '<alert does not have a runbook_url annotation>';
  return `${summary}${description} ${runbook}`;
}

const FAMILIES = [
  ['CriticalAlerts', 'No critical alerts firing.'],
  ['PodDisruptionBudgetAlerts', 'No PodDisruptionBudget alerts firing.'],
  ['PodImagePullAlerts', 'No Pod container image pull alerts firing.'],
  ['NodeAlerts', 'No Node alerts firing.'],
] as const;

type Family = (typeof FAMILIES)[number][0];

function classify(a: Alert, name: string): { family: Family; why: string; pdb: boolean } | undefined {
  const severity = a.labels?.severity ?? '';
  if (severity === 'critical')
    return {
      family: 'CriticalAlerts',
      why: 'suggesting significant cluster issues worth investigating',
      pdb: name === 'PodDisruptionBudgetLimit',
    };
  if (name === 'PodDisruptionBudgetAtLimit')
    return { family: 'PodDisruptionBudgetAlerts', why: 'which might slow node drains', pdb: true };
  const slow = 'which may slow workload redistribution during rolling node updates';
  if (name === 'KubeContainerWaiting') return { family: 'PodImagePullAlerts', why: slow, pdb: false };
  if (['KubeNodeNotReady', 'KubeNodeReadinessFlapping', 'KubeNodeUnreachable'].includes(name))
    return { family: 'NodeAlerts', why: slow, pdb: false };
  return undefined;
}

/** The precheck conditions from an alerts document; throws {@link AlertsParseError}. */
export function alertConditions(json: string): AcceptableCondition[] {
  const out: AcceptableCondition[] = [];
  const seen = new Set<Family>();
  let i = 0;
  for (const a of parseAlerts(json)) {
    const name = a.labels?.alertname ?? '';
    if (name === '' || a.state === 'pending') continue;
    const k = classify(a, name);
    if (k === undefined) continue;
    if (k.family === 'PodDisruptionBudgetAlerts' || k.pdb) seen.add('PodDisruptionBudgetAlerts');
    seen.add(k.family);
    let text = details(a, name);
    if (k.pdb)
      text = `Namespace=${a.labels?.namespace ?? ''}, PodDisruptionBudget=${a.labels?.poddisruptionbudget ?? ''}. ${text}`;
    out.push({
      type: `recommended/${k.family}/${name}/${i}`,
      status: 'False',
      reason: `Alert:${a.state ?? ''}`,
      message: `${a.labels?.severity ?? ''} alert ${name} ${a.state ?? ''}, ${k.why}. ${text}`,
      acceptanceName: name,
    });
    i++;
  }
  for (const [family, message] of FAMILIES)
    if (!seen.has(family)) out.push({ type: `recommended/${family}`, status: 'True', reason: 'AsExpected', message });
  return out;
}
