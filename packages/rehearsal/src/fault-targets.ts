/**
 * The targets of `--fault`, `--kill` and `--pause-pool` checked against the rehearsal cluster before anything starts:
 * ClusterOperators of the target release, the cluster's nodes and pools, and a `cvo@N%` kill point the update will
 * show. A typo is refused with "did you mean" instead of a rehearsal that silently injects nothing.
 */
import { RUN_LEVEL_COMPONENT_PATTERN } from '@keelson/manifest-graph';
import { filterManifests, type ReleasePayload } from '@keelson/release-payload';
import { FaultSpecError, type FaultPlan } from './faults.js';

/** What exists in the rehearsal cluster. */
export interface FaultTargets {
  /** ClusterOperators of the target release the simulator drives (machine-config is the real MCO's). */
  operators: readonly string[];
  /** Operators that exist but are not simulated, with why. */
  notSimulated: Readonly<Record<string, string>>;
  nodes: readonly string[];
  pools: readonly string[];
  /** The furthest `cvo@N%` point the update shows before it completes (see {@link lastWaitPoint}). */
  lastKillPoint?: { fraction: number; at: string };
}

/** Levenshtein distance (small inputs: names). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (cur[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** ` (did you mean "x"?)` for the closest known name, or '' when none is close. */
export function didYouMean(name: string, known: readonly string[]): string {
  let best: { n: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(name, k);
    if (best === undefined || d < best.d) best = { n: k, d };
  }
  if (best === undefined || best.d > Math.max(2, Math.floor(name.length / 3))) return '';
  return ` (did you mean ${JSON.stringify(best.n)}?)`;
}

function check(
  flag: string,
  name: string,
  what: string,
  known: readonly string[],
  extra: Readonly<Record<string, string>> = {},
): void {
  if (known.includes(name)) return;
  const why = extra[name];
  if (why !== undefined) throw new FaultSpecError(`${what} ${name} ${why}`, flag);
  const list = known.length > 8 ? `${known.slice(0, 8).join(', ')}, …` : known.join(', ');
  throw new FaultSpecError(
    `no ${what} ${JSON.stringify(name)} in the rehearsal${didYouMean(name, known)}; the ${what}s are: ${list}`,
    flag,
  );
}

/**
 * Throws a {@link FaultSpecError} for the first target that does not exist. Returns the kill point to use: `--kill
 * cvo@N%` past the last point the update shows is moved back to it, with a note saying so.
 */
export function validateFaultTargets(plan: FaultPlan, t: FaultTargets): { killCvoAt?: number; notes: string[] } {
  for (const n of plan.degradedOperators)
    check(`--fault degraded-operator=${n}`, n, 'ClusterOperator', t.operators, t.notSimulated);
  for (const n of plan.neverUpdates)
    check(`--fault operator-never-updates=${n}`, n, 'ClusterOperator', t.operators, t.notSimulated);
  for (const n of plan.nodeFailsBoot) check(`--fault node-fails-boot=${n}`, n, 'node', t.nodes);
  for (const d of plan.onDiskDrift) check(`--fault on-disk-drift=${d.node}:${d.path}`, d.node, 'node', t.nodes);
  for (const n of plan.killDaemons) check(`--kill daemon@${n}`, n, 'node', t.nodes);
  for (const p of plan.pausePools) check(`--pause-pool ${p}`, p, 'pool', t.pools);
  const notes: string[] = [];
  let killCvoAt = plan.killCvoAt;
  const last = t.lastKillPoint;
  if (killCvoAt !== undefined && last !== undefined && killCvoAt > last.fraction) {
    const pct = Math.floor(last.fraction * 100);
    notes.push(
      `--kill cvo@${Math.round(killCvoAt * 100)}%: the update shows no progress past ${pct}% (${last.at}; what follows completes at once): the CVO is killed at ${pct}% instead`,
    );
    killCvoAt = last.fraction;
  }
  return { ...(killCvoAt !== undefined ? { killCvoAt } : {}), notes };
}

/**
 * The furthest progress the CVO surely reports while an update still runs: the share of the target's tasks done when
 * the CVO waits at the last ClusterOperator manifest (in the highest run level): every lower run level and that
 * component's manifests before the ClusterOperator (the other components of the level run in parallel and may or may
 * not be done). Once the operator reports, the rest is applied within one status write, so a point past this one may
 * never be shown.
 */
export function lastWaitPoint(
  payload: Pick<ReleasePayload, 'manifests' | 'metadata'>,
): { fraction: number; at: string } | undefined {
  const included = filterManifests(payload).included.filter((m) => m.dir === 'release-manifests');
  if (included.length === 0) return undefined;
  const node = (f: string): { level: number; component: string } => {
    const g = RUN_LEVEL_COMPONENT_PATTERN.exec(f);
    return { level: Number(g?.[1] ?? '-1'), component: g?.[2] ?? '' };
  };
  const cos = included.filter((m) => m.gvk.kind === 'ClusterOperator' && node(m.filename).level >= 0);
  const lastCo = cos
    .sort((x, y) => node(x.filename).level - node(y.filename).level || (x.filename < y.filename ? -1 : 1))
    .at(-1);
  if (lastCo === undefined) return undefined;
  const at = node(lastCo.filename);
  const after = included.filter((m) => {
    const n = node(m.filename);
    // the other components of that level run in parallel and may not be done yet: not counted (a point surely shown)
    return (
      n.level > at.level ||
      (n.level === at.level &&
        (n.component !== at.component ||
          m.filename > lastCo.filename ||
          (m.filename === lastCo.filename && m.index >= lastCo.index)))
    );
  }).length;
  return {
    fraction: (included.length - after) / included.length,
    at: `the CVO then waits for clusteroperator/${lastCo.name} at run level ${String(at.level).padStart(2, '0')}`,
  };
}

/** The targets of a rehearsal: B's ClusterOperators, the node inventory, master/worker/custom pools and A's and B's pools. */
export function rehearsalTargets(
  a: Pick<ReleasePayload, 'manifests' | 'metadata'>,
  b: Pick<ReleasePayload, 'manifests' | 'metadata'>,
  nodes: readonly string[],
  customPools: readonly string[],
): FaultTargets {
  const inB = filterManifests(b).included.filter(
    (m) => m.gvk.kind === 'ClusterOperator' && m.gvk.group === 'config.openshift.io',
  );
  const names = [...new Set(inB.map((m) => m.name))].sort();
  const pools = new Set(['master', 'worker', ...customPools]);
  for (const p of [a, b]) for (const m of p.manifests) if (m.gvk.kind === 'MachineConfigPool') pools.add(m.name);
  const last = lastWaitPoint(b);
  return {
    operators: names.filter((n) => n !== 'machine-config'),
    notSimulated: names.includes('machine-config')
      ? {
          'machine-config':
            'is run by the real machine-config-operator, not the simulator: fail it through its nodes (--fault node-fails-boot=NODE, pdb-blocks-drain, on-disk-drift=NODE:PATH)',
        }
      : {},
    nodes,
    pools: [...pools].sort(),
    ...(last !== undefined ? { lastKillPoint: last } : {}),
  };
}
