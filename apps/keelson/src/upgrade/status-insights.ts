/**
 * The "= Update Health =" section of `keelson upgrade status`: update insights, their order and both renderings
 * (table and `--details=health`), as openshift/oc pkg/cli/admin/upgrade/status/health.go (`assessUpdateInsights`,
 * `updateHealthData.Write`). Alert-driven insights are not produced (no Prometheus is queried).
 */
import { goTruncate, ocShortDuration, DURATION } from './go-duration.js';
import { tabulate } from './text.js';

export type ImpactLevel = 'Info' | 'Warning' | 'Error' | 'Critical';
const LEVEL_ORDER: Record<ImpactLevel, number> = { Info: 0, Warning: 1, Error: 2, Critical: 3 };

/** A resource an insight is about (`group` '' for core kinds such as Node). */
export interface InsightResource {
  group: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** One update insight. */
export interface UpdateInsight {
  /** ISO time; absent when unknown (oc prints `-`). */
  startedAt?: string;
  scope: 'ControlPlane' | 'WorkerPool' | 'Cluster';
  resources: InsightResource[];
  level: ImpactLevel;
  /** `None`, `API Availability`, `Update Speed`, `Update Stalled`, ... */
  impact: string;
  summary: string;
  description: string;
  reference: string;
}

/** The health section: insights sorted as oc shows them. */
export interface UpdateHealth {
  evaluatedAt: number;
  insights: UpdateInsight[];
  /** False when only the synthetic "Update is proceeding well" item is shown (no details to give). */
  detailed: boolean;
}

function startedMs(i: UpdateInsight): number {
  return i.startedAt === undefined ? Number.NEGATIVE_INFINITY : Date.parse(i.startedAt);
}

/** `assessUpdateInsights`: complete insights only, the newest first, then the most severe level first (stable). */
export function assessUpdateInsights(
  insights: readonly UpdateInsight[],
  updatingForMs: number,
  evaluatedAt: number,
): UpdateHealth {
  const complete = insights.filter((i) => i.summary !== '' && i.description !== '' && i.reference !== '');
  const sorted = [...complete]
    .sort((a, b) => startedMs(b) - startedMs(a))
    .sort((a, b) => LEVEL_ORDER[b.level] - LEVEL_ORDER[a.level]);
  if (sorted.length === 0)
    return {
      evaluatedAt,
      detailed: false,
      insights: [
        {
          startedAt: new Date(evaluatedAt - updatingForMs).toISOString(),
          scope: 'Cluster',
          resources: [],
          level: 'Info',
          impact: 'None',
          summary: 'Update is proceeding well',
          description: '',
          reference: '',
        },
      ],
    };
  return { evaluatedAt, detailed: true, insights: sorted };
}

function since(h: UpdateHealth, i: UpdateInsight): string {
  if (i.startedAt === undefined) return '-';
  return ocShortDuration(goTruncate(h.evaluatedAt - Date.parse(i.startedAt), DURATION.SECOND));
}

function resourceKind(r: InsightResource): string {
  const kind = `${r.kind.toLowerCase()}s`;
  return `${r.group !== '' ? `${kind}.${r.group}` : kind}: `;
}

function detailedItem(h: UpdateHealth, i: UpdateInsight): string[] {
  const pad = 'Description: '.length;
  const field = (k: string, v: string): string => `  ${k.padEnd(pad)}${v}`;
  const out = [
    `Message: ${i.summary}`,
    field('Since:', since(h, i)),
    field('Level:', i.level),
    field('Impact:', i.impact),
    field('Reference:', i.reference),
  ];
  if (i.resources.length > 0) {
    const byKind = new Map<string, string[]>();
    for (const r of i.resources) {
      const k = resourceKind(r);
      byKind.set(k, [...(byKind.get(k) ?? []), r.namespace ? `${r.namespace}/${r.name}` : r.name]);
    }
    const kindPad = Math.max(...[...byKind.keys()].map((k) => k.length));
    out.push('  Resources:');
    for (const k of [...byKind.keys()].sort())
      out.push(`    ${k.padEnd(kindPad)}${[...(byKind.get(k) ?? [])].sort().join(', ')}`);
  }
  out.push(field('Description:', i.description.replaceAll('\n', `\n${' '.repeat(pad + 2)}, `)));
  return out;
}

/** Renders "= Update Health =" (table, or oc's detailed blocks when `detailed` and there is something to detail). */
export function formatUpdateHealth(h: UpdateHealth, detailed: boolean): string[] {
  const out = ['= Update Health ='];
  if (detailed && h.detailed) {
    h.insights.forEach((i, n) => {
      out.push(...detailedItem(h, i));
      if (n < h.insights.length - 1) out.push('');
    });
    return out;
  }
  out.push(
    ...tabulate(
      [['SINCE', 'LEVEL', 'IMPACT', 'MESSAGE'], ...h.insights.map((i) => [since(h, i), i.level, i.impact, i.summary])],
      0,
      3,
    ),
  );
  if (h.insights.length > 1 || h.insights[0]?.level !== 'Info')
    out.push('', 'Run with --details=health for additional description and links to related online documentation');
  return out;
}
