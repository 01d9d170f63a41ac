/**
 * Upgrade path planning across minors: shortest safe path over recommended edges, with conditional
 * edges allowed only when every risk on them is accepted or evaluated as not matching the cluster.
 */
import { NoPathError } from './errors.js';
import type { ConditionalUpdateRisk, Graph } from './graph.js';
import type { Condition } from './risk.js';
import { compareSemver, compareVersionStrings, parseSemver } from './semver.js';
import { at, must } from './util.js';

/** Why a risk on a planned hop does not block it. */
export type RiskDisposition = 'accepted' | 'not-matching';

/** One hop of a plan. */
export interface PlannedHop {
  readonly from: string;
  readonly to: string;
  /** `recommended` (plain edge) or `conditional` (edge with risks). */
  readonly kind: 'recommended' | 'conditional';
  /** Risks on a conditional hop and why each does not block. */
  readonly risks: readonly (ConditionalUpdateRisk & { readonly disposition: RiskDisposition })[];
  /** Human-readable explanation of the hop. */
  readonly explanation: string;
  /** Release image of the target. */
  readonly image: string;
}

/** A planned update path. */
export interface UpdatePlan {
  readonly from: string;
  readonly to: string;
  readonly hops: readonly PlannedHop[];
  /** Number of conditional hops on the path. */
  readonly conditionalHops: number;
}

/** Options of {@link planPath}. */
export interface PlanOptions {
  /** Risk names the admin accepts. */
  readonly acceptRisks?: Iterable<string>;
  /** Risk names evaluated as not matching this cluster. */
  readonly notMatchingRisks?: Iterable<string>;
  /** Risk conditions from {@link evaluateConditionalUpdates}: `Applies=False` counts as not matching. */
  readonly riskConditions?: Readonly<Record<string, Condition>>;
}

interface Arc {
  to: number;
  risks: ConditionalUpdateRisk[] | undefined; // undefined = recommended
}

/** A planning index over one or several graphs (e.g. one per channel). Build once, query many times. */
export class PlanIndex {
  /** Versions by id. */
  readonly versions: string[] = [];
  /** Images by id. */
  readonly images: string[] = [];
  private readonly ids = new Map<string, number>();
  private readonly out: Arc[][] = [];
  private readonly inc: number[][] = [];
  /** Version order rank per id (0 = oldest). */
  readonly rank: Int32Array = new Int32Array(0);

  constructor(graphs: Graph | readonly Graph[]) {
    const list = Array.isArray(graphs) ? (graphs as readonly Graph[]) : [graphs as Graph];
    const id = (v: string, image: string): number => {
      let i = this.ids.get(v);
      if (i === undefined) {
        i = this.versions.length;
        this.ids.set(v, i);
        this.versions.push(v);
        this.images.push(image);
        this.out.push([]);
        this.inc.push([]);
      }
      return i;
    };
    const arcs = new Map<string, Arc>();
    for (const g of list) {
      const local = g.nodes.map((n) => id(n.version, n.payload));
      for (const [a, b] of g.edges) {
        const key = `${local[a]}>${local[b]}`;
        if (!arcs.has(key)) arcs.set(key, { to: at(local, b), risks: undefined });
      }
    }
    for (const g of list) {
      for (const group of g.conditionalEdges) {
        for (const e of group.edges) {
          const fa = this.ids.get(e.from);
          const tb = this.ids.get(e.to);
          if (fa === undefined || tb === undefined) continue;
          const key = `${fa}>${tb}`;
          const arc = arcs.get(key);
          if (!arc) arcs.set(key, { to: tb, risks: [...group.risks] });
          else if (!arc.risks) arc.risks = [...group.risks];
          else for (const r of group.risks) if (!arc.risks.some((x) => x.name === r.name)) arc.risks.push(r);
        }
      }
    }
    for (const [key, arc] of arcs) {
      const from = Number(key.slice(0, key.indexOf('>')));
      this.out[from]?.push(arc);
      this.inc[arc.to]?.push(from);
    }
    // prefer newer intermediate versions on ties: rank versions once, then sort arcs by rank
    const parsed = this.versions.map((v) => {
      try {
        return parseSemver(v);
      } catch {
        return undefined;
      }
    });
    const order = this.versions.map((_, i) => i);
    order.sort((a, b) => {
      const pa = parsed[a];
      const pb = parsed[b];
      if (pa && pb) return compareSemver(pa, pb) || (at(this.versions, a) < at(this.versions, b) ? -1 : 1);
      return compareVersionStrings(at(this.versions, a), at(this.versions, b));
    });
    const rank = new Int32Array(this.versions.length);
    order.forEach((id, r) => (rank[id] = r));
    this.rank = rank;
    for (const l of this.out) l.sort((x, y) => (rank[y.to] ?? 0) - (rank[x.to] ?? 0));
  }

  /** Id of a version or -1. */
  idOf(version: string): number {
    return this.ids.get(version) ?? -1;
  }

  /** Outgoing arcs of an id. */
  arcs(id: number): readonly { to: number; risks: readonly ConditionalUpdateRisk[] | undefined }[] {
    return this.out[id] ?? [];
  }

  /** Ids with an arc into `id`. */
  preds(id: number): readonly number[] {
    return this.inc[id] ?? [];
  }
}

const indexCache = new WeakMap<Graph, PlanIndex>();

function indexFor(graphs: Graph | readonly Graph[] | PlanIndex): PlanIndex {
  if (graphs instanceof PlanIndex) return graphs;
  if (Array.isArray(graphs)) return new PlanIndex(graphs as readonly Graph[]);
  const g = graphs as Graph;
  let idx = indexCache.get(g);
  if (!idx) indexCache.set(g, (idx = new PlanIndex(g)));
  return idx;
}

type Gate = (risks: readonly ConditionalUpdateRisk[] | undefined) => boolean;

/** A shortest path found by {@link search}: each vertex's parent and the arc it was reached by. */
interface SearchResult {
  parent: Int32Array;
  parentArc: (Arc | undefined)[];
}

/** BFS minimizing (hops, conditional hops). Returns parent array or undefined when unreachable. */
function search(idx: PlanIndex, s: number, t: number, allowed: Gate): SearchResult | undefined {
  const n = idx.versions.length;
  const dist = new Int32Array(n).fill(-1);
  const cond = new Int32Array(n);
  const parent = new Int32Array(n).fill(-1);
  const parentArc: (Arc | undefined)[] = new Array<Arc | undefined>(n);
  dist[s] = 0;
  let frontier = [s];
  while (frontier.length > 0 && dist[t] === -1) {
    const next: number[] = [];
    for (const u of frontier) {
      // typed-array reads are always in range here (ids < n); `?? 0` only satisfies the index type
      const du = (dist[u] ?? 0) + 1;
      const cu = cond[u] ?? 0;
      for (const arc of idx.arcs(u) as Arc[]) {
        if (arc.risks && !allowed(arc.risks)) continue;
        const c = arc.risks ? cu + 1 : cu;
        const v = arc.to;
        if (dist[v] === -1) {
          dist[v] = du;
          cond[v] = c;
          parent[v] = u;
          parentArc[v] = arc;
          next.push(v);
        } else if (dist[v] === du && c < (cond[v] ?? 0)) {
          cond[v] = c;
          parent[v] = u;
          parentArc[v] = arc;
        }
      }
    }
    frontier = next;
  }
  return dist[t] === -1 ? undefined : { parent, parentArc };
}

function reach(idx: PlanIndex, s: number, forward: boolean, allowed: Gate): Uint8Array {
  const seen = new Uint8Array(idx.versions.length);
  seen[s] = 1;
  const stack = [s];
  while (stack.length > 0) {
    const u = must(stack.pop(), 'stack entry');
    if (forward) {
      for (const arc of idx.arcs(u))
        if (allowed(arc.risks) && !seen[arc.to]) {
          seen[arc.to] = 1;
          stack.push(arc.to);
        }
    } else {
      for (const p of idx.preds(u))
        if (!seen[p]) {
          seen[p] = 1;
          stack.push(p);
        }
    }
  }
  return seen;
}

/**
 * Plans the shortest safe update path from `from` to `to` over one graph, several graphs (e.g. one per
 * channel) or a prebuilt {@link PlanIndex}. Throws {@link NoPathError} saying which hop is missing, and
 * which risks would have to be accepted when only conditional edges connect the versions.
 */
export function planPath(
  graphs: Graph | readonly Graph[] | PlanIndex,
  from: string,
  to: string,
  options: PlanOptions = {},
): UpdatePlan {
  const idx = indexFor(graphs);
  const accepted = new Set(options.acceptRisks ?? []);
  const notMatching = new Set(options.notMatchingRisks ?? []);
  for (const [name, c] of Object.entries(options.riskConditions ?? {})) if (c.status === 'False') notMatching.add(name);
  const s = idx.idOf(from);
  const t = idx.idOf(to);
  if (s < 0)
    throw new NoPathError(`${from} is not in the update graph`, `${from} (source) is not a node of the graph`, []);
  if (t < 0) throw new NoPathError(`${to} is not in the update graph`, `${to} (target) is not a node of the graph`, []);
  if (s === t) return { from, to, hops: [], conditionalHops: 0 };
  const ok: Gate = (risks) => !risks || risks.every((r) => accepted.has(r.name) || notMatching.has(r.name));
  const found = search(idx, s, t, ok);
  if (found) return planOf(idx, found, t, notMatching, from, to);
  // No safe path: explain.
  const anyPath = search(idx, s, t, () => true);
  if (anyPath) throwBlocked(idx, anyPath, t, ok, { accepted, notMatching }, from, to);
  throwDisconnected(idx, s, t, from, to);
}

/** The hops of a found path, each conditional one with the disposition of its risks. */
function planOf(
  idx: PlanIndex,
  found: SearchResult,
  t: number,
  notMatching: ReadonlySet<string>,
  from: string,
  to: string,
): UpdatePlan {
  const ids: number[] = [];
  for (let v = t; v !== -1; v = at(found.parent, v)) ids.push(v);
  ids.reverse();
  const hops: PlannedHop[] = [];
  let conditionalHops = 0;
  for (let i = 1; i < ids.length; i++) {
    const arc = must(found.parentArc[at(ids, i)], 'parent arc');
    const a = at(idx.versions, at(ids, i - 1));
    const b = at(idx.versions, at(ids, i));
    if (!arc.risks) {
      hops.push({
        from: a,
        to: b,
        kind: 'recommended',
        risks: [],
        explanation: `${a} → ${b}: recommended update`,
        image: at(idx.images, at(ids, i)),
      });
    } else {
      conditionalHops++;
      const risks = arc.risks.map((r) => ({
        ...r,
        disposition: notMatching.has(r.name) ? ('not-matching' as const) : ('accepted' as const),
      }));
      const why = risks
        .map(
          (r) => `${r.name} ${r.disposition === 'accepted' ? 'accepted' : 'does not apply to this cluster'} (${r.url})`,
        )
        .join('; ');
      hops.push({
        from: a,
        to: b,
        kind: 'conditional',
        risks,
        explanation: `${a} → ${b}: conditional update; ${why}`,
        image: at(idx.images, at(ids, i)),
      });
    }
  }
  return { from, to, hops, conditionalHops };
}

/** Throws the NoPathError naming the first conditional hop and every risk that would have to be accepted. */
function throwBlocked(
  idx: PlanIndex,
  anyPath: SearchResult,
  t: number,
  ok: Gate,
  risks: { accepted: ReadonlySet<string>; notMatching: ReadonlySet<string> },
  from: string,
  to: string,
): never {
  const { accepted, notMatching } = risks;
  const blocked: string[] = [];
  let firstBlocked = '';
  const ids: number[] = [];
  for (let v = t; v !== -1; v = at(anyPath.parent, v)) ids.push(v);
  ids.reverse();
  for (let i = 1; i < ids.length; i++) {
    const arc = must(anyPath.parentArc[at(ids, i)], 'parent arc');
    if (arc.risks && !ok(arc.risks)) {
      const names = arc.risks.filter((r) => !accepted.has(r.name) && !notMatching.has(r.name)).map((r) => r.name);
      if (!firstBlocked)
        firstBlocked = `${idx.versions[at(ids, i - 1)]} → ${idx.versions[at(ids, i)]} (conditional: ${names.join(', ')})`;
      for (const nm of names) if (!blocked.includes(nm)) blocked.push(nm);
    }
  }
  throw new NoPathError(
    `no recommended path from ${from} to ${to}: hop ${firstBlocked} is only conditionally recommended; accept the risks ${blocked.join(', ')} (--accept-risks ${blocked.join(',')}) or evaluate them against the cluster`,
    firstBlocked,
    blocked,
  );
}

/** Throws the NoPathError naming the missing hop between what `from` reaches and what leads to `to`. */
function throwDisconnected(idx: PlanIndex, s: number, t: number, from: string, to: string): never {
  const fwd = reach(idx, s, true, () => true);
  const back = reach(idx, t, false, () => true);
  let highest = s;
  let lowest = t;
  let reachable = 0;
  let leading = 0;
  for (let i = 0; i < idx.versions.length; i++) {
    if (fwd[i]) {
      reachable++;
      if (at(idx.rank, i) > at(idx.rank, highest)) highest = i;
    }
    if (back[i]) {
      leading++;
      if (at(idx.rank, i) < at(idx.rank, lowest)) lowest = i;
    }
  }
  const hi = at(idx.versions, highest);
  const lo = at(idx.versions, lowest);
  const downgrade =
    compareVersionStrings(to, from) < 0 ? ` (${to} is older than ${from}: downgrades are not supported)` : '';
  const missing = `${hi} → ${lo}`;
  const minorOf = (v: string): [number, number] | undefined => {
    const m = /^(\d+)\.(\d+)\./.exec(v);
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  };
  const mh = minorOf(hi);
  const ml = minorOf(lo);
  let gap = '';
  if (mh && ml && mh[0] === ml[0] && ml[1] - mh[1] > 1) gap = `; no ${mh[0]}.${mh[1] + 1}.z release connects them`;
  throw new NoPathError(
    `no update path from ${from} to ${to}${downgrade}: the ${reachable} version(s) reachable from ${from} end at ${hi}, and the ${leading} version(s) leading to ${to} start at ${lo}; the missing hop is ${missing}${gap} (no edge joins the two sets — load the graph of the next channel, e.g. the one for ${lo.split('.').slice(0, 2).join('.')}, or wait for a new edge)`,
    missing,
    [],
  );
}
