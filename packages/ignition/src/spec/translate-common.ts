/** Helpers shared by the spec translators (translate.ts and translate-v22.ts): loose JSON access and failures. */
import { formatPath, IgnitionTranslateError } from './errors.js';
import { validateSemantics3 } from './semantic.js';
import { validateSemantics2 } from './v2.js';
import type { JsonPath, ReportEntry } from './types.js';

export type Obj = Record<string, unknown>;
export const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const isTrue = (v: unknown): boolean => v === true;
export const present = (v: unknown): boolean => v !== undefined && v !== null;
export const notEmpty = (v: unknown): boolean => typeof v === 'string' && v !== '';

/** Drops undefined/null, empty objects and empty lists (Go's omitempty output of the typed config). */
export function prune<T>(v: T): T {
  if (Array.isArray(v)) return v.map(prune) as T;
  if (v !== null && typeof v === 'object') {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v as Obj)) {
      const p = prune(x);
      if (p === undefined || p === null) continue;
      if (Array.isArray(p) && p.length === 0) continue;
      if (typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0) continue;
      out[k] = p;
    }
    return out as T;
  }
  return v;
}

export function minorOf(v: string): number {
  return Number(v.split('.')[1]);
}

export function versionOf(c: unknown): string {
  return str(asObj(asObj(c)['ignition'])['version']);
}

export function fail(message: string, from: string, to: string, path: JsonPath = []): never {
  throw new IgnitionTranslateError(message, from, to, path);
}

export function reportText(entries: ReportEntry[]): string {
  return entries
    .filter((e) => e.kind === 'error')
    .map((e) => `error at ${formatPath(e.path)}: ${e.message}`)
    .join('\n');
}

export function checkValid(cfg: unknown, version: string, from: string, to: string, prefix: string): void {
  const entries = version === '2.2.0' ? validateSemantics2(cfg) : validateSemantics3(cfg, { version, minor: 0 });
  const errors = entries.filter((e) => e.kind === 'error');
  const first = errors[0];
  if (first) fail(`${prefix}:\n${reportText(errors)}`, from, to, first.path);
}
