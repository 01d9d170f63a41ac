/**
 * Per-kind merges of a manifest into the live object (upstream lib/resourcemerge `Ensure<Kind>`). Each merge is a pure
 * function `(live, required) => merged`; the caller updates the object only when `merged` differs from `live`.
 */
import { child, clone, deepEqual, isObject, mergeByName, mergeMap, overlay, type JsonObject } from './merge-core.js';
import { ensurePodSpec } from './merge-pod.js';
import { semanticEqual } from './semantic.js';

/** A merge function for one kind. */
export type MergeFn = (live: JsonObject, required: JsonObject) => JsonObject;

/** Owner references merged by UID: a reference with the same UID is replaced when different, others appended. */
function mergeOwnerReferences(live: unknown, required: unknown): unknown[] | undefined {
  const req = (Array.isArray(required) ? required : []).filter(isObject);
  const out = (Array.isArray(live) ? live : []).filter(isObject).map((o) => ({ ...o }));
  if (req.length === 0) return out.length > 0 ? out : undefined;
  for (const r of req) {
    const i = out.findIndex((o) => o['uid'] === r['uid']);
    if (i < 0) out.push(clone(r));
    else if (!deepEqual(out[i], r)) out[i] = clone(r);
  }
  return out;
}

/** `EnsureObjectMeta`: namespace/name set when given; labels and annotations merged; ownerReferences merged by UID. */
export function mergeObjectMeta(live: JsonObject, required: JsonObject): JsonObject {
  const out: JsonObject = { ...live };
  for (const k of ['namespace', 'name']) {
    const v = required[k];
    if (typeof v === 'string' && v !== '') out[k] = v;
  }
  const labels = mergeMap(live['labels'], required['labels']);
  if (labels !== undefined) out['labels'] = labels;
  const annotations = mergeMap(live['annotations'], required['annotations']);
  if (annotations !== undefined) out['annotations'] = annotations;
  const owners = mergeOwnerReferences(live['ownerReferences'], required['ownerReferences']);
  if (owners !== undefined) out['ownerReferences'] = owners;
  return out;
}

function withMeta(live: JsonObject, required: JsonObject): JsonObject {
  return { ...live, metadata: mergeObjectMeta(child(live, 'metadata'), child(required, 'metadata')) };
}

/** Sets `out[key]` to the overlay of the required value when the manifest states it. */
function setIfGiven(out: JsonObject, live: JsonObject, required: JsonObject, key: string): void {
  if (required[key] !== undefined) out[key] = overlay(live[key], required[key]);
}

/** ConfigMap: metadata plus `data` and `binaryData` merged key-wise (extra live keys survive). */
export const mergeConfigMap: MergeFn = (live, required) => {
  const out = withMeta(live, required);
  for (const k of ['data', 'binaryData']) {
    const m = mergeMap(live[k], required[k]);
    if (m !== undefined) out[k] = m;
  }
  return out;
};

/** ServiceAccount: metadata and `automountServiceAccountToken` only (secrets/imagePullSecrets are the server's). */
export const mergeServiceAccount: MergeFn = (live, required) => {
  const out = withMeta(live, required);
  setIfGiven(out, live, required, 'automountServiceAccountToken');
  return out;
};

/** Metadata only (Namespace: spec.finalizers are the server's). */
export const mergeMetadataOnly: MergeFn = (live, required) => withMeta(live, required);

/** Pod spec (upstream `ensurePodSpec`, see merge-pod.ts). */
export function mergePodSpec(live: JsonObject, required: JsonObject): JsonObject {
  return ensurePodSpec(live, required);
}

/** Pod template (upstream `ensurePodTemplateSpec`): metadata merged, spec merged with {@link mergePodSpec}. */
function mergePodTemplate(live: JsonObject, required: JsonObject): JsonObject {
  const out: JsonObject = { ...live };
  if (live['metadata'] !== undefined || required['metadata'] !== undefined)
    out['metadata'] = mergeObjectMeta(child(live, 'metadata'), child(required, 'metadata'));
  out['spec'] = mergePodSpec(child(live, 'spec'), child(required, 'spec'));
  return out;
}

/** The Deployment strategy after API defaulting (RollingUpdate 25%/25%). */
export function defaultedStrategy(strategy: unknown): JsonObject {
  const s = isObject(strategy) ? clone(strategy) : {};
  if (s['type'] === undefined) s['type'] = 'RollingUpdate';
  if (s['type'] === 'RollingUpdate') {
    const ru = isObject(s['rollingUpdate']) ? s['rollingUpdate'] : {};
    s['rollingUpdate'] = { maxUnavailable: '25%', maxSurge: '25%', ...ru };
  }
  return s;
}

/**
 * Deployment: `replicas` set (1 when the manifest has none, so a manually scaled operator is scaled back), selector,
 * paused and minReadySeconds set; revisionHistoryLimit/progressDeadlineSeconds set when given; strategy set after
 * defaulting; pod template merged.
 */
export const mergeDeployment: MergeFn = (live, required) => {
  const out = withMeta(live, required);
  const ls = child(live, 'spec');
  const rs = child(required, 'spec');
  const spec: JsonObject = { ...ls };
  spec['replicas'] = typeof rs['replicas'] === 'number' ? rs['replicas'] : 1;
  setIfGiven(spec, ls, rs, 'selector');
  spec['paused'] = rs['paused'] === true ? true : ls['paused'] === undefined ? undefined : false;
  if (rs['minReadySeconds'] !== undefined || ls['minReadySeconds'] !== undefined)
    spec['minReadySeconds'] = rs['minReadySeconds'] ?? 0;
  setIfGiven(spec, ls, rs, 'revisionHistoryLimit');
  setIfGiven(spec, ls, rs, 'progressDeadlineSeconds');
  const strategy = defaultedStrategy(rs['strategy']);
  if (!deepEqual(defaultedStrategy(ls['strategy']), strategy)) spec['strategy'] = strategy;
  spec['template'] = mergePodTemplate(child(ls, 'template'), child(rs, 'template'));
  out['spec'] = spec;
  return out;
};

/**
 * DaemonSet (upstream `EnsureDaemonSet`): metadata, the selector when different, the pod template merged. As upstream,
 * `updateStrategy`, `minReadySeconds` and `revisionHistoryLimit` are set at create only.
 */
export const mergeDaemonSet: MergeFn = (live, required) => {
  const out = withMeta(live, required);
  const ls = child(live, 'spec');
  const rs = child(required, 'spec');
  const spec: JsonObject = { ...ls };
  if (!semanticEqual(ls['selector'], rs['selector'])) spec['selector'] = clone(rs['selector']);
  spec['template'] = mergePodTemplate(child(ls, 'template'), child(rs, 'template'));
  out['spec'] = spec;
  return out;
};

/** Job: metadata merged; the pod template of a Job is immutable, so only fields the manifest states are overlaid. */
export const mergeJob: MergeFn = (live, required) => {
  const out = withMeta(live, required);
  const ls = child(live, 'spec');
  const rs = child(required, 'spec');
  const spec: JsonObject = { ...ls };
  for (const k of ['activeDeadlineSeconds', 'backoffLimit', 'parallelism', 'completions', 'ttlSecondsAfterFinished'])
    setIfGiven(spec, ls, rs, k);
  spec['template'] = mergePodTemplate(child(ls, 'template'), child(rs, 'template'));
  out['spec'] = spec;
  return out;
};

/** Kinds whose `spec` (or named top-level fields) are set from the manifest after defaulting (CronJob, Service, RBAC…). */
export function mergeFields(...fields: string[]): MergeFn {
  return (live, required) => {
    const out = withMeta(live, required);
    for (const f of fields) setIfGiven(out, live, required, f);
    return out;
  };
}

/**
 * Service: ports and selector set from the manifest; `clusterIP(s)`, `ipFamilies` and other server-allocated fields
 * survive (overlay).
 */
export const mergeService = mergeFields('spec');

/** CRD names after upstream defaulting: `singular` = lower-case kind, `listKind` = `<Kind>List`. */
export function defaultedCrdSpec(spec: JsonObject): JsonObject {
  const s = clone(spec);
  const names = child(s, 'names');
  if (typeof names['kind'] === 'string') {
    names['singular'] ??= names['kind'].toLowerCase();
    names['listKind'] ??= `${names['kind']}List`;
    s['names'] = names;
  }
  return s;
}

/**
 * CustomResourceDefinition: `spec` set after defaulting the names. When the live CRD has
 * `service.beta.openshift.io/inject-cabundle: "true"` and a webhook converter, the live `caBundle` is kept.
 */
export const mergeCrd: MergeFn = (live, required) => {
  const out = withMeta(live, required);
  const ls = child(live, 'spec');
  const spec = overlay(ls, defaultedCrdSpec(child(required, 'spec'))) as JsonObject;
  const inject = child(child(live, 'metadata'), 'annotations')['service.beta.openshift.io/inject-cabundle'] === 'true';
  const liveCa = child(child(child(ls, 'conversion'), 'webhook'), 'clientConfig')['caBundle'];
  if (inject && typeof liveCa === 'string') {
    const wh = child(child(spec, 'conversion'), 'webhook');
    if (isObject(wh['clientConfig'])) wh['clientConfig'] = { ...wh['clientConfig'], caBundle: liveCa };
  }
  out['spec'] = spec;
  return out;
};

/** ValidatingWebhookConfiguration: webhooks set; an injected live `clientConfig.caBundle` is kept when the manifest has none. */
export const mergeValidatingWebhook: MergeFn = (live, required) => {
  const out = withMeta(live, required);
  if (Array.isArray(required['webhooks'])) {
    out['webhooks'] = mergeByName(live['webhooks'], required['webhooks'], (l, r) => {
      const m = overlay(l, r) as JsonObject;
      const liveCa = child(l, 'clientConfig')['caBundle'];
      if (child(r, 'clientConfig')['caBundle'] === undefined && typeof liveCa === 'string')
        m['clientConfig'] = { ...child(m, 'clientConfig'), caBundle: liveCa };
      return m;
    });
  }
  return out;
};

const GENERIC_SKIP = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * Generic kinds (dynamic client): when the live object does not already satisfy the manifest (compared after the
 * server's defaulting: every manifest field present and equal), each top-level manifest key except
 * apiVersion/kind/metadata/status replaces the live one, and labels/annotations/ownerReferences are replaced by the
 * manifest's. Upstream compares without defaulting and so rewrites CRs whose schema defaults fields.
 */
export const mergeGeneric: MergeFn = (live, required) => {
  const lm = child(live, 'metadata');
  const rm = child(required, 'metadata');
  let differs = false;
  for (const [k, v] of Object.entries(required)) {
    if (GENERIC_SKIP.has(k) || v === undefined) continue;
    if (!deepEqual(overlay(live[k], v), live[k])) differs = true;
  }
  for (const k of ['labels', 'annotations', 'ownerReferences']) {
    if (rm[k] !== undefined && !deepEqual(lm[k], rm[k])) differs = true;
  }
  if (!differs) return live;
  const out: JsonObject = { ...live };
  for (const [k, v] of Object.entries(required)) if (!GENERIC_SKIP.has(k) && v !== undefined) out[k] = clone(v);
  const meta: JsonObject = { ...lm };
  for (const k of ['labels', 'annotations', 'ownerReferences'])
    meta[k] = rm[k] !== undefined ? clone(rm[k]) : undefined;
  out['metadata'] = meta;
  return out;
};

/** Drops keys whose value is `undefined` (so merged objects compare and serialise cleanly). */
export function stripUndefined<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}
