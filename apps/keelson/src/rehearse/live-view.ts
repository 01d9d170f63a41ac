/**
 * The live view of a running rehearsal: on a TTY a small dashboard redrawn in place (run level and manifests done of
 * total, operators at the new version, each pool's updated/ready/unavailable, nodes draining or rebooting); elsewhere one
 * plain line per state change. The state and the rendering are pure; {@link LiveView} only writes.
 */
import type { NodeView, PoolView, TimelineEvent } from '@keelson/rehearsal';

/** What the live view shows, folded from timeline events. */
export interface LiveState {
  from: string;
  to: string;
  phase: string;
  t: number;
  progress?: { done: number; total: number; version: string };
  runLevel?: string;
  operators: Map<string, string>;
  pools: Map<string, PoolView>;
  nodes: Map<string, NodeView>;
  /** Latest ClusterVersion Progressing / Failing messages. */
  progressing?: string;
  failing?: string | undefined;
}

/** An empty state. */
export function initialState(from: string, to: string): LiveState {
  return { from, to, phase: 'setup', t: 0, operators: new Map(), pools: new Map(), nodes: new Map() };
}

/** Folds one event into the state (mutates and returns it). */
export function applyEvent(s: LiveState, e: TimelineEvent): LiveState {
  s.t = Math.max(s.t, e.t);
  switch (e.type) {
    case 'phase':
      s.phase = e.phase;
      if (e.from !== undefined) s.from = e.from;
      if (e.to !== undefined) s.to = e.to;
      break;
    case 'progress': {
      // each sync attempt of the CVO counts from 0 again: show the furthest point reached for this version, as
      // `keelson upgrade status` keeps its completion from dropping
      const prev = s.progress;
      const done = prev?.version === e.version && prev.total === e.total ? Math.max(prev.done, e.done) : e.done;
      s.progress = { done, total: e.total, version: e.version };
      break;
    }
    case 'runlevel':
      if (e.state === 'started') s.runLevel = e.level;
      break;
    case 'operator':
      s.operators.set(e.name, e.version);
      break;
    case 'pool':
      s.pools.set(e.pool.name, e.pool);
      break;
    case 'node':
      s.nodes.set(e.node.name, e.node);
      break;
    case 'condition':
      if (e.object === 'clusterversion/version' && e.condition.type === 'Progressing')
        s.progressing = e.condition.message ?? '';
      if (e.object === 'clusterversion/version' && e.condition.type === 'Failing') {
        if (e.condition.status === 'True') s.failing = e.condition.message ?? e.condition.reason ?? 'Failing';
        else delete s.failing;
      }
      break;
    default:
      break;
  }
  return s;
}

function bar(done: number, total: number, width: number): string {
  const n = total > 0 ? Math.round((done / total) * width) : 0;
  return `[${'#'.repeat(n)}${'.'.repeat(width - n)}]`;
}

const cut = (s: string, w: number): string => (s.length > w ? `${s.slice(0, Math.max(0, w - 1))}~` : s);

/** The dashboard lines. */
export function renderLive(s: LiveState, width = 100): string[] {
  const out: string[] = [];
  out.push(`keelson rehearse ${s.from} -> ${s.to}   ${s.phase}   ${(s.t / 1000).toFixed(1)}s`);
  if (s.progress !== undefined)
    out.push(
      `manifests ${bar(s.progress.done, s.progress.total, 30)} ${s.progress.done}/${s.progress.total} (${s.progress.version})${s.runLevel !== undefined ? `   run level ${s.runLevel}` : ''}`,
    );
  if (s.progressing !== undefined) out.push(`  ${s.progressing}`);
  if (s.failing !== undefined) out.push(`  FAILING: ${s.failing}`);
  // during the install the operators head for A, afterwards for B
  const target = s.phase === 'install' || s.phase === 'setup' ? s.from : s.to;
  const at = [...s.operators.values()].filter((v) => v === target).length;
  if (s.operators.size > 0) out.push(`operators at ${target}: ${at}/${s.operators.size}`);
  for (const p of [...s.pools.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    out.push(
      `pool ${p.name.padEnd(8)} updated ${p.updated}/${p.machineCount}  ready ${p.ready}  unavailable ${p.unavailable}/${p.maxUnavailable}${p.degraded > 0 ? `  degraded ${p.degraded}` : ''}${p.paused ? '  PAUSED' : ''}`,
    );
  }
  const busy = [...s.nodes.values()].filter((n) => n.phase !== 'done').sort((a, b) => (a.name < b.name ? -1 : 1));
  if (busy.length > 0) out.push(`nodes: ${busy.map((n) => `${n.name} ${n.phase}`).join(', ')}`);
  return out.map((l) => cut(l, width));
}

/** One plain line for an event (non-TTY output), or undefined for events not worth a line. */
export function plainLine(e: TimelineEvent): string | undefined {
  const ts = `[${(e.t / 1000).toFixed(1).padStart(6)}s]`;
  switch (e.type) {
    case 'phase':
      return `${ts} ${e.phase}: ${e.detail}`;
    case 'condition':
      return `${ts} ${e.object} ${e.condition.type}=${e.condition.status}${e.condition.reason !== undefined ? ` ${e.condition.reason}` : ''}${e.condition.message !== undefined && e.condition.message !== '' ? `: ${e.condition.message}` : ''}`;
    case 'history':
      return `${ts} history ${e.version} ${e.state}`;
    case 'progress':
      return undefined;
    case 'runlevel':
      return `${ts} run level ${e.level} ${e.state} (${e.version})`;
    case 'operator':
      return `${ts} clusteroperator/${e.name} at ${e.version}`;
    case 'pool':
      return `${ts} machineconfigpool/${e.pool.name} updated ${e.pool.updated}/${e.pool.machineCount} ready ${e.pool.ready} unavailable ${e.pool.unavailable}${e.pool.paused ? ' paused' : ''} config ${e.pool.config || '-'}`;
    case 'node':
      return `${ts} node/${e.node.name} (${e.node.pool || '-'}) ${e.previous !== undefined ? `${e.previous} -> ` : ''}${e.node.phase}${e.node.reason !== undefined ? `: ${e.node.reason}` : ''}`;
    case 'mcn':
      // one line per MachineConfigNode condition would bury the rest; the report lists them per node
      return undefined;
    case 'fault':
      return `${ts} FAULT ${e.fault}: ${e.detail}`;
    case 'component':
      return `${ts} ${e.component} ${e.state}${e.detail !== undefined ? `: ${e.detail}` : ''}`;
  }
}

/** Output mode of the live view. */
export type LiveMode = 'tty' | 'plain' | 'quiet';

/** Writes the live view to a stream. */
export class LiveView {
  private readonly state: LiveState;
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WritableStream & { columns?: number },
    private readonly mode: LiveMode,
    from: string,
    to: string,
  ) {
    this.state = initialState(from, to);
  }

  /** Takes one event. */
  push(e: TimelineEvent): void {
    applyEvent(this.state, e);
    if (this.mode === 'plain') {
      const line = plainLine(e);
      if (line !== undefined) this.out.write(`${line}\n`);
    } else if (this.mode === 'tty')
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.draw();
      }, 100);
  }

  private draw(): void {
    const lines = renderLive(this.state, Math.max(40, (this.out.columns ?? 100) - 1));
    let text = this.drawn > 0 ? `\x1b[${this.drawn}F` : '';
    for (const l of lines) text += `\x1b[2K${l}\n`;
    for (let i = lines.length; i < this.drawn; i++) text += '\x1b[2K\n';
    this.drawn = Math.max(lines.length, this.drawn);
    this.out.write(text);
  }

  /** Final redraw; stops the timer. */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.mode === 'tty') this.draw();
  }
}
