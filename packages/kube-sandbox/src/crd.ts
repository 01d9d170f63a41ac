/**
 * CustomResourceDefinitions: validation of the CRD object, the served types it yields, and the structural-schema
 * treatment of custom objects (pruning, defaulting, validation with ajv).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { makeType } from './builtins.js';
import { ruleCompileErrors, validateCelRules } from './cel/validate.js';
import type { FieldError } from './errors.js';
import { formatCheck } from './formats.js';
import { listTypeErrors } from './listtype.js';
import type { CrdInfo, JsonObject, KubeObject, ListStrategy, ResourceType } from './types.js';
import { clone, deleteKey, isObject, nowTime } from './util.js';

// `code.optimize: false`: ajv's optimisation passes over the generated code took most of the time of compiling a
// large CRD schema (each CRD is compiled when it is created) and gain little when validating custom objects.
const ajv = new Ajv({
  strict: false,
  allErrors: true,
  validateFormats: true,
  logger: false,
  code: { optimize: false },
});
const formatsAdded = new Set<string>();

/**
 * The `format` of a schema as apiextensions-apiserver keeps it (`StripUnsupportedFormatsPostProcess`): a supported
 * string format, registered with ajv under its own spelling; undefined for formats that validate nothing.
 */
function keptFormat(s: Record<string, unknown>): string | undefined {
  const f = s['format'];
  const type = s['type'];
  if (typeof f !== 'string' || (type !== undefined && type !== 'string')) return undefined;
  const check = formatCheck(f);
  if (!check) return undefined;
  if (!formatsAdded.has(f)) {
    ajv.addFormat(f, { type: 'string', validate: check });
    formatsAdded.add(f);
  }
  return f;
}
const compiled = new Map<string, ValidateFunction>();

/** Compiles (with a cache) an openAPIV3Schema for validation. */
export function compileSchema(schema: JsonObject): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(toAjv(schema) as object);
    compiled.set(key, v);
  }
  return v;
}

/** Converts Kubernetes schema idioms to what ajv understands (int-or-string, metadata at the root). */
function toAjv(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toAjv);
  if (!isObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'x-kubernetes-validations') continue;
    if (k === 'format') {
      const f = keptFormat(s);
      if (f !== undefined) out[k] = f;
      continue;
    }
    if (k === 'properties' || k === 'patternProperties' || k === 'definitions') {
      const props: Record<string, unknown> = {};
      for (const [pk, pv] of Object.entries(isObject(v) ? v : {})) props[pk] = toAjv(pv);
      out[k] = props;
    } else out[k] = toAjv(v);
  }
  if (s['x-kubernetes-int-or-string'] === true) {
    delete out['type'];
    delete out['anyOf'];
    out['type'] = ['integer', 'string'];
  }
  if (s['nullable'] === true && typeof out['type'] === 'string') {
    out['type'] = [out['type'], 'null'];
    delete out['nullable'];
  }
  return out;
}

function pathOf(instancePath: string): string {
  return instancePath
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function valueAt(obj: unknown, instancePath: string): unknown {
  let cur = obj;
  for (const seg of instancePath.split('/').filter((p) => p !== '')) {
    const k = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(k)];
    else if (isObject(cur)) cur = cur[k];
    else return undefined;
  }
  return cur;
}

/** Maps ajv errors to Kubernetes field errors phrased like the apiserver's OpenAPI validator. */
export function schemaErrors(errors: ErrorObject[] | null | undefined, obj: unknown): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors ?? []) {
    const base = pathOf(e.instancePath);
    const val = valueAt(obj, e.instancePath);
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required': {
        const f = base ? `${base}.${String(p['missingProperty'])}` : String(p['missingProperty']);
        out.push({ field: f, type: 'FieldValueRequired', detail: '' });
        break;
      }
      case 'type': {
        // kube-openapi: the declared types (nullable is a flag there, not a type) and the JSON type of the value,
        // which is also the reported bad value
        const declared = (Array.isArray(p['type']) ? (p['type'] as string[]) : [String(p['type'])]).filter(
          (x) => x !== 'null',
        );
        const actual = typeName(val);
        out.push({
          field: base,
          type: 'FieldValueTypeInvalid',
          value: actual,
          detail: `${base} in body must be of type ${declared.join(',')}: ${JSON.stringify(actual)}`,
        });
        break;
      }
      case 'format':
        // kube-openapi's format validator: errors.InvalidType(path, "body", format, value)
        out.push({
          field: base,
          type: 'FieldValueTypeInvalid',
          value: val,
          detail: `${base} in body must be of type ${String(p['format'])}: ${JSON.stringify(val)}`,
        });
        break;
      case 'enum':
        out.push({
          field: base,
          type: 'FieldValueNotSupported',
          value: val,
          detail: `supported values: ${((p['allowedValues'] as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')}`,
        });
        break;
      case 'anyOf':
      case 'oneOf':
      case 'if':
        break;
      default:
        out.push({
          field: base,
          type: 'FieldValueInvalid',
          value: val,
          detail: `${base || 'body'} in body ${e.message ?? 'is invalid'}`,
        });
    }
  }
  return dedupe(out);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${e.field}|${e.type}|${e.detail}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Applies `default:` values of a structural schema, in place. */
export function applyDefaults(obj: unknown, schema: unknown): void {
  if (!isObject(schema)) return;
  if (isObject(obj)) {
    const props = isObject(schema['properties']) ? schema['properties'] : undefined;
    if (props) {
      for (const [k, ps] of Object.entries(props)) {
        if (!isObject(ps)) continue;
        if (obj[k] === undefined && ps['default'] !== undefined) obj[k] = clone(ps['default']);
        if (obj[k] !== undefined) applyDefaults(obj[k], ps);
      }
    }
    const ap = schema['additionalProperties'];
    if (isObject(ap)) for (const k of Object.keys(obj)) if (!props || !(k in props)) applyDefaults(obj[k], ap);
  } else if (Array.isArray(obj) && isObject(schema['items'])) {
    for (const it of obj) applyDefaults(it, schema['items']);
  }
}

/**
 * Removes fields not declared in a structural schema unless `x-kubernetes-preserve-unknown-fields` is set, in
 * place; returns the dotted paths of the removed fields.
 */
export function prune(obj: unknown, schema: unknown, path = '', root = true): string[] {
  const removed: string[] = [];
  if (!isObject(schema)) return removed;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (isObject(obj)) {
    const props = isObject(schema['properties']) ? schema['properties'] : {};
    const ap = schema['additionalProperties'];
    const embedded = schema['x-kubernetes-embedded-resource'] === true;
    for (const k of Object.keys(obj)) {
      const p = path ? `${path}.${k}` : k;
      if ((root || embedded) && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      if (k in props) removed.push(...prune(obj[k], props[k], p, false));
      else if (isObject(ap)) removed.push(...prune(obj[k], ap, p, false));
      else if (ap === true || preserve) continue;
      else {
        deleteKey(obj, k);
        removed.push(p);
      }
    }
  } else if (Array.isArray(obj) && isObject(schema['items'])) {
    obj.forEach((it, i) => removed.push(...prune(it, schema['items'], `${path}[${i}]`, false)));
  }
  return removed;
}

/** The CRD fields the sandbox reads. */
interface CrdSpec {
  group: string;
  names: {
    plural: string;
    singular?: string;
    kind: string;
    listKind?: string;
    shortNames?: string[];
    categories?: string[];
  };
  scope: 'Namespaced' | 'Cluster';
  versions: {
    name: string;
    served: boolean;
    storage: boolean;
    schema?: { openAPIV3Schema?: JsonObject };
    subresources?: {
      status?: JsonObject;
      scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
    };
    additionalPrinterColumns?: {
      name: string;
      type: string;
      jsonPath: string;
      description?: string;
      priority?: number;
      format?: string;
    }[];
  }[];
}

/** Validates a CRD object; returns field errors in the apiserver's phrasing. */
export function validateCrd(crd: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd['spec'];
  if (!isObject(spec)) return [{ field: 'spec', type: 'FieldValueRequired', detail: '' }];
  const s = spec as unknown as CrdSpec;
  if (typeof s.group !== 'string' || s.group === '')
    errs.push({ field: 'spec.group', type: 'FieldValueRequired', detail: '' });
  else if (!s.group.includes('.'))
    errs.push({
      field: 'spec.group',
      type: 'FieldValueInvalid',
      value: s.group,
      detail: 'should be a domain with at least one dot',
    });
  if (!isObject(s.names) || typeof s.names.plural !== 'string' || s.names.plural === '')
    errs.push({ field: 'spec.names.plural', type: 'FieldValueRequired', detail: '' });
  if (!isObject(s.names) || typeof s.names.kind !== 'string' || s.names.kind === '')
    errs.push({ field: 'spec.names.kind', type: 'FieldValueRequired', detail: '' });
  if (s.scope !== 'Namespaced' && s.scope !== 'Cluster')
    errs.push({
      field: 'spec.scope',
      type: 'FieldValueNotSupported',
      value: s.scope,
      detail: 'supported values: "Cluster", "Namespaced"',
    });
  const name = crd.metadata?.name ?? '';
  if (isObject(s.names) && s.group && name !== `${s.names.plural}.${s.group}`)
    errs.push({
      field: 'metadata.name',
      type: 'FieldValueInvalid',
      value: name,
      detail: 'must be spec.names.plural+"."+spec.group',
    });
  if (!Array.isArray(s.versions) || s.versions.length === 0)
    errs.push({
      field: 'spec.versions',
      type: 'FieldValueInvalid',
      value: [],
      detail: 'must have exactly one version marked as storage version',
    });
  else {
    const storage = s.versions.filter((v) => v.storage).length;
    if (storage !== 1)
      errs.push({
        field: 'spec.versions',
        type: 'FieldValueInvalid',
        value: s.versions.map((v) => v.name),
        detail: 'must have exactly one version marked as storage version',
      });
    s.versions.forEach((v, i) => {
      if (!v.schema?.openAPIV3Schema)
        errs.push({
          field: `spec.versions[${i}].schema.openAPIV3Schema`,
          type: 'FieldValueRequired',
          detail: 'schemas are required',
        });
      else {
        try {
          // the form objects are validated with (metadata left to the server's own checks), so that the first
          // object of this CRD reuses the compiled validator instead of compiling the schema a second time
          compileSchema(stripMetadataSchema(v.schema.openAPIV3Schema));
        } catch (e) {
          errs.push({
            field: `spec.versions[${i}].schema.openAPIV3Schema`,
            type: 'FieldValueInvalid',
            value: '',
            detail: (e as Error).message,
          });
        }
        for (const ce of ruleCompileErrors(v.schema.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`))
          errs.push({ field: ce.field, type: 'FieldValueInvalid', value: ce.value, detail: ce.detail });
      }
    });
  }
  return errs;
}

/** List strategies from `x-kubernetes-list-type` / `x-kubernetes-list-map-keys` in a schema. */
export function schemaLists(schema: unknown): Record<string, ListStrategy> {
  const out: Record<string, ListStrategy> = {
    'metadata.finalizers': { set: true },
    'metadata.ownerReferences': { mergeKey: 'uid' },
  };
  const walk = (s: unknown, path: string): void => {
    if (!isObject(s)) return;
    if (s['type'] === 'array') {
      const lt = s['x-kubernetes-list-type'];
      const keys = s['x-kubernetes-list-map-keys'];
      if (lt === 'map' && Array.isArray(keys) && typeof keys[0] === 'string')
        out[path] = keys.length > 1 ? { mergeKey: keys[0], mergeKeys: keys.map(String) } : { mergeKey: keys[0] };
      else if (lt === 'set') out[path] = { set: true };
      walk(s['items'], `${path}[]`);
      return;
    }
    if (isObject(s['properties']))
      for (const [k, v] of Object.entries(s['properties'])) walk(v, path ? `${path}.${k}` : k);
    if (isObject(s['additionalProperties'])) walk(s['additionalProperties'], path);
  };
  walk(schema, '');
  return out;
}

/** Discovery verbs of a custom resource, in apiextensions-apiserver's (unsorted) order. */
export const CRD_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'] as const;
/** Discovery verbs of a custom resource while its CRD is terminating. */
export const CRD_TERMINATING_VERBS = ['delete', 'deletecollection', 'get', 'list', 'watch'] as const;

/** Served resource types for a CRD (one per served version). */
export function crdTypes(crd: KubeObject): ResourceType[] {
  const s = crd['spec'] as CrdSpec;
  const out: ResourceType[] = [];
  for (const v of s.versions) {
    if (!v.served) continue;
    const t = makeType({
      group: s.group,
      version: v.name,
      plural: s.names.plural,
      kind: s.names.kind,
      namespaced: s.scope === 'Namespaced',
      shortNames: s.names.shortNames ?? [],
      categories: s.names.categories ?? [],
      subresources: [...(v.subresources?.status ? ['status'] : []), ...(v.subresources?.scale ? ['scale'] : [])],
      generation: true,
      lists: schemaLists(v.schema?.openAPIV3Schema),
      verbs: [...CRD_VERBS],
    });
    t.singular = s.names.singular ?? s.names.kind.toLowerCase();
    t.listKind = s.names.listKind ?? `${s.names.kind}List`;
    const schema = v.schema?.openAPIV3Schema;
    const info: CrdInfo = {
      crdName: crd.metadata?.name ?? '',
      preserveUnknownAtRoot: schema?.['x-kubernetes-preserve-unknown-fields'] === true,
      statusSubresource: v.subresources?.status !== undefined,
      printerColumns: v.additionalPrinterColumns ?? [],
      storage: v.storage,
    };
    if (schema) info.schema = schema;
    if (v.subresources?.scale) info.scale = v.subresources.scale;
    t.crd = info;
    out.push(t);
  }
  return out;
}

/** Builds the CRD status the apiextensions controllers would write. */
export function crdStatus(crd: KubeObject, namesConflict: string | null, old: KubeObject | undefined): JsonObject {
  const s = crd['spec'] as CrdSpec;
  const prev = isObject(old?.['status']) ? (old['status'] as JsonObject) : {};
  const prevConds = Array.isArray(prev['conditions']) ? (prev['conditions'] as JsonObject[]) : [];
  const now = nowTime();
  const cond = (type: string, status: string, reason: string, message: string): JsonObject => {
    const p = prevConds.find((c) => c['type'] === type);
    return {
      type,
      status,
      lastTransitionTime: p && p['status'] === status ? p['lastTransitionTime'] : now,
      reason,
      message,
    };
  };
  const storage = s.versions.find((v) => v.storage)?.name;
  const prevStored = Array.isArray(prev['storedVersions']) ? (prev['storedVersions'] as string[]) : [];
  const stored = storage && !prevStored.includes(storage) ? [...prevStored, storage] : prevStored;
  const accepted: JsonObject = {
    plural: s.names.plural,
    singular: s.names.singular ?? s.names.kind.toLowerCase(),
    kind: s.names.kind,
    listKind: s.names.listKind ?? `${s.names.kind}List`,
  };
  if (s.names.shortNames?.length) accepted['shortNames'] = s.names.shortNames;
  if (s.names.categories?.length) accepted['categories'] = s.names.categories;
  const conditions = namesConflict
    ? [
        cond('NamesAccepted', 'False', 'MultipleNamesNotAllowed', namesConflict),
        cond('Established', 'False', 'NotAccepted', 'not all names are accepted'),
      ]
    : [
        cond('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'),
        cond('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ];
  return { conditions, acceptedNames: namesConflict ? { plural: '', kind: '' } : accepted, storedVersions: stored };
}

/**
 * Prepares a custom object for storage: prunes unknown fields, applies defaults, validates against the schema.
 * Returns the field errors and the pruned paths (for fieldValidation=Strict/Warn).
 */
const withRules = new WeakMap<object, boolean>();

/** Whether a schema has `x-kubernetes-validations` anywhere (cached per schema object). */
function hasRules(schema: JsonObject): boolean {
  let has = withRules.get(schema);
  if (has === undefined) {
    has = JSON.stringify(schema).includes('"x-kubernetes-validations"');
    withRules.set(schema, has);
  }
  return has;
}

/** Field error types that stop CEL rules from running (apiextensions-apiserver `hasBlockingErr`). */
const BLOCKING: ReadonlySet<FieldError['type']> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTypeInvalid',
]);

/**
 * Evaluates the CRD version's `x-kubernetes-validations` rules after the schema errors `errors`: when one of those
 * is blocking, the rules are not run and one error says so, as upstream.
 */
export function celErrors(
  t: ResourceType,
  obj: KubeObject,
  old: KubeObject | undefined,
  errors: FieldError[],
): FieldError[] {
  const schema = t.crd?.schema;
  // upstream builds a CEL validator only for schemas that carry rules
  if (!schema || !hasRules(schema)) return [];
  if (errors.some((e) => BLOCKING.has(e.type)))
    return [
      {
        field: '<nil>',
        type: 'FieldValueInvalid',
        value: 'null',
        detail:
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      },
    ];
  return validateCelRules(schema, obj, old);
}

export function prepareCustomObject(t: ResourceType, obj: KubeObject): { errors: FieldError[]; pruned: string[] } {
  const schema = t.crd?.schema;
  if (!schema) return { errors: [], pruned: [] };
  const pruned = prune(obj, schema);
  applyDefaults(obj, schema);
  const v = validatorOf(schema);
  const ok = v(obj);
  // apiextensions-apiserver customResourceStrategy.Validate: schema errors, then the list-type invariants
  return { errors: [...(ok ? [] : schemaErrors(v.errors, obj)), ...listTypeErrors(schema, obj)], pruned };
}

/**
 * Object validators by schema object (a CRD version's schema object lives as long as the CRD): the string-keyed
 * cache of {@link compileSchema} stringified the whole schema (hundreds of KB for ClusterVersion or MachineConfig)
 * on every write of a custom object.
 */
const validators = new WeakMap<JsonObject, ValidateFunction>();

function validatorOf(schema: JsonObject): ValidateFunction {
  let v = validators.get(schema);
  if (v === undefined) {
    v = compileSchema(stripMetadataSchema(schema));
    validators.set(schema, v);
  }
  return v;
}

function stripMetadataSchema(schema: JsonObject): JsonObject {
  if (!isObject(schema['properties']) || !('metadata' in schema['properties'])) return schema;
  const props = { ...schema['properties'] };
  delete props['metadata'];
  return { ...schema, properties: props };
}
