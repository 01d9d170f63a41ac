/**
 * scheduling.k8s.io/v1 PriorityClass as kube-apiserver 1.32 defaults and validates it: kubernetes
 * `pkg/apis/scheduling/v1/defaults.go` (`SetDefaults_PriorityClass`: preemptionPolicy PreemptLowerPriority) and
 * `pkg/apis/scheduling/validation/validation.go` (`ValidatePriorityClass`, `ValidatePriorityClassUpdate`), with the
 * system classes of `pkg/apis/scheduling/helpers.go` (`IsKnownSystemPriorityClass`).
 */
import type { Cluster } from './cluster.js';
import type { FieldError } from './errors.js';
import type { KubeObject } from './types.js';

/** `scheduling.HighestUserDefinablePriority`. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;

/** The system classes kube-apiserver knows (`SystemPriorityClasses`), name → value. */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  'system-node-critical': 2_000_001_000,
  'system-cluster-critical': 2_000_000_000,
};

const POLICIES = ['Never', 'PreemptLowerPriority'];

/** `SetDefaults_PriorityClass`. */
export function defaultPriorityClass(obj: KubeObject): void {
  obj['preemptionPolicy'] ??= 'PreemptLowerPriority';
}

function systemClassProblem(name: string, value: unknown, globalDefault: unknown): string | undefined {
  const want = SYSTEM_PRIORITY_CLASSES[name];
  if (want === undefined) return `${name} is not a known system priority class`;
  if (value !== want) return `value of ${name} PriorityClass must be ${want}`;
  if (globalDefault === true) return `globalDefault must be false for ${name}`;
  return undefined;
}

/** `ValidatePriorityClass` (create) and `ValidatePriorityClassUpdate` (update, with `old`). */
export function validatePriorityClass(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata?.name ?? '';
  const value = obj['value'];
  if (value !== undefined && (!Number.isInteger(value) || Math.abs(value as number) > 2 ** 31 - 1))
    errs.push({ field: 'value', type: 'FieldValueInvalid', value, detail: 'must be a 32-bit integer' });
  if (name.startsWith('system-')) {
    const problem = systemClassProblem(name, value ?? 0, obj['globalDefault']);
    if (problem !== undefined)
      errs.push({
        field: 'metadata.name',
        type: 'FieldValueForbidden',
        detail: `priority class names with 'system-' prefix are reserved for system use only. error: ${problem}`,
      });
  } else if (typeof value === 'number' && value > HIGHEST_USER_DEFINABLE_PRIORITY)
    errs.push({
      field: 'value',
      type: 'FieldValueForbidden',
      detail: `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`,
    });
  const policy = obj['preemptionPolicy'];
  if (typeof policy !== 'string' || !POLICIES.includes(policy))
    errs.push({
      field: 'preemptionPolicy',
      type: 'FieldValueNotSupported',
      value: policy,
      detail: `supported values: ${POLICIES.map((p) => JSON.stringify(p)).join(', ')}`,
    });
  if (old !== undefined) {
    if ((obj['value'] ?? 0) !== (old['value'] ?? 0))
      errs.push({ field: 'value', type: 'FieldValueForbidden', detail: 'may not be changed in an update.' });
    if (policy !== old['preemptionPolicy'])
      errs.push({ field: 'preemptionPolicy', type: 'FieldValueInvalid', value: policy, detail: 'field is immutable' });
  }
  return errs;
}

/** The descriptions kube-apiserver gives the system classes it creates (`scheduling.SystemPriorityClasses`). */
const SYSTEM_PRIORITY_CLASS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'system-node-critical': 'Used for system critical pods that must not be moved from their current node.',
  'system-cluster-critical':
    'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
};

/**
 * kube-apiserver's `scheduling/bootstrap-system-priority-classes` post-start hook: creates each system class that is
 * missing (at every start, so a restored or hand-edited store gets them back).
 */
export function ensureSystemPriorityClasses(cluster: Cluster): void {
  const t = cluster.findType('scheduling.k8s.io', 'v1', 'priorityclasses');
  if (!t) return;
  for (const [name, value] of Object.entries(SYSTEM_PRIORITY_CLASSES)) {
    if (cluster.peek(t, undefined, name)) continue;
    cluster.create(t, undefined, {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name },
      value,
      description: SYSTEM_PRIORITY_CLASS_DESCRIPTIONS[name] ?? '',
    });
  }
}
