/** Text rendering of {@link UpgradeStatusSummary} for `keelson upgrade status` (layout after `oc adm upgrade status`). */
import type { UpgradeStatusSummary } from './status-summary.js';
import { tabulate } from './text.js';

/** Go-style short duration: `45s`, `3m10s`, `2h5m`. */
export function shortDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
}

function since(iso: string | undefined, now: number): string {
  if (iso === undefined) return '-';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '-' : shortDuration(Math.max(0, now - t));
}

function oneLine(s: string | undefined): string {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t === '' ? '-' : t.length > 120 ? `${t.slice(0, 117)}...` : t;
}

function header(s: UpgradeStatusSummary): string[] {
  const c = s.completion;
  const target = `${s.target.version || s.target.image}${s.from !== undefined ? ` (from ${s.from})` : ''}`;
  const health = (['Healthy', 'Unavailable', 'Degraded', 'Unknown'] as const)
    .map((h) => [h, s.operators.filter((o) => o.health === h).length] as const)
    .filter(([h, n]) => n > 0 || h === 'Healthy');
  const rows: string[][] = [
    ['Assessment:', s.assessment],
    ['Target Version:', target],
    ['Completion:', `${c.percent}% (${c.updated} operators updated, ${c.updating} updating, ${c.pending} waiting)`],
  ];
  if (s.durationMs !== undefined) rows.push(['Duration:', shortDuration(s.durationMs)]);
  rows.push(['Operator Health:', health.map(([h, n]) => `${n} ${h}`).join(', ')]);
  if (s.cvoMessage !== '') rows.push(['CVO:', oneLine(s.cvoMessage)]);
  if (s.failing) rows.push(['Failing:', `${s.failing.reason}: ${oneLine(s.failing.message)}`]);
  return tabulate(rows, 0, 1);
}

/** Renders the summary as text; `now` (ms) is used for the "since" columns. */
export function formatUpgradeStatus(s: UpgradeStatusSummary, now: number): string {
  const out: string[] = ['= Control Plane =', ...header(s)];
  const notDone = s.operators.filter((o) => o.state !== 'Updated');
  if (notDone.length > 0) {
    out.push('', 'Cluster Operators Not Yet Updated');
    out.push(
      ...tabulate(
        [
          ['NAME', 'STATE', 'VERSION', 'SINCE', 'REASON', 'MESSAGE'],
          ...notDone.map((o) => [
            o.name,
            o.state,
            o.version || '-',
            since(o.since, now),
            o.reason ?? '-',
            oneLine(o.message),
          ]),
        ],
        0,
        3,
      ),
    );
  } else if (s.operators.length > 0)
    out.push('', `All ${s.operators.length} cluster operators report ${s.target.version}.`);
  if (s.waitingOn.length > 0) {
    out.push('', 'Waiting On');
    out.push(
      ...tabulate(
        [
          ['KIND', 'NAME', 'FOR', 'WHY'],
          ...s.waitingOn.map((w) => [
            w.kind,
            w.name,
            w.waitedMs === undefined ? '-' : shortDuration(w.waitedMs),
            w.reason ?? '-',
          ]),
        ],
        0,
        3,
      ),
    );
  }
  if (s.pools.length > 0) {
    out.push('', '= Node Pools =');
    out.push(
      ...tabulate(
        [
          ['POOL', 'ASSESSMENT', 'COMPLETION', 'STATUS'],
          ...s.pools.map((p) => [
            p.name,
            p.assessment,
            `${p.percent}% (${p.updated}/${p.machines})`,
            `${p.ready} Ready, ${p.unavailable} Unavailable, ${p.degraded} Degraded${p.paused ? ', paused' : ''}`,
          ]),
        ],
        0,
        3,
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
