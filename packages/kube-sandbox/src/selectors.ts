/** Label and field selectors, parsed the way the API server parses its query parameters. */
import { badRequest } from './errors.js';
import type { KubeObject } from './types.js';
import { text } from './util.js';

/** One requirement of a label selector. */
export interface LabelRequirement {
  key: string;
  op: 'in' | 'notin' | 'exists' | '!' | '=' | '!=' | 'gt' | 'lt';
  values: string[];
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '' || parts.length > 0) parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const KEY_RE = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Parses `a=b,c!=d,e in (x,y),!f,g`. Throws 400 BadRequest on syntax errors. */
export function parseLabelSelector(sel: string): LabelRequirement[] {
  const out: LabelRequirement[] = [];
  for (const part of splitTopLevel(sel)) {
    let m = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (m) {
      out.push({ key: m[1] ?? '', op: m[2] as 'in' | 'notin', values: (m[3] ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '') });
      continue;
    }
    m = /^!\s*(\S+)$/.exec(part);
    if (m) {
      out.push({ key: m[1] ?? '', op: '!', values: [] });
      continue;
    }
    m = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$/.exec(part);
    if (m) {
      const op = m[2] === '!=' ? '!=' : m[2] === '>' ? 'gt' : m[2] === '<' ? 'lt' : '=';
      out.push({ key: m[1] ?? '', op, values: [m[3] ?? ''] });
      continue;
    }
    if (KEY_RE.test(part)) {
      out.push({ key: part, op: 'exists', values: [] });
      continue;
    }
    throw badRequest(`unable to parse requirement: invalid label selector: ${JSON.stringify(part)}`);
  }
  for (const r of out) {
    if (!KEY_RE.test(r.key)) throw badRequest(`unable to parse requirement: invalid label key "${r.key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
  return out;
}

/** Whether labels satisfy all requirements. */
export function matchLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case '=':
      case 'in':
        if (!has || v === undefined || !r.values.includes(v)) return false;
        break;
      case '!=':
      case 'notin':
        if (has && v !== undefined && r.values.includes(v)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has) return false;
        const n = Number(v);
        const t = Number(r.values[0]);
        if (Number.isNaN(n) || Number.isNaN(t)) return false;
        if (r.op === 'gt' ? !(n > t) : !(n < t)) return false;
      }
    }
  }
  return true;
}

/** Converts a `matchLabels`/`matchExpressions` LabelSelector object to requirements. */
export function requirementsFromSelector(sel: unknown): LabelRequirement[] | null {
  if (sel === null || typeof sel !== 'object') return null;
  const s = sel as { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  const out: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) out.push({ key: k, op: '=', values: [v] });
  for (const e of s.matchExpressions ?? []) {
    const op = e.operator === 'In' ? 'in' : e.operator === 'NotIn' ? 'notin' : e.operator === 'Exists' ? 'exists' : e.operator === 'DoesNotExist' ? '!' : null;
    if (!op) return null;
    out.push({ key: e.key, op, values: e.values ?? [] });
  }
  return out;
}

/** Renders requirements as a selector string (as in scale.status.selector). */
export function selectorString(reqs: LabelRequirement[]): string {
  return reqs
    .map((r) => {
      switch (r.op) {
        case '=':
          return `${r.key}=${r.values[0]}`;
        case '!=':
          return `${r.key}!=${r.values[0]}`;
        case 'in':
          return `${r.key} in (${r.values.join(',')})`;
        case 'notin':
          return `${r.key} notin (${r.values.join(',')})`;
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        case 'gt':
          return `${r.key}>${r.values[0]}`;
        case 'lt':
          return `${r.key}<${r.values[0]}`;
      }
    })
    .join(',');
}

/** One `field=value` / `field!=value` term. */
export interface FieldRequirement {
  field: string;
  path: string;
  value: string;
  negate: boolean;
}

/** Parses a field selector, checking fields against those supported for the kind. */
export function parseFieldSelector(sel: string, supported: Record<string, string>, _kindForError: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const part of sel.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
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
