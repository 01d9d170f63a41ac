/**
 * One nesting limit for every document of a payload: JSON manifests, YAML manifests (js-yaml refuses deeper ones
 * with "nesting exceeded maxDepth (100)"), `release-metadata` and `image-references`. Deeper documents are refused
 * with a typed error before anything walks them recursively (printing, hashing, Go-style marshalling).
 */

/** Deepest accepted nesting of objects and arrays (the top-level object is level 1). */
export const MAX_DOCUMENT_DEPTH = 100;

/** Whether `value` nests objects/arrays deeper than `max` levels (iterative: safe on any depth). */
export function nestedDeeperThan(value: unknown, max: number = MAX_DOCUMENT_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, d] = top;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > max) return true;
    const children = Array.isArray(v) ? v : v instanceof Map ? [...v.values()] : Object.values(v);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
  }
  return false;
}
