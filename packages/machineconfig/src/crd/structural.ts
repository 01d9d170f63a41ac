/**
 * What kube-apiserver does with a custom resource against a structural CRD schema, for the parts a client can see:
 * unknown fields are pruned (dropped silently) unless `x-kubernetes-preserve-unknown-fields`; `null` in a field that is
 * not `nullable` is pruned too; a value of the wrong type is refused (422) with a message in apiextensions' words.
 */

/** The subset of an OpenAPI v3 structural schema used by the MachineConfig CRD. */
export interface CrdSchema {
  type?: 'object' | 'array' | 'string' | 'boolean' | 'integer' | 'number';
  properties?: Record<string, CrdSchema>;
  items?: CrdSchema;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: string;
}

/** A field the API server would refuse: JSON path (`spec.kernelArguments[0]`) and the reason. */
export interface StructuralError {
  path: string;
  message: string;
}

/** Outcome of {@link checkStructural}. */
export interface StructuralResult {
  /** JSON paths of fields the API server would drop because its schema does not know them. */
  pruned: string[];
  /** JSON paths of `null` values in fields that are not nullable (dropped too, like an absent field). */
  nulls: string[];
  /** Type errors the API server would answer with 422. */
  errors: StructuralError[];
}

/** Deepest nesting examined; deeper input is refused rather than recursed into. */
const MAX_DEPTH = 64;

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function matches(type: CrdSchema['type'], v: unknown): boolean {
  switch (type) {
    case undefined:
      return true;
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    default:
      return typeof v === type;
  }
}

const child = (path: string, key: string): string =>
  path === '' ? key : /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

function walk(v: unknown, s: CrdSchema, path: string, depth: number, out: StructuralResult): void {
  if (depth > MAX_DEPTH) {
    out.errors.push({ path, message: `${path}: nested more than ${MAX_DEPTH} levels deep` });
    return;
  }
  if (v === null) {
    if (s.nullable !== true && path !== '') out.nulls.push(path);
    return;
  }
  if (!matches(s.type, v)) {
    const shown = typeName(v);
    out.errors.push({
      path,
      message: `${path}: Invalid value: "${shown}": ${path} in body must be of type ${String(s.type)}: "${shown}"`,
    });
    return;
  }
  if (Array.isArray(v)) {
    if (s.items)
      v.forEach((x, i) => {
        walkItem(x, s.items as CrdSchema, `${path}[${i}]`, depth + 1, out);
      });
    return;
  }
  if (s.type !== 'object' || typeof v !== 'object') return;
  if (s['x-kubernetes-preserve-unknown-fields'] === true && s.properties === undefined) return;
  for (const key of Object.keys(v)) {
    const sub = s.properties?.[key];
    const p = child(path, key);
    if (sub === undefined) {
      if (s['x-kubernetes-preserve-unknown-fields'] !== true && s.properties !== undefined) out.pruned.push(p);
      continue;
    }
    walk((v as Record<string, unknown>)[key], sub, p, depth + 1, out);
  }
}

/** Array items are not pruned: a `null` item of a non-nullable type is a type error. */
function walkItem(v: unknown, s: CrdSchema, path: string, depth: number, out: StructuralResult): void {
  if (v === null && s.nullable !== true) {
    out.errors.push({
      path,
      message: `${path}: Invalid value: "null": ${path} in body must be of type ${String(s.type)}: "null"`,
    });
    return;
  }
  walk(v, s, path, depth, out);
}

/**
 * Checks `obj` against a CRD's structural schema as kube-apiserver would on create: which fields it prunes and which
 * type errors it refuses. `metadata` is not examined beyond being an object (the API server validates it separately).
 */
export function checkStructural(obj: unknown, schema: CrdSchema): StructuralResult {
  const out: StructuralResult = { pruned: [], nulls: [], errors: [] };
  walk(obj, schema, '', 0, out);
  return out;
}
