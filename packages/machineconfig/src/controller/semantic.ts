/**
 * Comparing what a controller wants with what the API server stores. The server returns objects with its own key
 * order and with CRD schema defaults filled in, so `JSON.stringify(a) === JSON.stringify(b)` reports a change on every
 * pass and a reconcile of an unchanged state writes again (upstream compares typed structs with
 * `equality.Semantic.DeepEqual`, which neither key order nor server-filled defaults can fool).
 */

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep equality of JSON values that ignores object key order (arrays stay ordered). */
export function semanticEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && semanticEqual(a[k], b[k]));
  }
  return false;
}

/**
 * True when `stored` holds everything `want` sets: equal values, key order ignored, and object keys that `stored`
 * has and `want` lacks ignored (the API server's schema defaults). A `null` in `want` matches a missing key. Use it
 * for kinds whose CRD defaults fields (ControllerConfig); where no defaults exist, {@link semanticEqual} also catches
 * fields someone else added.
 */
export function semanticallyContains(stored: Json, want: Json): boolean {
  if (stored === want) return true;
  if (Array.isArray(want))
    return (
      Array.isArray(stored) && stored.length === want.length && want.every((x, i) => semanticallyContains(stored[i], x))
    );
  if (isObject(want)) {
    if (!isObject(stored)) return false;
    return Object.entries(want).every(([k, v]) =>
      Object.hasOwn(stored, k) ? semanticallyContains(stored[k], v) : v === null,
    );
  }
  return false;
}
