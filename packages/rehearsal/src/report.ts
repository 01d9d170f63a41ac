/**
 * The rehearsal's final report, computed from the timeline alone (pure): outcome, times per run level, when each
 * operator reached the target version, per pool the rollout order and the most nodes unavailable at once, evictions,
 * PDB refusals, reboots, conditions seen and API requests.
 */
import { formatDiagnosis, type Diagnosis } from './diagnosis.js';
import type { NodeView, ObservedCondition, TimelineEvent } from './timeline.js';
import { formatMcnReports, mcnReports, type McnNodeReport } from './mcn.js';

/** How a rehearsal ended. */
export type Outcome =
  'Completed' | 'Failed' | 'Stalled' | 'NodeRolloutFailed' | 'PoolPaused' | 'InvariantViolated' | 'NotRunnable';

/** Exit code per outcome (documented in the README). */
export const EXIT_CODES: Readonly<Record<Outcome, number>> = {
  Completed: 0,
  NotRunnable: 3,
  Failed: 4,
  Stalled: 5,
  NodeRolloutFailed: 6,
  PoolPaused: 7,
  InvariantViolated: 8,
};

/** API traffic through the rehearsal's proxy. */
export interface ApiCounts {
  total: number;
  byVerb: Record<string, number>;
  evictions: number;
  pdbRefusals: number;
  injectedErrors: number;
  /** Requests by route and client (`get /api/v1/nodes/{name} (machine-config-daemon)`, `list …`, `watch …`), the whole run. */
  byRoute?: Record<string, number>;
  /** The requests from the update request on (what the update itself cost). */
  update?: { total: number; byVerb: Record<string, number>; byRoute: Record<string, number> };
}

/** Inputs of {@link computeReport} besides the timeline. */
export interface ReportContext {
  from: string;
  to: string;
  outcome: Outcome;
  message: string;
  timeScale: number;
  api: ApiCounts;
  /** Run levels with the operators the CVO waits for there (from the upgrade plan), for run-level times. */
  runLevels: readonly { level: string; operators: readonly string[] }[];
  faults: readonly string[];
  missing?: readonly string[];
  /** What held a failed or stalled update, read from the cluster before it was stopped. */
  diagnosis?: readonly Diagnosis[];
}

/** Per pool. */
export interface PoolReport {
  name: string;
  nodes: number;
  maxUnavailable: number;
  /** Most nodes of the pool unavailable at the same instant during the update. */
  maxUnavailableSeen: number;
  /** Nodes in the order they were given the target config. */
  rolloutOrder: string[];
  /** Rendered config the pool ended on. */
  config: string;
  updated: number;
  paused: boolean;
}

/** The final report. */
export interface RehearsalReport {
  outcome: Outcome;
  exitCode: number;
  message: string;
  from: string;
  to: string;
  /** Wall-clock milliseconds of the whole rehearsal, of the install and of the update. */
  totalMs: number;
  installMs: number | null;
  upgradeMs: number | null;
  /** The update's duration on the simulated clock (wall time x time scale), seconds. */
  simulatedUpgradeSeconds: number | null;
  timeScale: number;
  /** Each run level from its first start to its first completion; later sync attempts' starts in `laterStartsMs`. */
  runLevels: { level: string; startMs: number; endMs: number | null; ms: number | null; laterStartsMs: number[] }[];
  /**
   * The CVO waiting on ClusterOperators (its Progressing message's "waiting on X"): per operator, from the first message
   * naming it to the first one that does not, ms after the update started (the longest first).
   */
  waits: { operator: string; fromMs: number; toMs: number; ms: number }[];
  operators: { name: string; reachedMs: number | null }[];
  pools: PoolReport[];
  reboots: { node: string; count: number }[];
  /** Per node, its MachineConfigNode's conditions during the update and its final state. */
  machineConfigNodes: McnNodeReport[];
  /**
   * Problem conditions, each first seen at `firstMs` (rehearsal clock), in the install or the update phase, at `atMs`
   * on that phase's clock, and when the same condition type of that object stopped being a problem (`clearedMs`, same
   * clock; null: still set at the verdict).
   */
  conditions: {
    object: string;
    condition: ObservedCondition;
    firstMs: number;
    phase: 'install' | 'update';
    atMs: number;
    clearedMs: number | null;
    /** True when it ended because another problem of the same condition type replaced it (not cleared). */
    superseded?: boolean;
  }[];
  /** Components killed or restarted during the update (`--kill`, a Deployment roll-out), ms after the update started. */
  interruptions: { component: string; state: 'killed' | 'restarted'; detail: string; atMs: number }[];
  /** Faults as injected (what was armed, where), ms after the rehearsal started. */
  injected: { fault: string; detail: string; atMs: number }[];
  api: ApiCounts;
  faults: string[];
  missing: string[];
  /** A failed or stalled update: what holds it and what to do (`keelson mcp why`, the operators' conditions). */
  diagnosis: Diagnosis[];
}

function phaseStart(events: readonly TimelineEvent[], phase: 'install' | 'upgrade' | 'finished'): number | null {
  const e = events.find((x) => x.type === 'phase' && x.phase === phase);
  return e === undefined ? null : e.t;
}

function runLevelTimes(
  events: readonly TimelineEvent[],
  ctx: ReportContext,
  start: number,
  reached: ReadonlyMap<string, number>,
): RehearsalReport['runLevels'] {
  const fromCvo = events.filter(
    (e): e is Extract<TimelineEvent, { type: 'runlevel' }> =>
      e.type === 'runlevel' && e.t >= start && e.version === ctx.to,
  );
  if (fromCvo.length > 0) {
    const levels: RehearsalReport['runLevels'] = [];
    for (const e of fromCvo) {
      let l = levels.find((x) => x.level === e.level);
      if (l === undefined) {
        l = { level: e.level, startMs: e.t - start, endMs: null, ms: null, laterStartsMs: [] };
        levels.push(l);
      } else if (e.state === 'started') l.laterStartsMs.push(e.t - start);
      // first start to first completion: each sync attempt after it walks the levels again (thin marks in the chart)
      if (e.state === 'finished' && l.endMs === null) {
        l.endMs = e.t - start;
        l.ms = l.endMs - l.startMs;
      }
    }
    return levels;
  }
  // the CVO reported run levels, none of the target: it never started applying it (e.g. refused on a precondition)
  if (events.some((e) => e.type === 'runlevel')) return [];
  // without CVO progress events: a level ends when its last operator reports the target version
  const out: RehearsalReport['runLevels'] = [];
  let prev = 0;
  for (const l of ctx.runLevels) {
    if (l.operators.length === 0) continue;
    const times = l.operators.map((o) => reached.get(o));
    const end = times.some((x) => x === undefined) ? null : Math.max(...(times as number[])) - start;
    out.push({ level: l.level, startMs: prev, endMs: end, ms: end === null ? null : end - prev, laterStartsMs: [] });
    if (end !== null) prev = end;
  }
  return out;
}

function poolReports(events: readonly TimelineEvent[], start: number): PoolReport[] {
  const pools = new Map<string, Extract<TimelineEvent, { type: 'pool' }>['pool']>();
  for (const e of events) if (e.type === 'pool') pools.set(e.pool.name, e.pool);
  const out: PoolReport[] = [];
  for (const [name, last] of pools) {
    const nodes = new Map<string, NodeView>();
    const unavailable = new Set<string>();
    let maxSeen = 0;
    const order: string[] = [];
    for (const e of events) {
      if (e.type !== 'node' || e.node.pool !== name) continue;
      nodes.set(e.node.name, e.node);
      if (e.t < start) continue;
      if (e.node.unavailable) unavailable.add(e.node.name);
      else unavailable.delete(e.node.name);
      maxSeen = Math.max(maxSeen, unavailable.size);
      if (last.target !== '' && e.node.desiredConfig === last.target && !order.includes(e.node.name))
        order.push(e.node.name);
    }
    out.push({
      name,
      nodes: last.machineCount || nodes.size,
      maxUnavailable: last.maxUnavailable,
      maxUnavailableSeen: maxSeen,
      rolloutOrder: order,
      config: last.config,
      updated: last.updated,
      paused: last.paused,
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * The events up to the verdict (the `finished` phase): what components do while they are stopped afterwards (nodes
 * going away, controllers recounting) is not part of the rehearsal's outcome.
 */
function untilVerdict(events: readonly TimelineEvent[]): readonly TimelineEvent[] {
  const i = events.findIndex((x) => x.type === 'phase' && x.phase === 'finished');
  return i < 0 ? events : events.slice(0, i + 1);
}

/** Intervals of "waiting on A, B" in ClusterVersion's Progressing message after `start` (see RehearsalReport.waits). */
function cvoWaits(events: readonly TimelineEvent[], start: number, end: number): RehearsalReport['waits'] {
  const open = new Map<string, number>();
  const out: RehearsalReport['waits'] = [];
  const close = (op: string, at: number): void => {
    const from = open.get(op);
    if (from === undefined) return;
    open.delete(op);
    const prev = out.find((w) => w.operator === op);
    if (prev !== undefined) {
      prev.toMs = at - start;
      prev.ms += at - from;
    } else out.push({ operator: op, fromMs: from - start, toMs: at - start, ms: at - from });
  };
  for (const e of events) {
    if (
      e.t < start ||
      e.type !== 'condition' ||
      e.object !== 'clusterversion/version' ||
      e.condition.type !== 'Progressing'
    )
      continue;
    const m = /waiting on ([a-z0-9.,\s-]+?)(?: over \d|$)/.exec(e.condition.message ?? '');
    const now = new Set(
      (m?.[1] ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '' && x !== 'and'),
    );
    for (const op of [...open.keys()]) if (!now.has(op)) close(op, e.t);
    for (const op of now) if (!open.has(op)) open.set(op, e.t);
  }
  for (const op of [...open.keys()]) close(op, end);
  return out.sort((a, b) => b.ms - a.ms);
}

/** A condition worth reporting: Failing/Degraded set, Available=False, Upgradeable=False. */
function isProblem(c: ObservedCondition): boolean {
  return (
    (['Failing', 'Degraded', 'NodeDegraded', 'RenderDegraded'].includes(c.type) && c.status === 'True') ||
    (c.type === 'Failing' && c.status === 'Unknown') ||
    (c.type === 'Available' && c.status === 'False') ||
    (c.type === 'Upgradeable' && c.status === 'False')
  );
}

/**
 * When the problem condition at `events[i]` stopped holding: the first later observation of the same condition type
 * on the same object that is no problem (cleared) or a different problem (superseded: another status, reason or
 * message replaced it, as when the CVO's Failing message moves on to the next operator).
 */
function endOf(events: readonly TimelineEvent[], i: number): { t: number; superseded: boolean } | undefined {
  const e = events[i];
  if (e?.type !== 'condition') return undefined;
  for (const x of events.slice(i + 1)) {
    if (x.type !== 'condition' || x.object !== e.object || x.condition.type !== e.condition.type) continue;
    if (!isProblem(x.condition)) return { t: x.t, superseded: false };
    const same =
      x.condition.status === e.condition.status &&
      (x.condition.reason ?? '') === (e.condition.reason ?? '') &&
      (x.condition.message ?? '') === (e.condition.message ?? '');
    if (!same) return { t: x.t, superseded: true };
  }
  return undefined;
}

/** Computes the report from the timeline (the events up to the verdict). */
export function computeReport(allEvents: readonly TimelineEvent[], ctx: ReportContext): RehearsalReport {
  const events = untilVerdict(allEvents);
  const install = phaseStart(events, 'install');
  const upgrade = phaseStart(events, 'upgrade');
  const end = phaseStart(events, 'finished') ?? events.at(-1)?.t ?? 0;
  const start = upgrade ?? end;
  const reached = new Map<string, number>();
  for (const e of events)
    if (e.type === 'operator' && e.version === ctx.to && e.t >= start && !reached.has(e.name)) reached.set(e.name, e.t);
  const operatorNames = [...new Set(events.filter((e) => e.type === 'operator').map((e) => e.name))];
  const reboots = new Map<string, number>();
  const lastReady = new Map<string, boolean>();
  for (const e of events) {
    if (e.type !== 'node') continue;
    const was = lastReady.get(e.node.name);
    if (e.t >= start && was === true && !e.node.ready) reboots.set(e.node.name, (reboots.get(e.node.name) ?? 0) + 1);
    lastReady.set(e.node.name, e.node.ready);
  }
  const seen = new Map<string, RehearsalReport['conditions'][number]>();
  events.forEach((e, i) => {
    if (e.type !== 'condition' || !isProblem(e.condition)) return;
    const key = `${e.object}|${e.condition.type}|${e.condition.reason ?? ''}|${e.condition.message ?? ''}`;
    if (seen.has(key)) return;
    const phase = upgrade !== null && e.t >= upgrade ? 'update' : 'install';
    const base = phase === 'update' ? start : (install ?? 0);
    const ended = endOf(events, i);
    const entry: RehearsalReport['conditions'][number] = {
      object: e.object,
      condition: e.condition,
      firstMs: e.t,
      phase,
      atMs: e.t - base,
      clearedMs: ended === undefined ? null : ended.t - base,
    };
    if (ended?.superseded === true) entry.superseded = true;
    seen.set(key, entry);
  });
  return {
    outcome: ctx.outcome,
    exitCode: EXIT_CODES[ctx.outcome],
    message: ctx.message,
    from: ctx.from,
    to: ctx.to,
    totalMs: end,
    installMs: install !== null && upgrade !== null ? upgrade - install : null,
    upgradeMs: upgrade !== null ? end - upgrade : null,
    simulatedUpgradeSeconds: upgrade !== null ? ((end - upgrade) * ctx.timeScale) / 1000 : null,
    timeScale: ctx.timeScale,
    runLevels: upgrade === null ? [] : runLevelTimes(events, ctx, upgrade, reached),
    operators: operatorNames
      .sort()
      .map((name) => ({ name, reachedMs: reached.has(name) ? (reached.get(name) ?? 0) - start : null })),
    pools: poolReports(events, start),
    reboots: [...reboots.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([node, count]) => ({ node, count })),
    machineConfigNodes: mcnReports(events, start),
    conditions: [...seen.values()],
    waits: upgrade === null ? [] : cvoWaits(events, start, end),
    interruptions: events.flatMap((e) =>
      e.type === 'component' && (e.state === 'killed' || e.state === 'restarted') && e.t >= start
        ? [{ component: e.component, state: e.state, detail: e.detail ?? '', atMs: e.t - start }]
        : [],
    ),
    injected: events.flatMap((e) => (e.type === 'fault' ? [{ fault: e.fault, detail: e.detail, atMs: e.t }] : [])),
    api: ctx.api,
    faults: [...ctx.faults],
    missing: [...(ctx.missing ?? [])],
    diagnosis: [...(ctx.diagnosis ?? [])],
  };
}

/** Whether every pool kept within maxUnavailable at every instant. */
export function withinMaxUnavailable(report: RehearsalReport): boolean {
  return report.pools.every((p) => p.maxUnavailableSeen <= p.maxUnavailable);
}

function secs(ms: number | null): string {
  return ms === null ? '-' : `${(ms / 1000).toFixed(1)}s`;
}

/** Wall milliseconds as minutes on the simulated clock (one decimal). */
export function simMinutes(ms: number, timeScale: number): string {
  return ((ms * timeScale) / 60_000).toFixed(1);
}

function clearedText(c: RehearsalReport['conditions'][number]): string {
  if (c.clearedMs === null) return 'still set at the end';
  return `${c.superseded === true ? 'superseded' : 'cleared'} +${secs(c.clearedMs)}`;
}

/** Indents the continuation lines of a multi-line message under the line it starts on. */
function indentLines(text: string, pad: string): string {
  return text.replace(/\r?\n/g, `\n${pad}`);
}

/** The report as text. */
export function formatReport(r: RehearsalReport): string {
  const out: string[] = [];
  out.push(`Rehearsal ${r.from} -> ${r.to}: ${r.outcome} (exit ${r.exitCode})`, `  ${r.message}`);
  if (r.diagnosis.length > 0)
    out.push('  Diagnosis (as keelson mcp why and upgrade status see it):', ...formatDiagnosis(r.diagnosis, '    '));
  if (r.missing.length > 0) {
    out.push('  Missing components:');
    for (const m of r.missing) out.push(`    - ${m}`);
  }
  out.push(
    `  Total ${secs(r.totalMs)}; install ${secs(r.installMs)}; update ${secs(r.upgradeMs)}${r.simulatedUpgradeSeconds !== null ? ` (~${Math.round(r.simulatedUpgradeSeconds)}s on the simulated clock, time scale ${r.timeScale})` : ''}`,
  );
  if (r.faults.length > 0) out.push(`  Faults: ${r.faults.join(', ')}`);
  if (r.runLevels.length > 0) {
    out.push('  Run levels:');
    for (const l of r.runLevels)
      out.push(
        `    ${l.level}: ${l.ms === null ? 'not finished' : secs(l.ms)} (from +${secs(l.startMs)}${l.laterStartsMs.length > 0 ? `; walked again by ${l.laterStartsMs.length} later sync attempt(s)` : ''})`,
      );
  }
  if (r.waits.length > 0) {
    out.push('  The CVO waited on (longest first):');
    for (const w of r.waits)
      out.push(
        `    ${w.operator}: ${secs(w.ms)} (~${simMinutes(w.ms, r.timeScale)} simulated min, from +${secs(w.fromMs)} to +${secs(w.toMs)})`,
      );
  }
  if (r.operators.length > 0)
    out.push(
      `  Operators at ${r.to}: ${r.operators.map((o) => `${o.name} ${o.reachedMs === null ? 'NOT reached' : `+${secs(o.reachedMs)}`}`).join(', ')}`,
    );
  for (const p of r.pools) {
    out.push(
      `  Pool ${p.name}: ${p.updated}/${p.nodes} updated on ${p.config || '-'}${p.paused ? ' (paused)' : ''}; max unavailable at once ${p.maxUnavailableSeen} (limit ${p.maxUnavailable})${p.maxUnavailableSeen > p.maxUnavailable ? ' EXCEEDED' : ''}`,
    );
    if (p.rolloutOrder.length > 0) out.push(`    rollout order: ${p.rolloutOrder.join(', ')}`);
  }
  for (const f of r.injected) out.push(`  Fault ${f.fault} at +${secs(f.atMs)}: ${f.detail}`);
  for (const x of r.interruptions)
    out.push(`  +${secs(x.atMs)} ${x.component} ${x.state}${x.detail !== '' ? ` (${x.detail})` : ''}`);
  out.push(
    `  Reboots: ${r.reboots.reduce((n, x) => n + x.count, 0)}; evictions ${r.api.evictions}; PDB refusals ${r.api.pdbRefusals}`,
  );
  out.push(...formatMcnReports(r.machineConfigNodes, '  '));
  for (const phase of ['install', 'update'] as const) {
    const cs = r.conditions.filter((c) => c.phase === phase);
    if (cs.length === 0) continue;
    out.push(`  Conditions seen during the ${phase} (time since the ${phase} started):`);
    for (const c of cs) {
      const msg = c.condition.message ?? '';
      out.push(
        `    +${secs(c.atMs)} ${c.object} ${c.condition.type}=${c.condition.status}${c.condition.reason !== undefined ? ` ${c.condition.reason}` : ''}${msg !== '' ? `: ${indentLines(msg.trimEnd(), '        ')}` : ''} [${clearedText(c)}]`,
      );
    }
  }
  out.push(
    `  API requests: ${r.api.total} (${Object.entries(r.api.byVerb)
      .map(([v, n]) => `${v} ${n}`)
      .join(', ')})${r.api.injectedErrors > 0 ? `; ${r.api.injectedErrors} injected errors` : ''}`,
  );
  return `${out.join('\n')}\n`;
}
