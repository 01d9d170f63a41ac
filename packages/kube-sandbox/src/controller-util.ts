/** Helpers shared by the sandbox's controllers (controllers.ts, workloads.ts). */
import type { Cluster } from './cluster.js';
import { ApiError } from './errors.js';
import type { JsonObject, KubeObject, ResourceType } from './types.js';
import { clone, deepEqual, deleteKey, isObject, nowTime } from './util.js';

/** The stored type of `group`/`plural` (built in: a missing one is a bug). */
export function typeOf(c: Cluster, group: string, plural: string): ResourceType {
  const t = c.allTypes().find((x) => x.group === group && x.plural === plural);
  if (!t) throw new Error(`internal: type ${group}/${plural} missing`);
  return t;
}

/** Swallows the errors a controller expects from races (object gone, conflict). */
export function tolerate(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError && (e.httpCode === 404 || e.httpCode === 409)) return;
    throw e;
  }
}

export function getSpec(o: KubeObject): JsonObject {
  return isObject(o['spec']) ? o['spec'] : {};
}

export function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** Whether a node has condition Ready=True. */
export function nodeReady(n: KubeObject): boolean {
  const conds = (n['status'] as JsonObject | undefined)?.['conditions'];
  return Array.isArray(conds) && conds.some((c) => isObject(c) && c['type'] === 'Ready' && c['status'] === 'True');
}

/** Whether a pod has condition Ready=True. */
export function podReady(p: KubeObject): boolean {
  const conds = (p['status'] as JsonObject | undefined)?.['conditions'];
  return Array.isArray(conds) && conds.some((c) => isObject(c) && c['type'] === 'Ready' && c['status'] === 'True');
}

/** `status.conditions` for `want`, keeping each unchanged condition's times. */
export function conditions(
  o: KubeObject,
  want: { type: string; status: string; reason: string; message: string }[],
): JsonObject[] {
  const prev = ((o['status'] as JsonObject | undefined)?.['conditions'] ?? []) as JsonObject[];
  const now = nowTime();
  return want.map((w) => {
    const p = prev.find((x) => x['type'] === w.type);
    const same = p && p['status'] === w.status && p['reason'] === w.reason && p['message'] === w.message;
    if (same) return p;
    return {
      ...w,
      lastTransitionTime: p && p['status'] === w.status ? p['lastTransitionTime'] : now,
      lastUpdateTime: now,
    };
  });
}

/** Writes `status` over the object's status (counters it no longer sets dropped); no write when nothing changes. */
export function setStatus(c: Cluster, t: ResourceType, o: KubeObject, status: JsonObject): void {
  const cur = isObject(o['status']) ? o['status'] : {};
  const merged = { ...cur, ...status };
  for (const k of Object.keys(cur))
    if (!(k in status) && (k.endsWith('Replicas') || k.startsWith('number') || k === 'unavailableReplicas'))
      deleteKey(merged, k);
  if (deepEqual(cur, merged)) return;
  tolerate(() => {
    const next = clone(o);
    next['status'] = merged;
    c.applyUpdate(t, o, next, { fieldManager: 'kube-controller-manager', subresource: 'status' });
  });
}
