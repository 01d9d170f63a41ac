/**
 * The CVO's update preconditions as they can be judged without a cluster (cvo.md §6.1): `ClusterVersionRollback`,
 * `ClusterVersionGiantHop`, `ClusterVersionUpgradeable` (needs the cluster's condition: reported as not evaluated for
 * minor updates) and `ClusterVersionRecommendedUpdate` (from the update graph when one is given). Same names, reasons
 * and message texts as upstream. When the CVO app exports its precondition functions, this module should call them.
 */

/** One precondition result. */
export interface PreconditionResult {
  name: 'ClusterVersionRollback' | 'ClusterVersionGiantHop' | 'ClusterVersionUpgradeable' | 'ClusterVersionRecommendedUpdate';
  /** passed, failed (blocking unless `warning`), or cannot be known without the cluster. */
  state: 'Passed' | 'Failed' | 'NotEvaluated';
  reason?: string;
  message?: string;
  /** A failure that does not block (upstream NonBlockingWarning). */
  warning?: boolean;
}

/** What the update graph says about the target (absent when no graph was consulted). */
export interface GraphVerdict {
  channel: string;
  recommended: readonly string[];
  conditional: readonly { version: string; recommended?: { status: string; reason: string; message: string } }[];
}

type V = [number, number, number];

function parse(v: string): V | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  return m === null ? undefined : [Number(m[1]), Number(m[2]), Number(m[3])];
}

function cmp(a: V, b: V): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Evaluates the preconditions of an update `current` → `target` for a cluster whose history holds only `current`. */
export function computePreconditions(current: string, target: string, graph?: GraphVerdict): PreconditionResult[] {
  const c = parse(current);
  const t = parse(target);
  const out: PreconditionResult[] = [];
  if (t === undefined) {
    out.push({ name: 'ClusterVersionRollback', state: 'Failed', reason: 'InvalidDesiredVersion', message: `desired version ${target} is not a semantic version` });
    return out;
  }
  if (c === undefined) {
    out.push({ name: 'ClusterVersionRollback', state: 'Failed', reason: 'InvalidCurrentVersion', message: `current version ${current} is not a semantic version`, warning: true });
    return out;
  }
  out.push(
    cmp(t, c) < 0
      ? { name: 'ClusterVersionRollback', state: 'Failed', reason: 'LowDesiredVersion', message: `${target} is less than the current target ${current}, and the cluster has no previous Semantic Version` }
      : { name: 'ClusterVersionRollback', state: 'Passed' },
  );
  if (t[0] > c[0] && !(c[0] === 4 && t[0] === 5 && t[1] === 0)) {
    out.push({ name: 'ClusterVersionGiantHop', state: 'Failed', reason: 'MajorVersionUpdate', message: `${target} is a major version update from the current target ${current}, and major version updates are not supported.` });
  } else if (t[0] === c[0] && t[1] > c[1] + 1) {
    out.push({
      name: 'ClusterVersionGiantHop',
      state: 'Failed',
      reason: 'MultipleMinorVersionsUpdate',
      message: `${target} is more than one minor version beyond the current target ${current} (${t[0]}.${t[1]} > ${c[0]}.(${c[1]}+1)), and only updates within the current minor version or to the next minor version are supported.`,
    });
  } else out.push({ name: 'ClusterVersionGiantHop', state: 'Passed' });
  const minor = t[0] !== c[0] || t[1] !== c[1];
  out.push(
    minor && cmp(t, c) > 0
      ? { name: 'ClusterVersionUpgradeable', state: 'NotEvaluated', message: 'a minor update is blocked while the cluster reports Upgradeable=False; check `oc get clusterversion -o jsonpath={.status.conditions}`' }
      : { name: 'ClusterVersionUpgradeable', state: 'Passed', message: 'patch updates are not blocked by Upgradeable=False' },
  );
  out.push(recommended(current, target, graph));
  return out;
}

function recommended(current: string, target: string, graph: GraphVerdict | undefined): PreconditionResult {
  const name = 'ClusterVersionRecommendedUpdate';
  if (graph === undefined) return { name, state: 'NotEvaluated', message: 'no update service given (--upstream URL --channel NAME)' };
  if (graph.recommended.includes(target)) return { name, state: 'Passed' };
  const cu = graph.conditional.find((u) => u.version === target);
  if (cu !== undefined) {
    const r = cu.recommended;
    if (r === undefined) return { name, state: 'Failed', warning: true, reason: 'UnknownConditionType', message: `Update from ${current} to ${target} has no Recommended condition.` };
    if (r.status === 'True') return { name, state: 'Passed' };
    if (r.status === 'False') return { name, state: 'Failed', warning: true, reason: r.reason, message: `Update from ${current} to ${target} is not recommended:\n\n${r.message}` };
    return { name, state: 'Failed', warning: true, reason: r.reason, message: `Update from ${current} to ${target} is Recommended=${r.status}: ${r.reason}: ${r.message}` };
  }
  return { name, state: 'Failed', warning: true, reason: 'UnknownUpdate', message: `RetrievedUpdates=True (), so the update from ${current} to ${target} is probably neither recommended nor supported.` };
}
