/**
 * Kubernetes label selectors, one implementation for every package: the `metav1.LabelSelector` object
 * (`matchLabels` + `matchExpressions` with In / NotIn / Exists / DoesNotExist) and the string form the API server
 * takes in `?labelSelector=` (`a=b,c!=d,e in (x,y),f notin (z),g,!h,n>1`), compiled to one list of requirements
 * with `k8s.io/apimachinery/pkg/labels` semantics:
 * - an absent (`null`/`undefined`) selector object matches nothing, an empty one (`{}`) matches everything;
 * - all requirements are ANDed; `=`/`in` need the key present with one of the values, `!=`/`notin` match when the
 *   key is absent or holds none of the values, `gt`/`lt` compare integers;
 * - requirements print sorted by key, `in`/`notin` values sorted (as `labels.Selector.String()`).
 */
import type { LabelSelector, LabelSelectorRequirement } from '../core/meta.js';

/** Operator of a compiled requirement (the spelling of `k8s.io/apimachinery/pkg/selection`). */
export type LabelRequirementOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One compiled requirement of a label selector. */
export interface LabelRequirement {
  key: string;
  op: LabelRequirementOperator;
  values: string[];
}

/** Error codes of {@link LabelSelectorError}. */
export type LabelSelectorErrorCode = 'LABEL_SELECTOR_INVALID' | 'LABEL_SELECTOR_PARSE';

/**
 * A selector that cannot be used: an unknown operator, a values list of the wrong size (object form,
 * `LABEL_SELECTOR_INVALID`) or a string that does not parse (`LABEL_SELECTOR_PARSE`). `path` points at the
 * offending field inside the selector object (`['matchExpressions', 0, 'values']`); empty for the string form.
 */
export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError';
  constructor(
    readonly code: LabelSelectorErrorCode,
    message: string,
    readonly path: readonly (string | number)[] = [],
  ) {
    super(message);
  }
}

/** A compiled selector: test label sets, print it, read its requirements. */
export interface CompiledLabelSelector {
  /** Requirements, sorted by key (empty for `{}`; empty and `matchesNothing` for an absent selector). */
  readonly requirements: readonly LabelRequirement[];
  /** True for an absent selector object (it selects nothing). */
  readonly matchesNothing: boolean;
  /** Whether a label set satisfies every requirement. */
  matches(labels: Readonly<Record<string, string>> | null | undefined): boolean;
  /** The selector as `labels.Selector.String()` prints it. */
  toString(): string;
}

/** A selector object as JSON may carry it (lists and maps may be `null`). */
export type LabelSelectorInput = {
  matchLabels?: Readonly<Record<string, string>> | null;
  matchExpressions?:
    readonly (Omit<LabelSelectorRequirement, 'values'> & { values?: readonly string[] | null })[] | null;
};

const byKey = (a: LabelRequirement, b: LabelRequirement): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function expressionRequirement(
  e: NonNullable<LabelSelectorInput['matchExpressions']>[number],
  at: (string | number)[],
): LabelRequirement {
  const values = [...(e.values ?? [])];
  const op: string = e.operator;
  switch (op) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        throw new LabelSelectorError(
          'LABEL_SELECTOR_INVALID',
          `${op} requires a non-empty values list for key ${e.key}`,
          [...at, 'values'],
        );
      }
      return { key: e.key, op: op === 'In' ? 'in' : 'notin', values: values.sort() };
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        throw new LabelSelectorError('LABEL_SELECTOR_INVALID', `${op} requires an empty values list for key ${e.key}`, [
          ...at,
          'values',
        ]);
      }
      return { key: e.key, op: op === 'Exists' ? 'exists' : '!', values: [] };
    default:
      throw new LabelSelectorError(
        'LABEL_SELECTOR_INVALID',
        `"${op}" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
        [...at, 'operator'],
      );
  }
}

/**
 * The requirements of a selector object (`metav1.LabelSelectorAsSelector`), sorted by key.
 * @throws LabelSelectorError `LABEL_SELECTOR_INVALID` for an unknown operator or a values list of the wrong size.
 */
export function labelSelectorRequirements(sel: LabelSelector | LabelSelectorInput): LabelRequirement[] {
  const out: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) out.push({ key, op: '=', values: [value] });
  (sel.matchExpressions ?? []).forEach((e, i) => out.push(expressionRequirement(e, ['matchExpressions', i])));
  return out.sort(byKey);
}

/** Whether a label set satisfies every requirement (an empty list matches everything). */
export function matchLabelRequirements(
  reqs: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> | null | undefined,
): boolean {
  const l = labels ?? {};
  return reqs.every((r) => matchesRequirement(r, l));
}

function matchesRequirement(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const v = Object.hasOwn(labels, r.key) ? labels[r.key] : undefined;
  switch (r.op) {
    case '=':
    case 'in':
      return v !== undefined && r.values.includes(v);
    case '!=':
    case 'notin':
      return v === undefined || !r.values.includes(v);
    case 'exists':
      return v !== undefined;
    case '!':
      return v === undefined;
    case 'gt':
    case 'lt': {
      if (v === undefined || !INTEGER.test(v)) return false;
      const n = Number(v);
      const t = Number(r.values[0]);
      return r.op === 'gt' ? n > t : n < t;
    }
  }
}

const INTEGER = /^[-+]?\d+$/;

/** One requirement as `labels.Requirement.String()` prints it. */
function requirementString(r: LabelRequirement): string {
  switch (r.op) {
    case '=':
      return `${r.key}=${r.values[0] ?? ''}`;
    case '!=':
      return `${r.key}!=${r.values[0] ?? ''}`;
    case 'in':
      return `${r.key} in (${r.values.join(',')})`;
    case 'notin':
      return `${r.key} notin (${r.values.join(',')})`;
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'gt':
      return `${r.key}>${r.values[0] ?? ''}`;
    case 'lt':
      return `${r.key}<${r.values[0] ?? ''}`;
  }
}

/** Requirements printed as a selector string (`labels.Selector.String()`), in the order given. */
export function labelRequirementsString(reqs: readonly LabelRequirement[]): string {
  return reqs.map(requirementString).join(',');
}

/** True when the selector is `{}` (no matchLabels, no matchExpressions): it selects everything. */
export function isEmptyLabelSelector(sel: LabelSelector | LabelSelectorInput | null | undefined): boolean {
  return (
    sel !== null &&
    sel !== undefined &&
    Object.keys(sel.matchLabels ?? {}).length === 0 &&
    (sel.matchExpressions ?? []).length === 0
  );
}

/**
 * Compiles a selector object: `null`/absent matches nothing, `{}` matches everything, requirements are ANDed.
 * @throws LabelSelectorError `LABEL_SELECTOR_INVALID` (see {@link labelSelectorRequirements}).
 */
export function compileLabelSelector(
  sel: LabelSelector | LabelSelectorInput | null | undefined,
): CompiledLabelSelector {
  if (sel === null || sel === undefined)
    return { requirements: [], matchesNothing: true, matches: () => false, toString: () => '' };
  const requirements = labelSelectorRequirements(sel);
  return {
    requirements,
    matchesNothing: false,
    matches: (labels) => matchLabelRequirements(requirements, labels),
    toString: () => labelRequirementsString(requirements),
  };
}

/** Whether `labels` satisfy the selector object (see {@link compileLabelSelector}). */
export function labelSelectorMatches(
  sel: LabelSelector | LabelSelectorInput | null | undefined,
  labels: Readonly<Record<string, string>> | null | undefined,
): boolean {
  return compileLabelSelector(sel).matches(labels);
}

/** Longest selector string {@link parseLabelSelectorString} accepts (hostile query strings stay bounded). */
export const MAX_LABEL_SELECTOR_LENGTH = 64 * 1024;

/** `prefix/name` as `validation.IsQualifiedName` accepts it for a label key. */
const KEY_RE = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

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

function parseTerm(part: string): LabelRequirement {
  let m = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (m) {
    const values = (m[3] ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    return { key: m[1] ?? '', op: m[2] === 'in' ? 'in' : 'notin', values };
  }
  m = /^!\s*(\S+)$/.exec(part);
  if (m) return { key: m[1] ?? '', op: '!', values: [] };
  m = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$/.exec(part);
  if (m) {
    const op = m[2] === '!=' ? '!=' : m[2] === '>' ? 'gt' : m[2] === '<' ? 'lt' : '=';
    const value = m[3] ?? '';
    if ((op === 'gt' || op === 'lt') && !INTEGER.test(value)) {
      throw new LabelSelectorError(
        'LABEL_SELECTOR_PARSE',
        `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer: ${JSON.stringify(part)}`,
      );
    }
    return { key: m[1] ?? '', op, values: [value] };
  }
  if (KEY_RE.test(part)) return { key: part, op: 'exists', values: [] };
  throw new LabelSelectorError(
    'LABEL_SELECTOR_PARSE',
    `unable to parse requirement: invalid label selector: ${JSON.stringify(part)}`,
  );
}

/**
 * Parses the string form (`labels.Parse`): `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`,
 * `a<1`, comma-separated. Requirements keep the order written.
 * @throws LabelSelectorError `LABEL_SELECTOR_PARSE` with the message the API server answers 400 with.
 */
export function parseLabelSelectorString(sel: string): LabelRequirement[] {
  if (sel.length > MAX_LABEL_SELECTOR_LENGTH) {
    throw new LabelSelectorError(
      'LABEL_SELECTOR_PARSE',
      `unable to parse requirement: label selector is ${String(sel.length)} characters, more than ${String(MAX_LABEL_SELECTOR_LENGTH)}`,
    );
  }
  const out = splitTopLevel(sel).map(parseTerm);
  for (const r of out) {
    if (!KEY_RE.test(r.key)) {
      throw new LabelSelectorError(
        'LABEL_SELECTOR_PARSE',
        `unable to parse requirement: invalid label key "${r.key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      );
    }
  }
  return out;
}
