/**
 * The ClusterOperator builder of the registry (upstream pkg/cvo/internal/operatorstatus.go `clusterOperatorBuilder.Do`):
 * precreation, the metadata merge in Reconciling, and the gate (`checkOperatorHealth`) as a pure decision over the
 * manifest's versions and the live ClusterOperator's status.
 */
import { isAlreadyExists, isConflict, KubeApiError } from '@keelson/kube';
import type { OperandVersion } from '@keelson/api';
import { UpdateError } from '../errors.js';
import { child, deepEqual, isObject, type JsonObject } from './merge-core.js';
import { mergeMetadataOnly, stripUndefined } from './merge.js';
import type { ApplyResult, Builder, BuilderContext } from './registry.js';

/** Registry key of the ClusterOperator builder. */
export const CLUSTER_OPERATOR_GVK = 'config.openshift.io/v1/ClusterOperator';

/** A condition as the gate reads it. */
export interface OperatorHealthCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** What the gate reads of a live ClusterOperator (a `ClusterOperator` of `@keelson/api` is one). */
export interface OperatorHealthView {
  status?: {
    versions?: readonly OperandVersion[];
    conditions?: readonly OperatorHealthCondition[];
  };
}

/** Mode the gate runs in. */
export type GateMode = 'initializing' | 'updating' | 'reconciling' | 'precreating';

/**
 * Decides whether a ClusterOperator satisfies its manifest: returns `null` when it does, or the upstream
 * {@link UpdateError} (`ClusterOperatorNoVersions`, `ClusterOperatorNotAvailable`, `ClusterOperatorDegraded`,
 * `ClusterOperatorUpdating`) with its effect for `mode`.
 */
export function decideOperatorHealth(
  name: string,
  expected: readonly OperandVersion[],
  live: OperatorHealthView,
  mode: GateMode,
): UpdateError | null {
  if (expected.length === 0) {
    return new UpdateError({
      reason: 'ClusterOperatorNoVersions',
      name,
      message: `Cluster operator ${name} does not declare expected versions`,
      effect: 'Fail',
    });
  }
  const liveVersions = new Map((live.status?.versions ?? []).map((v) => [v.name, v.version]));
  const undone: string[] = [];
  for (const want of expected) {
    const cur = liveVersions.get(want.name);
    if (cur === want.version) continue;
    undone.push(
      cur === undefined || cur === ''
        ? `${want.name} to ${want.version}`
        : `${want.name} from ${cur} to ${want.version}`,
    );
  }
  undone.sort();
  const conds = live.status?.conditions ?? [];
  const available = conds.find((c) => c.type === 'Available');
  if (available?.status !== 'True') {
    return new UpdateError({
      reason: 'ClusterOperatorNotAvailable',
      name,
      message: `Cluster operator ${name} is not available`,
      effect: 'Fail',
    });
  }
  const degraded = conds.find((c) => c.type === 'Degraded');
  if (degraded?.status !== 'False') {
    return new UpdateError({
      reason: 'ClusterOperatorDegraded',
      name,
      message: `Cluster operator ${name} is degraded`,
      effect: mode === 'initializing' ? 'Report' : 'FailAfterInterval',
    });
  }
  if (undone.length > 0 && mode !== 'initializing') {
    return new UpdateError({
      reason: 'ClusterOperatorUpdating',
      name,
      message: `Cluster operator ${name} is updating versions`,
      effect: 'None',
    });
  }
  return null;
}

function isOperandVersion(x: unknown): x is OperandVersion {
  return isObject(x) && typeof x['name'] === 'string' && typeof x['version'] === 'string';
}

function isCondition(x: unknown): x is OperatorHealthCondition {
  return (
    isObject(x) &&
    typeof x['type'] === 'string' &&
    typeof x['status'] === 'string' &&
    (x['reason'] === undefined || typeof x['reason'] === 'string') &&
    (x['message'] === undefined || typeof x['message'] === 'string')
  );
}

/** The `status.versions` a ClusterOperator manifest declares. */
export function expectedVersions(manifest: JsonObject): OperandVersion[] {
  const v = child(manifest, 'status')['versions'];
  return Array.isArray(v) ? v.filter(isOperandVersion) : [];
}

/** The gate's view of a ClusterOperator read as JSON: well-formed versions and conditions only. */
export function operatorHealthView(obj: JsonObject): OperatorHealthView {
  const st = child(obj, 'status');
  const versions = Array.isArray(st['versions']) ? st['versions'].filter(isOperandVersion) : [];
  const conditions = Array.isArray(st['conditions']) ? st['conditions'].filter(isCondition) : [];
  return { status: { versions, conditions } };
}

function notFound(name: string): KubeApiError {
  return new KubeApiError('GET', `/apis/config.openshift.io/v1/clusteroperators/${name}`, 404, {
    reason: 'NotFound',
    message: `clusteroperators.config.openshift.io "${name}" not found`,
  });
}

/** The live ClusterOperator: the source's cache first, then a GET (NotFound when absent). */
async function readLive(name: string, ctx: BuilderContext): Promise<JsonObject> {
  const cached = ctx.clusterOperators?.get(name);
  if (cached !== undefined) return { ...cached, metadata: { ...cached.metadata } };
  const fresh = await ctx.get();
  if (fresh === undefined) throw notFound(name);
  return fresh;
}

/** Upstream PrecreatingMode: create the ClusterOperator with an empty spec, then write its `relatedObjects`. */
async function precreate(name: string, manifest: JsonObject, ctx: BuilderContext): Promise<ApplyResult> {
  if (ctx.clusterOperators?.get(name) !== undefined) return { action: 'unchanged', object: undefined };
  let created: JsonObject;
  try {
    created = await ctx.create({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterOperator',
      metadata: { ...child(manifest, 'metadata') },
      spec: {},
    });
  } catch (e) {
    if (isAlreadyExists(e)) return { action: 'unchanged', object: undefined };
    throw e;
  }
  const related = child(manifest, 'status')['relatedObjects'];
  if (!Array.isArray(related)) return { action: 'created', object: created };
  try {
    return { action: 'created', object: await ctx.updateStatus({ ...created, status: { relatedObjects: related } }) };
  } catch (e) {
    if (isConflict(e)) return { action: 'created', object: created };
    throw e;
  }
}

/** `clusterOperatorBuilder.Do`: precreate, merge metadata in Reconciling, then gate on the live status. */
async function runClusterOperator(manifest: JsonObject, ctx: BuilderContext): Promise<ApplyResult> {
  const metaName = child(manifest, 'metadata')['name'];
  const name = typeof metaName === 'string' ? metaName : '';
  if (ctx.mode === 'precreating') return precreate(name, manifest, ctx);
  let live = await readLive(name, ctx);
  let action: ApplyResult['action'] = 'unchanged';
  if (ctx.mode === 'reconciling') {
    const merged = stripUndefined(mergeMetadataOnly(live, manifest));
    if (!deepEqual(merged, live)) {
      ctx.log.info(`Updating ClusterOperator metadata ${name} due to diff`, { name });
      live = await ctx.update(merged);
      action = 'updated';
    }
  }
  const err = decideOperatorHealth(name, expectedVersions(manifest), operatorHealthView(live), ctx.mode);
  if (err) {
    ctx.clusterOperators?.waiting?.(name, err.reason);
    throw err;
  }
  ctx.clusterOperators?.done?.(name);
  return { action, object: live };
}

/** The ClusterOperator builder (upstream `NewClusterOperatorBuilder`); its merge is the metadata merge. */
export const clusterOperatorBuilder: Builder = {
  gvk: CLUSTER_OPERATOR_GVK,
  merge: mergeMetadataOnly,
  typed: true,
  run: runClusterOperator,
};
