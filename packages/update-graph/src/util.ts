/** Internal helpers (not exported from the package). */

/** `arr[i]`, throwing a RangeError instead of yielding undefined (an internal invariant violation). */
export function at<T>(arr: ArrayLike<T>, i: number): T {
  const v = arr[i];
  if (v === undefined) throw new RangeError(`internal error: index ${i} out of range (length ${arr.length})`);
  return v;
}

/** A value that must be present by construction. */
export function must<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new RangeError(`internal error: missing ${what}`);
  return v;
}

/** A plain JSON object (not null, not an array). */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
