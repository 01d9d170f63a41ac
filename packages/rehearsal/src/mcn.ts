/**
 * MachineConfigNodes in the rehearsal: the observer's MCN snapshots become `mcn` timeline events (one per condition
 * that changed status or reason), and the report lists, per node, the conditions its MCN went through during the
 * update and where it ended (`oc get mcn` columns: pool, desired and current config, Updated).
 */
import type { KubeObject } from '@keelson/kube';
import type { ObservedCondition, TimelineEvent } from './timeline.js';

/** One MCN condition change as the timeline records it. */
export interface McnEvent {
  t: number;
  type: 'mcn';
  node: string;
  pool: string;
  /** spec.configVersion.desired. */
  desired: string;
  /** status.configVersion.current. */
  current: string;
  condition: ObservedCondition;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function conditionsOf(o: KubeObject | undefined): ObservedCondition[] {
  const cs = obj(obj(o).status).conditions;
  if (!Array.isArray(cs)) return [];
  return cs.map((c) => {
    const x = obj(c);
    return { type: str(x.type), status: str(x.status), reason: str(x.reason), message: str(x.message) };
  });
}

/** The events of one MCN change (conditions whose status or reason changed; placeholders skipped). */
export function mcnEvents(prev: KubeObject | undefined, next: KubeObject, t: number): McnEvent[] {
  const spec = obj(obj(next).spec);
  const base = {
    t,
    type: 'mcn' as const,
    node: next.metadata.name ?? '',
    pool: str(obj(spec.pool).name),
    desired: str(obj(spec.configVersion).desired),
    current: str(obj(obj(obj(next).status).configVersion).current),
  };
  const before = new Map(conditionsOf(prev).map((c) => [c.type, c]));
  const out: McnEvent[] = [];
  for (const c of conditionsOf(next)) {
    const was = before.get(c.type);
    if (was !== undefined && was.status === c.status && was.reason === c.reason) continue;
    if (was === undefined && c.reason === 'NotYetOccurred') continue;
    out.push({ ...base, condition: c });
  }
  return out;
}

/** What the report says about one node's MCN. */
export interface McnNodeReport {
  node: string;
  pool: string;
  desired: string;
  current: string;
  /** Status of the Updated condition at the end ('' when never seen). */
  updated: string;
  /** Condition changes during the update, in order (ms since the update started). */
  transitions: { atMs: number; type: string; status: string; reason: string }[];
}

/** Per node, the MCN condition changes from `start` on and the last state seen. */
export function mcnReports(events: readonly TimelineEvent[], start: number): McnNodeReport[] {
  const byNode = new Map<string, McnNodeReport>();
  for (const e of events) {
    if (e.type !== 'mcn') continue;
    const r = byNode.get(e.node) ?? {
      node: e.node,
      pool: '',
      desired: '',
      current: '',
      updated: '',
      transitions: [],
    };
    r.pool = e.pool;
    r.desired = e.desired;
    r.current = e.current;
    if (e.condition.type === 'Updated') r.updated = e.condition.status;
    if (e.t >= start)
      r.transitions.push({
        atMs: e.t - start,
        type: e.condition.type,
        status: e.condition.status,
        reason: e.condition.reason ?? '',
      });
    byNode.set(e.node, r);
  }
  return [...byNode.values()].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}

/** The report lines (indented by `indent`). */
export function formatMcnReports(rs: readonly McnNodeReport[], indent: string): string[] {
  if (rs.length === 0) return [];
  const out = [`${indent}MachineConfigNodes (conditions as they changed during the update, time since it started):`];
  for (const r of rs) {
    out.push(
      `${indent}  ${r.node} (pool ${r.pool || '-'}): desired ${r.desired || '-'}, current ${r.current || '-'}, Updated ${r.updated || '-'}`,
    );
    // one line per write seen (the conditions that changed together)
    const groups = new Map<number, string[]>();
    for (const x of r.transitions) groups.set(x.atMs, [...(groups.get(x.atMs) ?? []), `${x.type}=${x.status}`]);
    for (const [at, cs] of groups) out.push(`${indent}    +${(at / 1000).toFixed(1)}s ${cs.join(' ')}`);
  }
  return out;
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The HTML report's MachineConfigNodes table ('' when none was seen). */
export function mcnHtml(rs: readonly McnNodeReport[]): string {
  if (rs.length === 0) return '';
  const rows = rs.map((r) => {
    const groups = new Map<number, string[]>();
    for (const x of r.transitions) groups.set(x.atMs, [...(groups.get(x.atMs) ?? []), `${x.type}=${x.status}`]);
    const writes = [...groups].map(([at, cs]) => `+${(at / 1000).toFixed(1)} s ${esc(cs.join(' '))}`).join('<br>');
    return `<tr><td>${esc(r.node)}</td><td>${esc(r.pool)}</td><td><code>${esc(r.desired)}</code></td><td><code>${esc(r.current)}</code></td><td>${esc(r.updated || '-')}</td><td>${writes}</td></tr>`;
  });
  return `<h2>MachineConfigNodes</h2>
<p class="note">oc get mcn, and each MCN write seen during the update (the conditions that changed together; time since the update started)</p>
<table><tr><th>node</th><th>pool</th><th>desired</th><th>current</th><th>Updated</th><th>condition changes</th></tr>
${rows.join('\n')}
</table>`;
}
