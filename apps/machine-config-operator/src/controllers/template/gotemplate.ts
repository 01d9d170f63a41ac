/**
 * A small subset of Go's text/template, enough for MCO template files: `{{ .Field.Sub }}` (Go field names, matched
 * case-insensitively against the ControllerConfig JSON keys; map keys by exact name), `{{if PIPE}}…{{else}}…{{end}}`,
 * `{{- ` / ` -}}` whitespace trimming. Anything else (functions, range, with, variables) is a typed error so that a
 * template set needing more fails loudly instead of rendering wrong files.
 */

/** A template that uses something this engine does not support, or refers to a missing value. */
export class TemplateError extends Error {
  readonly code = 'TEMPLATE_UNSUPPORTED';
  constructor(
    message: string,
    /** Template file. */
    readonly file: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'TemplateError';
  }
}

type Node = { t: 'text'; v: string } | { t: 'field'; path: string[] } | { t: 'if'; path: string[]; then: Node[]; else: Node[] };

const ACTION = /\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}/g;

interface Token {
  kind: 'text' | 'action';
  v: string;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  let trimNext = false;
  for (const m of src.matchAll(ACTION)) {
    let text = src.slice(last, m.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (m[1] === '-') text = text.replace(/\s+$/, '');
    if (text !== '') out.push({ kind: 'text', v: text });
    out.push({ kind: 'action', v: m[2] ?? '' });
    trimNext = m[3] === '-';
    last = m.index + m[0].length;
  }
  let tail = src.slice(last);
  if (trimNext) tail = tail.replace(/^\s+/, '');
  if (tail !== '') out.push({ kind: 'text', v: tail });
  return out;
}

function fieldPath(expr: string, file: string): string[] {
  if (expr === '.') return [];
  if (!/^(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(expr)) throw new TemplateError(`unsupported template action {{${expr}}} (only .Field paths, if/else/end)`, file);
  return expr.split('.').slice(1);
}

function parse(tokens: Token[], file: string): Node[] {
  let i = 0;
  const block = (stopAt: Set<string>): { nodes: Node[]; stop: string } => {
    const nodes: Node[] = [];
    while (i < tokens.length) {
      const tok = tokens[i++] as Token;
      if (tok.kind === 'text') {
        nodes.push({ t: 'text', v: tok.v });
        continue;
      }
      const a = tok.v;
      if (a.startsWith('/*')) continue;
      if (stopAt.has(a)) return { nodes, stop: a };
      if (a.startsWith('if ')) {
        const path = fieldPath(a.slice(3).trim(), file);
        const then = block(new Set(['else', 'end']));
        const els = then.stop === 'else' ? block(new Set(['end'])).nodes : [];
        nodes.push({ t: 'if', path, then: then.nodes, else: els });
        continue;
      }
      nodes.push({ t: 'field', path: fieldPath(a, file) });
    }
    if (stopAt.size > 0) throw new TemplateError(`unexpected EOF: missing {{end}}`, file);
    return { nodes, stop: '' };
  };
  return block(new Set()).nodes;
}

function lookup(data: unknown, path: string[], file: string): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) throw new TemplateError(`can't evaluate field ${seg}: not an object`, file);
    const o = cur as Record<string, unknown>;
    const key = Object.hasOwn(o, seg) ? seg : Object.keys(o).find((k) => k.toLowerCase() === seg.toLowerCase());
    cur = key === undefined ? undefined : o[key];
  }
  return cur;
}

const truthy = (v: unknown): boolean =>
  !(v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && Object.keys(v).length === 0));

function show(v: unknown): string {
  if (v === undefined || v === null) return '<no value>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function exec(nodes: Node[], data: unknown, file: string): string {
  let out = '';
  for (const n of nodes) {
    if (n.t === 'text') out += n.v;
    else if (n.t === 'field') out += show(lookup(data, n.path, file));
    else out += exec(truthy(lookup(data, n.path, file)) ? n.then : n.else, data, file);
  }
  return out;
}

/** Renders `src` (from `file`) with `data`. @throws TemplateError */
export function renderGoTemplate(src: string, data: unknown, file: string): string {
  return exec(parse(tokenize(src), file), data, file);
}
