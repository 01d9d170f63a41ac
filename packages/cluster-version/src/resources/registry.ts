/**
 * The builder registry (upstream lib/resourcebuilder `Mapper` and pkg/cvo/cvo.go `resourceBuilder.builderFor`): which
 * merge and which post-apply check each kind gets, keyed by `group/version/Kind`, and the ClusterOperator builder
 * (upstream pkg/cvo/internal/operatorstatus.go) with its own procedure. Kinds without a typed builder use the generic
 * (dynamic client) merge.
 */
import type { ClusterOperator } from '@keelson/api';
import type { Logger } from '@keelson/kube';
import type { JsonObject } from './merge-core.js';
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
import { CLUSTER_OPERATOR_GVK, clusterOperatorBuilder } from './clusteroperator.js';
import { checkCrd, checkDaemonSet, checkDeployment, checkJob, type HealthCheckFn } from './checks.js';

/** Sync mode of the apply (upstream resourcebuilder `Mode`). */
export type ApplyMode = 'initializing' | 'updating' | 'reconciling' | 'precreating';

/** What an apply did. */
export type ApplyAction = 'created' | 'updated' | 'unchanged' | 'deleted' | 'delete-pending' | 'absent';

/** Result of one apply: what it did and the object the server holds afterwards (when known). */
export interface ApplyResult {
  action: ApplyAction;
  object: JsonObject | undefined;
}

/**
 * Where the ClusterOperator builder reads live ClusterOperators and reports its verdicts (upstream
 * `ClusterOperatorsGetter`, a lister over the informer cache, and `payload.COUpdateStartTimes*`).
 */
export interface ClusterOperatorSource {
  /** The live ClusterOperator from a cache, undefined when not (yet) known there: the builder then GETs it. */
  get(name: string): ClusterOperator | undefined;
  /** The ClusterOperator is healthy and at its versions (upstream `COUpdateStartTimesRemove`). */
  done?(name: string): void;
  /** The gate found the ClusterOperator not done yet (`reason` as upstream's UpdateError). */
  waiting?(name: string, reason: string): void;
}

/** What a builder with its own procedure ({@link Builder.run}) may do with the object it builds. */
export interface BuilderContext {
  mode: ApplyMode;
  signal: AbortSignal | undefined;
  log: Logger;
  /** GETs the object the manifest names (undefined when absent). */
  get(): Promise<JsonObject | undefined>;
  /** POSTs the object (counted as a create). */
  create(obj: JsonObject): Promise<JsonObject>;
  /** PUTs the object (counted as an update). */
  update(obj: JsonObject): Promise<JsonObject>;
  /** PUTs the object's status subresource (counted as an update). */
  updateStatus(obj: JsonObject): Promise<JsonObject>;
  /** The ClusterOperator cache and callbacks the applier was given, if any. */
  clusterOperators: ClusterOperatorSource | undefined;
}

/** A builder: how to merge and how to check the applied object, or its own procedure. */
export interface Builder {
  /** `group/version/Kind` (core group spelled as empty: `/v1/ConfigMap`). */
  gvk: string;
  merge: MergeFn;
  /** Post-apply check (skipped in Initializing). */
  check?: HealthCheckFn;
  /** True for the typed builders upstream has; false for the generic fallback. */
  typed: boolean;
  /**
   * A procedure replacing create-or-merge (upstream's ClusterOperator builder: it never writes the manifest, it
   * precreates, merges metadata and gates on the live status). The manifest is given without the owner reference.
   */
  run?: (manifest: JsonObject, ctx: BuilderContext) => Promise<ApplyResult>;
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
REGISTRY.set(CLUSTER_OPERATOR_GVK, clusterOperatorBuilder);

/** The builder for a kind: the typed one when upstream has it, else the generic builder. */
export function builderFor(group: string, version: string, kind: string): Builder {
  const key = gvkKey(group, version, kind);
  return REGISTRY.get(key) ?? { gvk: key, merge: mergeGeneric, typed: false };
}

/** Every kind with a typed builder. */
export function typedKinds(): string[] {
  return [...REGISTRY.keys()];
}
