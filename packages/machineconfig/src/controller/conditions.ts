/** MachineConfigPool-style condition handling (upstream `SetMachineConfigPoolCondition`). */
import { kubeTime, type Condition } from '@keelson/api';

/**
 * Sets a pool condition the way the MCO does: a no-op when status, reason and message are unchanged; otherwise the
 * old entry of that type is removed and the new one appended at the end, keeping lastTransitionTime when only the
 * reason or message changed. Returns a new list.
 */
export function setPoolCondition(
  conditions: readonly Condition[] | undefined,
  next: Condition,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const prev = list.find((c) => c.type === next.type);
  if (
    prev &&
    prev.status === next.status &&
    (prev.reason ?? '') === (next.reason ?? '') &&
    (prev.message ?? '') === (next.message ?? '')
  )
    return list;
  const lastTransitionTime =
    prev && prev.status === next.status && prev.lastTransitionTime !== undefined
      ? prev.lastTransitionTime
      : kubeTime(now);
  return [
    ...list.filter((c) => c.type !== next.type),
    {
      type: next.type,
      status: next.status,
      lastTransitionTime,
      reason: next.reason ?? '',
      message: next.message ?? '',
    },
  ];
}

/** The condition of `type` in a list. */
export function getCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
