/**
 * `--report FILE.html`: a self-contained page (inline CSS and SVG, no scripts, no external resources) with the
 * rehearsal's timeline chart: run levels, when each operator reached the target version, and every node's drain,
 * update and reboot, over the update's wall-clock time; followed by the report's figures.
 */
import {
  simMinutes,
  type RehearsalReport,
  type Diagnosis,
  type NodePhase,
  type TimelineEvent,
  mcnHtml,
} from '@keelson/rehearsal';

const COLORS: Readonly<Record<NodePhase | 'runlevel' | 'operator' | 'wait', string>> = {
  wait: '#ff8f00',
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

function nodeRows(events: readonly TimelineEvent[], start: number, end: number): Row[] {
  const rows = new Map<string, Row & { since: number; phase: NodePhase }>();
  for (const e of events) {
    if (e.type !== 'node') continue;
    const key = e.node.name;
    let r = rows.get(key);
    if (r === undefined) {
      r = {
        label: `${e.node.name} (${e.node.pool || '-'})`,
        bars: [],
        marks: [],
        since: Math.max(e.t, start),
        phase: e.node.phase,
      };
      rows.set(key, r);
      continue;
    }
    if (e.node.phase !== r.phase) {
      const from = Math.max(r.since, start);
      if (r.phase !== 'done' && e.t > start)
        r.bars.push({
          from,
          to: e.t,
          color: COLORS[r.phase],
          title: `${key} ${r.phase} ${((e.t - from) / 1000).toFixed(1)}s`,
        });
      r.since = e.t;
      r.phase = e.node.phase;
    }
  }
  for (const r of rows.values())
    if (r.phase !== 'done')
      r.bars.push({ from: Math.max(r.since, start), to: end, color: COLORS[r.phase], title: `${r.label} ${r.phase}` });
  return [...rows.values()].sort((a, b) => (a.label < b.label ? -1 : 1));
}

interface Row {
  label: string;
  bars: { from: number; to: number; color: string; title: string }[];
  marks: { at: number; color: string; title: string }[];
  /** Thin vertical ticks (later sync attempts of a run level). */
  ticks?: { at: number; title: string }[];
}

/** Rows of the chart above the nodes: run levels, the CVO's waits, operators reaching the target. */
function updateRows(report: RehearsalReport, start: number, end: number): Row[] {
  const rows: Row[] = [];
  const sim = (ms: number): string =>
    `${(ms / 1000).toFixed(1)}s wall, ~${simMinutes(ms, report.timeScale)} simulated min`;
  for (const l of report.runLevels) {
    rows.push({
      label: `run level ${l.level}`,
      bars: [
        {
          from: start + l.startMs,
          to: start + (l.endMs ?? end - start),
          color: COLORS.runlevel,
          title: `run level ${l.level}: first start +${(l.startMs / 1000).toFixed(1)}s to first completion ${l.ms === null ? '(not finished)' : `(${sim(l.ms)})`}`,
        },
      ],
      marks: [],
      ticks: l.laterStartsMs.map((t) => ({
        at: start + t,
        title: `run level ${l.level} walked again by a later sync attempt at +${(t / 1000).toFixed(1)}s`,
      })),
    });
  }
  for (const w of report.waits) {
    rows.push({
      label: `CVO waits on ${w.operator}`,
      bars: [
        {
          from: start + w.fromMs,
          to: start + w.toMs,
          color: COLORS.wait,
          title: `the CVO waited on clusteroperator/${w.operator}: ${sim(w.ms)}`,
        },
      ],
      marks: [],
    });
  }
  const ops = report.operators.filter((o) => o.reachedMs !== null);
  if (ops.length > 0)
    rows.push({
      label: `operators at ${report.to} (hover)`,
      bars: [],
      marks: ops.map((o) => ({
        at: start + (o.reachedMs ?? 0),
        color: COLORS.operator,
        title: `clusteroperator/${o.name} at ${report.to}: +${((o.reachedMs ?? 0) / 1000).toFixed(1)}s`,
      })),
    });
  return rows;
}

/** The axis: simulated minutes (what an admin plans with), wall seconds underneath. */
function axis(
  parts: string[],
  x: (t: number) => number,
  start: number,
  end: number,
  timeScale: number,
  top: number,
  bottom: number,
): void {
  const ticks = 10;
  for (let i = 0; i <= ticks; i++) {
    const t = start + ((end - start) * i) / ticks;
    const xs = x(t).toFixed(1);
    parts.push(`<line x1="${xs}" y1="${top - 5}" x2="${xs}" y2="${bottom}" stroke="#e0e0e0"/>`);
    parts.push(
      `<text x="${xs}" y="${bottom + 14}" font-size="11" text-anchor="middle" fill="#222">${simMinutes(t - start, timeScale)} min</text>`,
    );
    parts.push(
      `<text x="${xs}" y="${bottom + 27}" font-size="10" text-anchor="middle" fill="#888">${((t - start) / 1000).toFixed(1)}s</text>`,
    );
  }
  parts.push(
    `<text x="8" y="${bottom + 14}" font-size="11" fill="#222">simulated minutes</text><text x="8" y="${bottom + 27}" font-size="10" fill="#888">wall seconds</text>`,
  );
}

/** The SVG chart. */
export function timelineSvg(report: RehearsalReport, events: readonly TimelineEvent[]): string {
  const start = events.find((e) => e.type === 'phase' && e.phase === 'upgrade')?.t ?? 0;
  const end = Math.max(
    start + 1,
    events.find((e) => e.type === 'phase' && e.phase === 'finished')?.t ?? events.at(-1)?.t ?? start + 1,
  );
  const rows: Row[] = [...updateRows(report, start, end), ...nodeRows(events, start, end)];
  const labelW = 230;
  const chartW = 860;
  const rowH = 22;
  const top = 30;
  const height = top + rows.length * rowH + 40;
  const x = (t: number): number => labelW + ((t - start) / (end - start)) * chartW;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + chartW + 40}" height="${height}" viewBox="0 0 ${labelW + chartW + 40} ${height}" role="img" aria-label="rehearsal timeline">`,
  );
  parts.push(`<rect x="0" y="0" width="${labelW + chartW + 40}" height="${height}" fill="#ffffff"/>`);
  axis(parts, x, start, end, report.timeScale, top, top + rows.length * rowH + 5);
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    if (i % 2 === 0)
      parts.push(
        `<rect x="0" y="${y}" width="${labelW + chartW + 40}" height="${rowH}" fill="#f7f7f9" fill-opacity="0.7"/>`,
      );
    parts.push(`<text x="8" y="${y + 15}" font-size="12" fill="#222">${esc(r.label)}</text>`);
    for (const b of r.bars)
      parts.push(
        `<rect x="${x(b.from).toFixed(1)}" y="${y + 4}" width="${Math.max(2, x(b.to) - x(b.from)).toFixed(1)}" height="${rowH - 8}" rx="3" fill="${b.color}"><title>${esc(b.title)}</title></rect>`,
      );
    for (const m of r.marks)
      parts.push(
        `<circle cx="${x(m.at).toFixed(1)}" cy="${y + rowH / 2}" r="5" fill="${m.color}"><title>${esc(m.title)}</title></circle>`,
      );
    for (const k of r.ticks ?? [])
      parts.push(
        `<rect x="${x(k.at).toFixed(1)}" y="${y + 3}" width="1.5" height="${rowH - 6}" fill="#7b61ff" fill-opacity="0.6"><title>${esc(k.title)}</title></rect>`,
      );
  });
  const legend: [string, string][] = [
    ['run level (first start to first completion)', COLORS.runlevel],
    ['CVO waits', COLORS.wait],
    ['operator at target', COLORS.operator],
    ['draining', COLORS.draining],
    ['updating', COLORS.updating],
    ['rebooting', COLORS.rebooting],
    ['degraded', COLORS.degraded],
  ];
  let lx = 8;
  for (const [name, color] of legend) {
    parts.push(
      `<rect x="${lx}" y="8" width="12" height="12" fill="${color}"/><text x="${lx + 16}" y="18" font-size="12" fill="#222">${esc(name)}</text>`,
    );
    lx += 28 + name.length * 6.2;
  }
  parts.push('</svg>');
  return parts.join('\n');
}

/** What holds a failed or stalled update, with what to do (empty when the update completed). */
function diagnosisHtml(ds: readonly Diagnosis[]): string {
  if (ds.length === 0) return '';
  const items = ds
    .map((d) => {
      const fs = d.findings
        .map(
          (f) =>
            `<li>${f.message !== d.summary ? esc(f.message) : ''}${f.action !== undefined ? `<div class="todo">what to do: ${esc(f.action)}</div>` : ''}</li>`,
        )
        .join('');
      return `<li><b>${esc(d.subject)}</b>: ${esc(d.summary)}${fs !== '' ? `<ul>${fs}</ul>` : ''}</li>`;
    })
    .join('\n');
  return `<div class="diagnosis"><h2>Diagnosis: what holds the update</h2><ul>\n${items}\n</ul></div>`;
}

/** The whole page. */
export function renderHtmlReport(report: RehearsalReport, events: readonly TimelineEvent[]): string {
  const sec = (ms: number | null): string => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);
  const poolRows = report.pools
    .map(
      (p) =>
        `<tr><td>${esc(p.name)}</td><td>${p.updated}/${p.nodes}</td><td>${p.maxUnavailableSeen} / ${p.maxUnavailable}</td><td>${esc(p.rolloutOrder.join(', '))}</td><td><code>${esc(p.config)}</code></td></tr>`,
    )
    .join('\n');
  const condRows = (phase: 'install' | 'update'): string =>
    report.conditions
      .filter((c) => c.phase === phase)
      .map(
        (c) =>
          `<tr><td>+${sec(c.atMs)}</td><td>${c.clearedMs === null ? '<b>still set</b>' : `+${sec(c.clearedMs)}${c.superseded === true ? ' (superseded)' : ''}`}</td><td>${esc(c.object)}</td><td>${esc(`${c.condition.type}=${c.condition.status}`)}</td><td>${esc(c.condition.reason ?? '')}</td><td style="white-space:pre-line">${esc(c.condition.message ?? '')}</td></tr>`,
      )
      .join('\n');
  const condTable = (phase: 'install' | 'update'): string =>
    report.conditions.some((c) => c.phase === phase)
      ? `<h2>Conditions seen during the ${phase}</h2>\n<p class="note">times since the ${phase} started</p>\n<table><tr><th>set at</th><th>cleared at</th><th>object</th><th>condition</th><th>reason</th><th>message</th></tr>\n${condRows(phase)}\n</table>`
      : '';
  const minutes = (ms: number | null): string => (ms === null ? '-' : `${simMinutes(ms, report.timeScale)} min`);
  const opRows = report.operators
    .map(
      (o) =>
        `<tr><td>${esc(o.name)}</td><td>${o.reachedMs === null ? '<b>not reached</b>' : `+${sec(o.reachedMs)}`}</td><td>${minutes(o.reachedMs)}</td></tr>`,
    )
    .join('\n');
  const waitRows = report.waits
    .map(
      (w) =>
        `<tr><td>${esc(w.operator)}</td><td>${sec(w.ms)}</td><td>${minutes(w.ms)}</td><td>+${sec(w.fromMs)} to +${sec(w.toMs)}</td></tr>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>keelson rehearse ${esc(report.from)} → ${esc(report.to)}</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 4px} .outcome{font-weight:600;color:${report.exitCode === 0 ? '#2e7d32' : '#c62828'}}
table{border-collapse:collapse;margin:12px 0;font-size:13px} td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f4} td:nth-child(-n+2){white-space:nowrap} code{font-size:12px} .figures span{margin-right:18px} .note{color:#666;font-size:12px;margin:0}
.diagnosis{border:2px solid #c62828;border-radius:6px;padding:8px 14px;background:#fff5f5;max-width:1100px}
.diagnosis h2{margin:4px 0 8px;font-size:16px;color:#c62828} .diagnosis li{margin:4px 0} .diagnosis .todo{color:#1b5e20}
</style></head><body>
<h1>keelson rehearse ${esc(report.from)} → ${esc(report.to)}</h1>
<p class="outcome">${esc(report.outcome)} (exit ${report.exitCode}): ${esc(report.message)}</p>
${diagnosisHtml(report.diagnosis)}
<p class="figures"><span>total ${sec(report.totalMs)}</span><span>install ${sec(report.installMs)}</span><span>update ${sec(report.upgradeMs)}</span><span>time scale ${report.timeScale}</span><span>reboots ${report.reboots.reduce((n, r) => n + r.count, 0)}</span><span>evictions ${report.api.evictions}</span><span>PDB refusals ${report.api.pdbRefusals}</span><span>API requests ${report.api.total}</span></p>
${timelineSvg(report, events)}
<h2>Pools</h2>
<table><tr><th>pool</th><th>updated</th><th>max unavailable seen / allowed</th><th>rollout order</th><th>config</th></tr>
${poolRows}
</table>
${mcnHtml(report.machineConfigNodes)}
<h2>Operators reaching ${esc(report.to)}</h2>
<table><tr><th>operator</th><th>reached (wall, since the update started)</th><th>simulated</th></tr>
${opRows}
</table>
${report.waits.length > 0 ? `<h2>What the CVO waited on</h2>\n<table><tr><th>operator</th><th>waited (wall)</th><th>simulated</th><th>when</th></tr>\n${waitRows}\n</table>` : ''}
${condTable('update')}
${condTable('install')}
${report.missing.length > 0 ? `<h2>Missing components</h2><ul>${report.missing.map((m) => `<li>${esc(m)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
