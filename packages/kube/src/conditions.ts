import { kubeTime, type Condition, type ConditionStatus } from '@keelson/api';

export type { Condition, ConditionStatus };
export { kubeTime };

/** The condition of `type`, or undefined. */
export function findCondition<C extends Condition>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition of `type` exists with `status`. */
export function isConditionStatus(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: ConditionStatus,
): boolean {
  return findCondition(conditions, type)?.status === status;
}

/** True when the condition of `type` exists and is `True`. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isConditionStatus(conditions, type, 'True');
}

/** True when the condition of `type` exists and is `False`. */
export function isConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isConditionStatus(conditions, type, 'False');
}

/**
 * Set `next` into `conditions` (a new array is returned; the input is not modified), following
 * openshift/library-go `v1helpers.SetStatusCondition`:
 * - a new condition gets `lastTransitionTime` = `next.lastTransitionTime` or `now`;
 * - an existing condition whose `status` changes gets a new `lastTransitionTime`;
 * - `reason`, `message` (and `observedGeneration`) are always updated, the transition time is kept otherwise.
 * Returns the updated list and whether anything changed.
 */
export function setCondition<C extends Condition>(
  conditions: readonly C[] | undefined,
  next: C,
  now: Date = new Date(),
): { conditions: C[]; changed: boolean } {
  const list = conditions ? [...conditions] : [];
  const i = list.findIndex((c) => c.type === next.type);
  if (i < 0) {
    const added = { ...next, lastTransitionTime: next.lastTransitionTime ?? kubeTime(now) };
    list.push(added);
    return { conditions: list, changed: true };
  }
  const prev = list[i] as C;
  const updated: C = { ...prev };
  if (prev.status !== next.status) {
    updated.status = next.status;
    updated.lastTransitionTime = next.lastTransitionTime ?? kubeTime(now);
  }
  assignOptional(updated, 'reason', next.reason);
  assignOptional(updated, 'message', next.message);
  assignOptional(updated, 'observedGeneration', next.observedGeneration);
  const changed =
    updated.status !== prev.status ||
    updated.reason !== prev.reason ||
    updated.message !== prev.message ||
    updated.observedGeneration !== prev.observedGeneration ||
    updated.lastTransitionTime !== prev.lastTransitionTime;
  list[i] = updated;
  return { conditions: list, changed };
}

function assignOptional<K extends 'reason' | 'message' | 'observedGeneration'>(
  target: Condition,
  key: K,
  value: Condition[K],
): void {
  if (value !== undefined) {
    target[key] = value;
    return;
  }
  switch (key) {
    case 'reason':
      delete target.reason;
      break;
    case 'message':
      delete target.message;
      break;
    default:
      delete target.observedGeneration;
  }
}

/** Remove the condition of `type`; returns the new list and whether it was present. */
export function removeCondition<C extends Condition>(
  conditions: readonly C[] | undefined,
  type: string,
): { conditions: C[]; changed: boolean } {
  const list = (conditions ?? []).filter((c) => c.type !== type);
  return { conditions: list, changed: list.length !== (conditions?.length ?? 0) };
}

/**
 * True when two condition lists are equal ignoring order and `lastTransitionTime`
 * (library-go `ConditionsEqual`-like), useful to skip needless status writes.
 */
export function conditionsEqual(a: readonly Condition[] | undefined, b: readonly Condition[] | undefined): boolean {
  const la = a ?? [];
  const lb = b ?? [];
  if (la.length !== lb.length) return false;
  for (const c of la) {
    const o = findCondition(lb, c.type);
    if (o === undefined) return false;
    if (
      o.status !== c.status ||
      o.reason !== c.reason ||
      o.message !== c.message ||
      o.observedGeneration !== c.observedGeneration
    )
      return false;
  }
  return true;
}
