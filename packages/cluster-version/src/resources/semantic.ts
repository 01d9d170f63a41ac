/**
 * `equality.Semantic.DeepEqual` of k8s.io/apimachinery over JSON: empty and absent lists/maps are equal (Go's nil vs
 * empty slice), a field the server omits (`omitempty` zero value) equals its zero value, and resource quantities compare
 * by value (`1000m` = `1`, `1Gi` = `1073741824`), as the server stores them in canonical form.
 */
import { isObject } from './merge-core.js';

/** True when `v` is what Go's JSON encoding omits for an `omitempty` field (zero value, empty list or map). */
export function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.values(v).every((x) => x === undefined);
  return false;
}

/** Semantic deep equality of two JSON values (see the module comment). */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isZero(a) && isZero(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** A quantity as the exact fraction `num / den`, or undefined when `s` is not a resource.Quantity. */
export function parseQuantity(s: string): { num: bigint; den: bigint } | undefined {
  const m = QUANTITY.exec(s.trim());
  if (!m) return undefined;
  const [int = '', frac = ''] = (m[2] ?? '').split('.');
  let num = BigInt(`${int}${frac}` || '0') * (m[1] === '-' ? -1n : 1n);
  let den = 10n ** BigInt(frac.length);
  const suffix = m[3] ?? '';
  const binary = BINARY[suffix];
  let exp = 0;
  if (binary !== undefined) num *= binary;
  else if (/^[eE]/.test(suffix)) exp = Number(suffix.slice(1));
  else exp = DECIMAL[suffix] ?? 0;
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den *= 10n ** BigInt(-exp);
  return { num, den };
}

/** Quantities compared by value; anything that is not a quantity compares as a string. */
export function quantityEqual(a: unknown, b: unknown): boolean {
  const qa = typeof a === 'string' ? parseQuantity(a) : typeof a === 'number' ? parseQuantity(String(a)) : undefined;
  const qb = typeof b === 'string' ? parseQuantity(b) : typeof b === 'number' ? parseQuantity(String(b)) : undefined;
  if (!qa || !qb) return a === b;
  return qa.num * qb.den === qb.num * qa.den;
}

/** `ResourceList` equality (`limits`, `requests`): same names, quantities equal by value; absent = empty. */
export function resourceListEqual(a: unknown, b: unknown): boolean {
  const la = isObject(a) ? a : {};
  const lb = isObject(b) ? b : {};
  const keys = new Set(
    [...Object.keys(la), ...Object.keys(lb)].filter((k) => la[k] !== undefined || lb[k] !== undefined),
  );
  for (const k of keys) if (la[k] === undefined || lb[k] === undefined || !quantityEqual(la[k], lb[k])) return false;
  return true;
}
