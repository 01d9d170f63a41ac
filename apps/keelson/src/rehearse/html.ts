/**
 * `--report FILE.html`: a self-contained page (inline CSS and SVG, no scripts, no external resources) with the
 * rehearsal's timeline chart: run levels, when each operator reached the target version, and every node's drain,
 * update and reboot, over the update's wall-clock time; followed by the report's figures.
 */
import type { RehearsalReport } from './report.js';
import type { NodePhase, TimelineEvent } from './timeline.js';

const COLORS: Readonly<Record<NodePhase | 'runlevel' | 'operator', string>> = {
  done: '#d9f2d9',
  draining: '#f5a623',
  updating: '#4a90e2',
  rebooting: '#d0021b',
  degraded: '#333333',
  runlevel: '#7b61ff',
  operator: '#2e7d32',
};

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface Row {
  label: string;
  bars: { from: number; to: number; color: string; title: string }[];
  marks: { at: number; color: string; title: string }[];
}

function nodeRows(events: readonly TimelineEvent[], start: number, end: number): Row[] {
  const rows = new Map<string, Row & { since: number; phase: NodePhase }>();
  for (const e of events) {
    if (e.type !== 'node') continue;
    const key = e.node.name;
    let r = rows.get(key);
    if (r === undefined) {
      r = { label: `${e.node.name} (${e.node.pool || '-'})`, bars: [], marks: [], since: Math.max(e.t, start), phase: e.node.phase };
      rows.set(key, r);
      continue;
    }
    if (e.node.phase !== r.phase) {
      const from = Math.max(r.since, start);
      if (r.phase !== 'done' && e.t > start) r.bars.push({ from, to: e.t, color: COLORS[r.phase], title: `${key} ${r.phase} ${((e.t - from) / 1000).toFixed(1)}s` });
      r.since = e.t;
      r.phase = e.node.phase;
    }
  }
  for (const r of rows.values()) if (r.phase !== 'done') r.bars.push({ from: Math.max(r.since, start), to: end, color: COLORS[r.phase], title: `${r.label} ${r.phase}` });
  return [...rows.values()].sort((a, b) => (a.label < b.label ? -1 : 1));
}

/** The SVG chart. */
export function timelineSvg(report: RehearsalReport, events: readonly TimelineEvent[]): string {
  const start = events.find((e) => e.type === 'phase' && e.phase === 'upgrade')?.t ?? 0;
  const end = Math.max(start + 1, events.find((e) => e.type === 'phase' && e.phase === 'finished')?.t ?? events.at(-1)?.t ?? start + 1);
  const rows: Row[] = [];
  for (const l of report.runLevels) {
    rows.push({ label: `run level ${l.level}`, bars: [{ from: start + l.startMs, to: start + (l.endMs ?? end - start), color: COLORS.runlevel, title: `run level ${l.level}: ${l.ms === null ? 'not finished' : `${(l.ms / 1000).toFixed(1)}s`}` }], marks: [] });
  }
  const ops = report.operators.filter((o) => o.reachedMs !== null);
  if (ops.length > 0) rows.push({ label: `operators at ${report.to}`, bars: [], marks: ops.map((o) => ({ at: start + (o.reachedMs ?? 0), color: COLORS.operator, title: `${o.name} at ${report.to} +${((o.reachedMs ?? 0) / 1000).toFixed(1)}s` })) });
  rows.push(...nodeRows(events, start, end));
  const labelW = 230;
  const chartW = 900;
  const rowH = 22;
  const top = 30;
  const height = top + rows.length * rowH + 30;
  const x = (t: number): number => labelW + ((t - start) / (end - start)) * chartW;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + chartW + 20}" height="${height}" viewBox="0 0 ${labelW + chartW + 20} ${height}" role="img" aria-label="rehearsal timeline">`);
  parts.push(`<rect x="0" y="0" width="${labelW + chartW + 20}" height="${height}" fill="#ffffff"/>`);
  const ticks = 10;
  for (let i = 0; i <= ticks; i++) {
    const t = start + ((end - start) * i) / ticks;
    parts.push(`<line x1="${x(t).toFixed(1)}" y1="${top - 5}" x2="${x(t).toFixed(1)}" y2="${height - 25}" stroke="#e0e0e0"/>`);
    parts.push(`<text x="${x(t).toFixed(1)}" y="${height - 10}" font-size="11" text-anchor="middle" fill="#555">${((t - start) / 1000).toFixed(1)}s</text>`);
  }
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    if (i % 2 === 0) parts.push(`<rect x="0" y="${y}" width="${labelW + chartW + 20}" height="${rowH}" fill="#f7f7f9"/>`);
    parts.push(`<text x="8" y="${y + 15}" font-size="12" fill="#222">${esc(r.label)}</text>`);
    for (const b of r.bars) parts.push(`<rect x="${x(b.from).toFixed(1)}" y="${y + 4}" width="${Math.max(2, x(b.to) - x(b.from)).toFixed(1)}" height="${rowH - 8}" rx="3" fill="${b.color}"><title>${esc(b.title)}</title></rect>`);
    for (const m of r.marks) parts.push(`<circle cx="${x(m.at).toFixed(1)}" cy="${y + rowH / 2}" r="5" fill="${m.color}"><title>${esc(m.title)}</title></circle>`);
  });
  const legend: [string, string][] = [['run level', COLORS.runlevel], ['operator at target', COLORS.operator], ['draining', COLORS.draining], ['updating', COLORS.updating], ['rebooting', COLORS.rebooting], ['degraded', COLORS.degraded]];
  legend.forEach(([name, color], i) => {
    parts.push(`<rect x="${labelW + i * 140}" y="8" width="12" height="12" fill="${color}"/><text x="${labelW + i * 140 + 16}" y="18" font-size="12" fill="#222">${esc(name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** The whole page. */
export function renderHtmlReport(report: RehearsalReport, events: readonly TimelineEvent[]): string {
  const sec = (ms: number | null): string => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);
  const poolRows = report.pools
    .map((p) => `<tr><td>${esc(p.name)}</td><td>${p.updated}/${p.nodes}</td><td>${p.maxUnavailableSeen} / ${p.maxUnavailable}</td><td>${esc(p.rolloutOrder.join(', '))}</td><td><code>${esc(p.config)}</code></td></tr>`)
    .join('\n');
  const condRows = report.conditions.map((c) => `<tr><td>+${sec(c.firstMs)}</td><td>${esc(c.object)}</td><td>${esc(`${c.condition.type}=${c.condition.status}`)}</td><td>${esc(c.condition.reason ?? '')}</td><td>${esc(c.condition.message ?? '')}</td></tr>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>keelson rehearse ${esc(report.from)} → ${esc(report.to)}</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 4px} .outcome{font-weight:600;color:${report.exitCode === 0 ? '#2e7d32' : '#c62828'}}
table{border-collapse:collapse;margin:12px 0;font-size:13px} td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f4} code{font-size:12px} .figures span{margin-right:18px}
</style></head><body>
<h1>keelson rehearse ${esc(report.from)} → ${esc(report.to)}</h1>
<p class="outcome">${esc(report.outcome)} (exit ${report.exitCode}): ${esc(report.message)}</p>
<p class="figures"><span>total ${sec(report.totalMs)}</span><span>install ${sec(report.installMs)}</span><span>update ${sec(report.upgradeMs)}</span><span>time scale ${report.timeScale}</span><span>reboots ${report.reboots.reduce((n, r) => n + r.count, 0)}</span><span>evictions ${report.api.evictions}</span><span>PDB refusals ${report.api.pdbRefusals}</span><span>API requests ${report.api.total}</span></p>
${timelineSvg(report, events)}
<h2>Pools</h2>
<table><tr><th>pool</th><th>updated</th><th>max unavailable seen / allowed</th><th>rollout order</th><th>config</th></tr>
${poolRows}
</table>
<h2>Conditions seen</h2>
<table><tr><th>when</th><th>object</th><th>condition</th><th>reason</th><th>message</th></tr>
${condRows}
</table>
${report.missing.length > 0 ? `<h2>Missing components</h2><ul>${report.missing.map((m) => `<li>${esc(m)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
