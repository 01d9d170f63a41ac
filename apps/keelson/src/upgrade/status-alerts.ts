/**
 * Alert insights of `keelson upgrade status`'s Update Health (openshift/oc pkg/cli/admin/upgrade/status/alerts.go
 * `parseAlertDataToInsights`): firing alerts that started during the update, plus the PodDisruptionBudget alerts
 * even when older, at their severity (warning → Warning, critical → Critical; info and unknown are dropped). Pure.
 */
import { parseAlerts } from './recommend-alerts.js';
import type { ImpactLevel, UpdateInsight } from './status-insights.js';

/** Alerts shown even when they were firing before the update started. */
const ALLOWED_ALERTS = new Set(['PodDisruptionBudgetLimit', 'PodDisruptionBudgetAtLimit']);

function level(severity: string | undefined): ImpactLevel {
  return severity === 'warning' ? 'Warning' : severity === 'critical' ? 'Critical' : 'Info';
}

/** Insights from an alerts document for an update started at `startedAt` (ISO); throws `AlertsParseError`. */
export function alertInsights(json: string, startedAt: string): UpdateInsight[] {
  const started = Date.parse(startedAt);
  const out: UpdateInsight[] = [];
  for (const a of parseAlerts(json)) {
    const name = a.labels?.alertname ?? '';
    if (name === '') continue;
    const active = a.activeAt !== undefined ? Date.parse(a.activeAt) : Number.NaN;
    const during = started < active;
    const allowed = ALLOWED_ALERTS.has(name);
    let description: string;
    if (allowed)
      description = during
        ? 'Alert known to affect updates started firing during the update.'
        : 'Alert known to affect updates has been firing since before the update started.';
    else if (during) description = 'Alert started firing during the update.';
    else continue;
    if (a.state === 'pending') continue;
    const lvl = level(a.labels?.severity);
    if (lvl === 'Info') continue;
    const an = a.annotations ?? {};
    const d = an.description ?? '';
    const m = an.message ?? '';
    description +=
      m !== '' && d !== ''
        ? ` The alert description is: ${d} | ${m}`
        : d !== ''
          ? ` The alert description is: ${d}`
          : m !== ''
            ? ` The alert description is: ${m}`
            : ' The alert has no description.';
    out.push({
      ...(a.activeAt !== undefined ? { startedAt: a.activeAt } : {}),
      scope: 'Cluster',
      resources: [
        {
          group: 'config.openshift.io',
          kind: 'Alert',
          name,
          ...(a.labels?.namespace ? { namespace: a.labels.namespace } : {}),
        },
      ],
      level: lvl,
      impact: 'Unknown',
      summary: `Alert is firing: ${an.summary !== undefined && an.summary !== '' ? an.summary : name}`,
      description,
      reference:
        an.runbook_url !== undefined && an.runbook_url !== ''
          ? an.runbook_url
          : '<alert does not have a runbook_url annotation>',
    });
  }
  return out;
}
