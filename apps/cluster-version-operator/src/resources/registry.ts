/**
 * The builder registry (upstream lib/resourcebuilder): which merge and which post-apply check each kind gets, keyed by
 * `group/version/Kind`. Kinds without a typed builder use the generic (dynamic client) merge.
 */
import {
  mergeConfigMap,
  mergeCrd,
  mergeDaemonSet,
  mergeDeployment,
  mergeFields,
  mergeGeneric,
  mergeJob,
  mergeMetadataOnly,
  mergeService,
  mergeServiceAccount,
  mergeValidatingWebhook,
  type MergeFn,
} from './merge.js';
import { checkCrd, checkDaemonSet, checkDeployment, checkJob, type HealthCheckFn } from './checks.js';

/** A typed builder: how to merge and how to check the applied object. */
export interface Builder {
  /** `group/version/Kind` (core group spelled as empty: `/v1/ConfigMap`). */
  gvk: string;
  merge: MergeFn;
  /** Post-apply check (skipped in Initializing). */
  check?: HealthCheckFn;
  /** True for the typed builders upstream has; false for the generic fallback. */
  typed: boolean;
}

/** `group/version/Kind` key of the registry. */
export function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

const TYPED: [string, MergeFn, HealthCheckFn?][] = [
  [gvkKey('image.openshift.io', 'v1', 'ImageStream'), mergeFields('spec')],
  [gvkKey('security.openshift.io', 'v1', 'SecurityContextConstraints'), mergeGeneric],
  [gvkKey('operators.coreos.com', 'v1', 'OperatorGroup'), mergeFields('spec')],
  [gvkKey('admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration'), mergeValidatingWebhook],
  [gvkKey('apps', 'v1', 'DaemonSet'), mergeDaemonSet, checkDaemonSet],
  [gvkKey('apps', 'v1', 'Deployment'), mergeDeployment, checkDeployment],
  [gvkKey('batch', 'v1', 'CronJob'), mergeFields('spec')],
  [gvkKey('batch', 'v1', 'Job'), mergeJob, checkJob],
  [gvkKey('', 'v1', 'ConfigMap'), mergeConfigMap],
  [gvkKey('', 'v1', 'Namespace'), mergeMetadataOnly],
  [gvkKey('', 'v1', 'Service'), mergeService],
  [gvkKey('', 'v1', 'ServiceAccount'), mergeServiceAccount],
  [gvkKey('rbac.authorization.k8s.io', 'v1', 'ClusterRole'), mergeFields('rules', 'aggregationRule')],
  [gvkKey('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding'), mergeFields('subjects', 'roleRef')],
  [gvkKey('rbac.authorization.k8s.io', 'v1', 'Role'), mergeFields('rules')],
  [gvkKey('rbac.authorization.k8s.io', 'v1', 'RoleBinding'), mergeFields('subjects', 'roleRef')],
  [gvkKey('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'), mergeCrd, checkCrd],
];

const REGISTRY = new Map<string, Builder>(
  TYPED.map(([gvk, merge, check]) => [gvk, check ? { gvk, merge, check, typed: true } : { gvk, merge, typed: true }]),
);

/** The builder for a kind: the typed one when upstream has it, else the generic builder. */
export function builderFor(group: string, version: string, kind: string): Builder {
  const key = gvkKey(group, version, kind);
  return REGISTRY.get(key) ?? { gvk: key, merge: mergeGeneric, typed: false };
}

/** Every kind with a typed builder. */
export function typedKinds(): string[] {
  return [...REGISTRY.keys()];
}
