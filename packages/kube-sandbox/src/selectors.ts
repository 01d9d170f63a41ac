/** Label and field selectors, parsed the way the API server parses its query parameters. */
import {
  LabelSelectorError,
  labelRequirementsString,
  labelSelectorRequirements,
  matchLabelRequirements,
  parseLabelSelectorString,
  type LabelRequirement as ApiLabelRequirement,
} from '@keelson/api';
import { badRequest } from './errors.js';
import type { KubeObject } from './types.js';
import { text } from './util.js';

/**
 * One requirement of a label selector.
 * @deprecated Import `LabelRequirement` from `@keelson/api` (the one label-selector implementation).
 */
export type LabelRequirement = ApiLabelRequirement;

/** Parses `a=b,c!=d,e in (x,y),!f,g` (`@keelson/api` `parseLabelSelectorString`). Throws 400 BadRequest on syntax errors. */
export function parseLabelSelector(sel: string): ApiLabelRequirement[] {
  try {
    return parseLabelSelectorString(sel);
  } catch (e) {
    if (e instanceof LabelSelectorError) throw badRequest(e.message);
    throw e;
  }
}

/**
 * Whether labels satisfy all requirements.
 * @deprecated Use `matchLabelRequirements` from `@keelson/api`.
 */
export function matchLabels(
  reqs: readonly ApiLabelRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return matchLabelRequirements(reqs, labels);
}

/** Converts a `matchLabels`/`matchExpressions` LabelSelector object to requirements; null when absent or invalid. */
export function requirementsFromSelector(sel: unknown): ApiLabelRequirement[] | null {
  if (sel === null || typeof sel !== 'object') return null;
  try {
    return labelSelectorRequirements(sel);
  } catch (e) {
    if (e instanceof LabelSelectorError) return null;
    throw e;
  }
}

/** Renders requirements as a selector string (as in scale.status.selector). */
export function selectorString(reqs: readonly ApiLabelRequirement[]): string {
  return labelRequirementsString(reqs);
}

/** One `field=value` / `field!=value` term. */
export interface FieldRequirement {
  field: string;
  path: string;
  value: string;
  negate: boolean;
}

/** Parses a field selector, checking fields against those supported for the kind. */
export function parseFieldSelector(
  sel: string,
  supported: Record<string, string>,
  _kindForError: string,
): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const part of sel
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${sel}'; can't understand '${part}'`);
    const field = (m[1] ?? '').trim();
    let path: string | undefined;
    if (field === 'metadata.name' || field === 'metadata.namespace') path = field;
    else path = supported[field];
    if (!path) throw badRequest(`field label not supported: ${field}`);
    out.push({ field, path, value: (m[3] ?? '').trim(), negate: m[2] === '!=' });
  }
  return out;
}

/** Reads a dotted path in an object (no array indexing). */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** Whether an object satisfies all field requirements. Missing fields compare as "". */
export function matchFields(reqs: FieldRequirement[], obj: KubeObject): boolean {
  for (const r of reqs) {
    const v = getPath(obj, r.path);
    const s = v === undefined || v === null ? '' : text(v);
    if (r.negate ? s === r.value : s !== r.value) return false;
  }
  return true;
}
