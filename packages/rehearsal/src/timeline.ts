/**
 * The rehearsal's timeline: what the observer saw, as events, and the pure functions that turn object snapshots read
 * from the API (ClusterVersion, ClusterOperators, MachineConfigPools, Nodes) into those events. Only changes become
 * events, so a non-TTY run prints one line per state change.
 */
import { scaledMaxUnavailable } from './max-unavailable.js';
import type { McnEvent } from './mcn.js';

/** A Kubernetes-style condition as read from status. */
export interface ObservedCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** What a node is doing, derived from the MCO's node annotations, cordon and Ready. */
export type NodePhase = 'done' | 'draining' | 'updating' | 'rebooting' | 'degraded';

/** A node as the rehearsal sees it. */
export interface NodeView {
  name: string;
  pool: string;
  phase: NodePhase;
  currentConfig: string;
  desiredConfig: string;
  ready: boolean;
  cordoned: boolean;
  /** Counted against maxUnavailable (not ready, cordoned, or not on its desired config), as the MCO counts it. */
  unavailable: boolean;
  /** machineconfiguration.openshift.io/reason when degraded. */
  reason?: string;
}

/** A pool as the rehearsal sees it. */
export interface PoolView {
  name: string;
  machineCount: number;
  updated: number;
  ready: number;
  unavailable: number;
  degraded: number;
  paused: boolean;
  /** status.configuration.name (what the pool's nodes run when Updated). */
  config: string;
  /** spec.configuration.name (the rendered config the pool targets). */
  target: string;
  maxUnavailable: number;
  conditions: ObservedCondition[];
}

/** One event of the timeline; `t` is milliseconds since the rehearsal started. */
export type TimelineEvent =
  | {
      t: number;
      type: 'phase';
      phase: 'setup' | 'install' | 'upgrade' | 'finished';
      detail: string;
      /** Versions of A and B, once the releases are open. */ from?: string;
      to?: string;
    }
  | { t: number; type: 'condition'; object: string; condition: ObservedCondition }
  | { t: number; type: 'history'; version: string; state: string }
  | { t: number; type: 'progress'; done: number; total: number; version: string }
  | { t: number; type: 'runlevel'; level: string; state: 'started' | 'finished'; version: string }
  | { t: number; type: 'operator'; name: string; version: string }
  | { t: number; type: 'pool'; pool: PoolView }
  | { t: number; type: 'node'; node: NodeView; previous?: NodePhase }
  | { t: number; type: 'fault'; fault: string; detail: string }
  | McnEvent
  | {
      t: number;
      type: 'component';
      component: string;
      state: 'started' | 'stopped' | 'killed' | 'restarted';
      detail?: string;
    };

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function conditionsOf(o: unknown): ObservedCondition[] {
  const list = obj(obj(o)['status'])['conditions'];
  if (!Array.isArray(list)) return [];
  return list.map((c) => {
    const x = obj(c);
    const out: ObservedCondition = { type: str(x['type']), status: str(x['status']) };
    if (typeof x['reason'] === 'string') out.reason = x['reason'];
    if (typeof x['message'] === 'string') out.message = x['message'];
    return out;
  });
}

/** Condition changes (type, status, reason or message) between two snapshots of one object. */
export function diffConditions(object: string, before: unknown, after: unknown, t: number): TimelineEvent[] {
  const old = new Map(conditionsOf(before).map((c) => [c.type, c]));
  const out: TimelineEvent[] = [];
  for (const c of conditionsOf(after)) {
    const o = old.get(c.type);
    if (o === undefined || o.status !== c.status || o.reason !== c.reason || o.message !== c.message)
      out.push({ t, type: 'condition', object, condition: c });
  }
  return out;
}

const PROGRESS_RE = /(\d+) of (\d+) done/;

/** Events from a ClusterVersion change: conditions, history[0] state, manifests done of total. */
export function clusterVersionEvents(before: unknown, after: unknown, t: number): TimelineEvent[] {
  const out = diffConditions('clusterversion/version', before, after, t);
  const h = (o: unknown): Obj => obj((obj(obj(o)['status'])['history'] as unknown[] | undefined)?.[0]);
  const hb = h(before);
  const ha = h(after);
  if (
    str(ha['version']) !== '' &&
    (str(ha['version']) !== str(hb['version']) || str(ha['state']) !== str(hb['state']))
  ) {
    out.push({ t, type: 'history', version: str(ha['version']), state: str(ha['state']) });
  }
  const prog = (o: unknown): string => conditionsOf(o).find((c) => c.type === 'Progressing')?.message ?? '';
  const m = PROGRESS_RE.exec(prog(after));
  if (m !== null && prog(after) !== prog(before)) {
    const version = str(obj(obj(obj(after)['status'])['desired'])['version']);
    out.push({ t, type: 'progress', done: Number(m[1]), total: Number(m[2]), version });
  }
  return out;
}

/** Events from a ClusterOperator change: its `operator` version and its conditions. */
export function clusterOperatorEvents(before: unknown, after: unknown, t: number): TimelineEvent[] {
  const name = str(obj(obj(after)['metadata'])['name']);
  const version = (o: unknown): string => {
    const vs = obj(obj(o)['status'])['versions'];
    return Array.isArray(vs) ? str(obj(vs.find((v) => obj(v)['name'] === 'operator'))['version']) : '';
  };
  const out = diffConditions(`clusteroperator/${name}`, before, after, t).filter(
    (e) => e.type !== 'condition' || e.condition.type === 'Degraded' || e.condition.type === 'Available',
  );
  if (version(after) !== '' && version(after) !== version(before))
    out.push({ t, type: 'operator', name, version: version(after) });
  return out;
}

/** The pool view of a MachineConfigPool object. */
export function poolView(o: unknown): PoolView {
  const meta = obj(obj(o)['metadata']);
  const spec = obj(obj(o)['spec']);
  const st = obj(obj(o)['status']);
  const num = (k: string): number => (typeof st[k] === 'number' ? st[k] : 0);
  return {
    name: str(meta['name']),
    machineCount: num('machineCount'),
    updated: num('updatedMachineCount'),
    ready: num('readyMachineCount'),
    unavailable: num('unavailableMachineCount'),
    degraded: num('degradedMachineCount'),
    paused: spec['paused'] === true,
    config: str(obj(st['configuration'])['name']),
    target: str(obj(spec['configuration'])['name']),
    maxUnavailable: scaledMaxUnavailable(spec['maxUnavailable'], num('machineCount'), str(meta['name'])),
    conditions: conditionsOf(o),
  };
}

/** Events from a MachineConfigPool change: counts/config (one `pool` event) and its conditions. */
export function poolEvents(before: unknown, after: unknown, t: number): TimelineEvent[] {
  const a = poolView(after);
  const out = diffConditions(`machineconfigpool/${a.name}`, before, after, t).filter(
    (e) =>
      e.type !== 'condition' ||
      ['Updated', 'Updating', 'Degraded', 'NodeDegraded', 'RenderDegraded'].includes(e.condition.type),
  );
  const b = before === undefined ? undefined : poolView(before);
  const key = (p: PoolView): string =>
    JSON.stringify([
      p.machineCount,
      p.updated,
      p.ready,
      p.unavailable,
      p.degraded,
      p.paused,
      p.config,
      p.target,
      p.maxUnavailable,
    ]);
  if (b === undefined || key(b) !== key(a)) out.push({ t, type: 'pool', pool: a });
  return out;
}

const ANN = 'machineconfiguration.openshift.io/';

/** The node view of a Node object; `pool` is decided by the caller (pool node selectors). */
export function nodeView(o: unknown, pool: string): NodeView {
  const meta = obj(obj(o)['metadata']);
  const ann = obj(meta['annotations']);
  const a = (k: string): string => str(ann[`${ANN}${k}`]);
  const ready = conditionsOf(o).find((c) => c.type === 'Ready')?.status === 'True';
  const cordoned = obj(obj(o)['spec'])['unschedulable'] === true;
  const state = a('state');
  const current = a('currentConfig');
  const desired = a('desiredConfig');
  const desiredDrain = a('desiredDrain');
  let phase: NodePhase = 'done';
  if (state === 'Degraded' || state === 'Unreconcilable') phase = 'degraded';
  else if (desiredDrain.startsWith('drain-') && a('lastAppliedDrain') !== desiredDrain) phase = 'draining';
  else if (!ready) phase = 'rebooting';
  else if (state === 'Working' || (desired !== '' && current !== desired)) phase = 'updating';
  const view: NodeView = {
    name: str(meta['name']),
    pool,
    phase,
    currentConfig: current,
    desiredConfig: desired,
    ready,
    cordoned,
    unavailable: !ready || cordoned || (desired !== '' && current !== desired),
  };
  if (phase === 'degraded' && a('reason') !== '') view.reason = a('reason');
  return view;
}

/** A `node` event when the node's phase, configs, readiness or cordon changed. */
export function nodeEvents(before: NodeView | undefined, after: NodeView, t: number): TimelineEvent[] {
  const key = (n: NodeView): string =>
    JSON.stringify([n.phase, n.currentConfig, n.desiredConfig, n.ready, n.cordoned, n.pool]);
  if (before !== undefined && key(before) === key(after)) return [];
  return [
    before === undefined ? { t, type: 'node', node: after } : { t, type: 'node', node: after, previous: before.phase },
  ];
}

/** Picks the pool of a node from pools' `spec.nodeSelector.matchLabels`; custom pools win over `worker`, as in the MCO. */
export function poolOfNode(node: unknown, pools: readonly unknown[]): string {
  const labels = obj(obj(obj(node)['metadata'])['labels']);
  const matching = pools.filter((p) => {
    const ml = obj(obj(obj(obj(p)['spec'])['nodeSelector'])['matchLabels']);
    const keys = Object.keys(ml);
    return keys.length > 0 && keys.every((k) => Object.hasOwn(labels, k) && str(labels[k]) === str(ml[k]));
  });
  const names = matching.map((p) => str(obj(obj(p)['metadata'])['name']));
  return names.find((n) => n !== 'worker' && n !== 'master') ?? names[0] ?? '';
}
