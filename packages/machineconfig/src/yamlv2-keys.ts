/** yaml.v2 map key order (sorter.go `keyList.Less`) for string keys. */
// ---------------------------------------------------------------------------------------------------------------
// Key ordering (sorter.go keyList.Less) for string keys.

const isLetter = (ch: string): boolean => {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
  return /\p{L}/u.test(ch);
};
const isDigit = (ch: string | undefined): boolean => {
  if (ch === undefined) return false;
  const c = ch.charCodeAt(0);
  if (c < 0x80) return c >= 0x30 && c <= 0x39;
  return /\p{Nd}/u.test(ch);
};
const digitVal = (ch: string): bigint => BigInt((ch.codePointAt(0) as number) - 48);

/** yaml.v2's "natural" string key order: true when a sorts before b. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ai0 = ar[i] as string;
    const bi0 = br[i] as string;
    if (ai0 === bi0) continue;
    const al = isLetter(ai0);
    const bl = isLetter(bi0);
    if (al && bl) return (ai0.codePointAt(0) as number) < (bi0.codePointAt(0) as number);
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ai0 === '0' || bi0 === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + digitVal(ar[ai] as string);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + digitVal(br[bi] as string);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return (ai0.codePointAt(0) as number) < (bi0.codePointAt(0) as number);
  }
  return ar.length < br.length;
}

const SORT_CACHE = new Map<string, string[]>();

export function sortKeys(keys: string[]): string[] {
  // Go uses sort.Sort (not stable) but keys of a map are distinct, so any correct sort gives one order.
  // Objects of one shape repeat thousands of times in a config: remember the order per key set.
  const sig = JSON.stringify(keys);
  const hit = SORT_CACHE.get(sig);
  if (hit) return hit;
  const sorted = keys.sort((x, y) => (yamlKeyLess(x, y) ? -1 : yamlKeyLess(y, x) ? 1 : 0));
  if (SORT_CACHE.size > 2000) SORT_CACHE.clear();
  SORT_CACHE.set(sig, sorted);
  return sorted;
}
