import { readFileSync } from 'node:fs';

/** One entry of ignition-vectors.json (fields used by the tests). */
export interface IgnVector {
  name: string;
  kind: 'validate' | 'translate' | 'merge';
  spec: string;
  check?: string;
  input: unknown;
  expected: Record<string, unknown>;
  full_report?: { kind: string; message: string; path: (string | number)[]; name: string | null }[];
  expected_string?: string;
  origin?: string;
}

const url = new URL('../fixtures/upstream/vectors/ignition-vectors.json', import.meta.url);
export const ignitionVectors: IgnVector[] = (JSON.parse(readFileSync(url, 'utf8')) as { vectors: IgnVector[] }).vectors;

const mcoUrl = new URL('../fixtures/upstream/vectors/mco-vectors.json', import.meta.url);
export const mcoVectors = (
  JSON.parse(readFileSync(mcoUrl, 'utf8')) as {
    vectors: { name: string; function: string; input: Record<string, string>; expected: Record<string, unknown> }[];
  }
).vectors;

/** Drops null, {} and [] recursively (the vectors' pruning convention). */
export function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(prune);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x);
      if (p === null || p === undefined) continue;
      if (Array.isArray(p) && p.length === 0) continue;
      if (typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0) continue;
      out[k] = p;
    }
    return out;
  }
  return v;
}
