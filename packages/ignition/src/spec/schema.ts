/**
 * JSON-schema checks against the upstream schema bundled at build time, with the ajv validators generated at build
 * time too (scripts/gen-schemas.mjs, ajv standalone code): nothing is compiled at run time.
 */
import { SCHEMAS } from './generated/schemas.js';
import { VALIDATORS } from './generated/validators.js';
import type { JsonPath, ReportEntry } from './types.js';
import type { StandaloneValidator } from './validator-types.js';

const compiled = new Map<string, StandaloneValidator>();

function schemaKey(version: string): string {
  return version;
}

/** The upstream JSON schema of a spec version (as bundled), or undefined. */
export function getSchema(version: string): Record<string, unknown> | undefined {
  return SCHEMAS[schemaKey(version)]?.schema;
}

function validator(version: string): StandaloneValidator | undefined {
  let fn = compiled.get(version);
  if (fn) return fn;
  const make = VALIDATORS[schemaKey(version)];
  if (!make) return undefined;
  fn = make();
  compiled.set(version, fn);
  return fn;
}

function pointerToPath(ptr: string): JsonPath {
  if (ptr === '') return [];
  return ptr
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function valueAt(root: unknown, path: JsonPath): unknown {
  let cur: unknown = root;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/** A schema violation. `type` violations are what Go's JSON decoding of the typed config rejects. */
export interface SchemaIssue extends ReportEntry {
  keyword: string;
}

/** Runs the version's schema; returns issues (empty when valid). */
export function schemaIssues(config: unknown, version: string): SchemaIssue[] {
  const fn = validator(version);
  if (!fn) return [];
  if (fn(config)) return [];
  const seen = new Set<string>();
  const out: SchemaIssue[] = [];
  for (const e of fn.errors ?? []) {
    const path = pointerToPath(e.instancePath);
    let message: string;
    let p = path;
    if (e.keyword === 'type') {
      const want = Array.isArray(e.params['type'])
        ? (e.params['type'] as string[]).join(' or ')
        : String(e.params['type']);
      message = `cannot unmarshal ${jsonType(valueAt(config, path))} into a field of type ${want}`;
    } else if (e.keyword === 'required') {
      const prop = String(e.params['missingProperty']);
      p = [...path, prop];
      message = `missing required property ${prop}`;
    } else {
      message = `schema: ${e.message ?? e.keyword}`;
    }
    const k = `${e.keyword}\u0000${JSON.stringify(p)}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ kind: 'error', message, path: p, name: null, keyword: e.keyword });
  }
  return out;
}

type SchemaNode = Record<string, unknown>;

function resolve(root: SchemaNode, node: unknown): SchemaNode[] {
  const out: SchemaNode[] = [];
  const visit = (n: unknown, depth: number): void => {
    if (depth > 20 || n === null || typeof n !== 'object') return;
    const s = n as SchemaNode;
    if (typeof s['$ref'] === 'string') {
      const ref = s['$ref'];
      if (ref.startsWith('#/')) {
        let cur: unknown = root;
        for (const part of ref.slice(2).split('/')) cur = (cur as SchemaNode | undefined)?.[part];
        visit(cur, depth + 1);
      }
      return;
    }
    out.push(s);
    for (const sub of (s['allOf'] as unknown[] | undefined) ?? []) visit(sub, depth + 1);
  };
  visit(node, 0);
  return out;
}

interface Shape {
  items: unknown[];
  props: Record<string, unknown> | null;
}

const shapes = new WeakMap<object, Shape>();

function shapeOf(root: SchemaNode, schema: unknown): Shape {
  if (schema === null || typeof schema !== 'object') return { items: [], props: null };
  let sh = shapes.get(schema);
  if (sh) return sh;
  const nodes = resolve(root, schema);
  const items = nodes.map((n) => n['items']).filter((x) => x !== undefined);
  let props: Record<string, unknown> | null = null;
  for (const n of nodes) {
    if (n['properties'] && typeof n['properties'] === 'object')
      props = { ...(props ?? {}), ...(n['properties'] as Record<string, unknown>) };
  }
  sh = { items, props };
  shapes.set(schema, sh);
  return sh;
}

/** Upstream's "unused key" warnings: object keys the version's schema does not define. */
export function unusedKeys(config: unknown, version: string): ReportEntry[] {
  const root = getSchema(version);
  if (!root) return [];
  const out: ReportEntry[] = [];
  const walk = (value: unknown, schema: unknown, path: JsonPath): void => {
    if (value === null || typeof value !== 'object') return;
    const { items, props } = shapeOf(root, schema);
    if (Array.isArray(value)) {
      if (items.length === 0) return;
      for (let i = 0; i < value.length; i++) {
        const v = value[i] as unknown;
        if (v === null || typeof v !== 'object') continue;
        for (const it of items) walk(v, it, [...path, i]);
      }
      return;
    }
    if (!props) return;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!Object.prototype.hasOwnProperty.call(props, k))
        out.push({ kind: 'warning', message: `unused key ${k}`, path: [...path, k], name: null });
      else if (v !== null && typeof v === 'object') walk(v, props[k], [...path, k]);
    }
  };
  walk(config, root, []);
  return out;
}
