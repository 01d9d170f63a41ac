/**
 * One apply of a payload (upstream pkg/cvo/sync_worker.go `SyncWorker.apply`): tasks from the included manifests, the
 * graph from `planSync`, ClusterOperator precreation per node, each task applied with backoff through its kind's
 * builder (the ClusterOperator gate is the ClusterOperator builder's, in @keelson/cluster-version), errors summarised.
 */
import {
  createTask,
  planSync,
  runGraph,
  taskString,
  RUN_LEVEL_COMPONENT_PATTERN,
  type Task,
} from '@keelson/manifest-graph';
import { includeManifest, type ClusterFacts, type Manifest } from '@keelson/release-payload';
import type { Logger } from '@keelson/kube';
import {
  backoffDelays,
  classifyApiError,
  summarizeTaskGraphErrors,
  UpdateError,
  type ApplyAction,
  type OwnerRef,
  type ResourceApplier,
  type TaskBackoff,
} from '@keelson/cluster-version';
import { inGraphNode } from './graph-node-scope.js';

/** Sync-worker state. */
export type SyncMode = 'initializing' | 'updating' | 'reconciling';

/** Events of one apply. */
export interface ApplyObserver {
  manifestApplied?(e: { task: string; action: ApplyAction | 'skipped'; done: number; total: number }): void;
  runLevelStarted?(e: { runLevel: string }): void;
  runLevelFinished?(e: { runLevel: string }): void;
  /** Every failed apply attempt, retried ones included (upstream `cluster_operator_payload_errors`). */
  taskFailed?(e: { task: string; reason: string; message: string }): void;
}

/** Inputs of {@link runPayload}. */
export interface RunPayloadOptions {
  manifests: readonly Manifest[];
  mode: SyncMode;
  attempt: number;
  applier: ResourceApplier;
  owner: OwnerRef | undefined;
  /** Apply-time inclusion (capabilities, overrides). */
  facts: ClusterFacts;
  backoff: TaskBackoff;
  /** First time each operator was waited on in this update (kept across applies). */
  operatorSince: Map<string, number>;
  signal: AbortSignal;
  log: Logger;
  observer?: ApplyObserver;
  now?: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Result of one apply. */
export interface RunPayloadResult {
  done: number;
  total: number;
  /** Summarised error, null on success. */
  error: Error | null;
}

function runLevelOf(filename: string): string | undefined {
  return RUN_LEVEL_COMPONENT_PATTERN.exec(filename)?.[1];
}

/** Runs the graph of a payload once. */
export async function runPayload(o: RunPayloadOptions): Promise<RunPayloadResult> {
  const total = o.manifests.length;
  const tasks: Task<Manifest>[] = o.manifests.map((m, i) =>
    createTask({
      filename: m.filename,
      group: m.gvk.group,
      version: m.gvk.version,
      kind: m.gvk.kind,
      namespace: m.namespace,
      name: m.name,
      index: i + 1,
      total,
      data: m,
    }),
  );
  const plan = planSync(tasks, { mode: o.mode, attempt: o.attempt });
  let done = 0;
  const levelRemaining = new Map<string, number>();
  // the run level of each task, matched once (the pattern backtracks over the component name)
  const levelOf = new Map(tasks.map((t) => [t, runLevelOf(t.filename)]));
  for (const t of tasks) {
    const lvl = levelOf.get(t);
    if (lvl !== undefined) levelRemaining.set(lvl, (levelRemaining.get(lvl) ?? 0) + 1);
  }
  const startedLevels = new Set<string>();
  const finishTask = (t: Task<Manifest>, action: ApplyAction | 'skipped'): void => {
    if (action !== 'skipped') done++;
    o.observer?.manifestApplied?.({ task: taskString(t), action, done, total });
    const lvl = levelOf.get(t);
    if (lvl === undefined) return;
    const left = (levelRemaining.get(lvl) ?? 1) - 1;
    levelRemaining.set(lvl, left);
    if (left === 0) o.observer?.runLevelFinished?.({ runLevel: lvl });
  };
  const errs = await runGraph(plan.graph, { maxParallelism: plan.parallelism, signal: o.signal }, (nodeTasks, ctx) =>
    inGraphNode(nodeTasks[0]?.index ?? 0, async () => {
      await precreateOperators(nodeTasks, o);
      for (const t of nodeTasks) {
        if (ctx.signal.aborted) throw new Error(`update context canceled at ${done} of ${total}`);
        const lvl = runLevelOf(t.filename);
        if (lvl !== undefined && !startedLevels.has(lvl)) {
          startedLevels.add(lvl);
          o.observer?.runLevelStarted?.({ runLevel: lvl });
        }
        const action = await runTask(t, o, ctx.signal);
        finishTask(t, action);
      }
    }),
  );
  return { done, total, error: summarizeTaskGraphErrors(errs) };
}

/**
 * Upstream Precreating (pkg/cvo/sync_worker.go `apply`): every ClusterOperator of the node goes through its builder in
 * Precreating mode before the node's tasks run; failures are logged and ignored, as upstream.
 */
async function precreateOperators(tasks: readonly Task<Manifest>[], o: RunPayloadOptions): Promise<void> {
  if (o.mode === 'reconciling') return;
  for (const t of tasks) {
    const m = t.data;
    if (!m || m.gvk.group !== 'config.openshift.io' || m.gvk.kind !== 'ClusterOperator') continue;
    try {
      await o.applier.apply(m.object, 'precreating', o.signal);
    } catch (e) {
      o.log.debug('precreating ClusterOperator failed (ignored)', { name: m.name, error: (e as Error).message });
    }
  }
}

async function runTask(t: Task<Manifest>, o: RunPayloadOptions, signal: AbortSignal): Promise<ApplyAction | 'skipped'> {
  const m = t.data;
  if (!m) return 'skipped';
  const skip = includeManifest(m, { ...o.facts, majorVersion: null });
  if (skip) {
    o.log.debug(`Skipping ${taskString(t)}: ${skip.message}`);
    return 'skipped';
  }
  const delays = backoffDelays(o.backoff);
  let last: unknown;
  for (let attempt = 0; ; attempt++) {
    try {
      return await applyOne(m, o, signal);
    } catch (e) {
      if (e instanceof UpdateError) {
        o.observer?.taskFailed?.({ task: taskString(t), reason: e.reason, message: e.message });
        if (e.names.length > 0 && e.effect !== 'Report')
          for (const n of e.names) if (!o.operatorSince.has(n)) o.operatorSince.set(n, (o.now ?? Date.now)());
        throw e;
      }
      last = e;
      // upstream counts every failed attempt (cluster_operator_payload_errors), retried ones included
      o.observer?.taskFailed?.({
        task: taskString(t),
        reason: classifyApiError(e).reason,
        message: (e as Error).message,
      });
      o.log.debug('task failed, retrying', { task: taskString(t), error: (e as Error).message });
      const d = delays[attempt];
      if (d === undefined || signal.aborted) break;
      await o.sleep(d, signal);
      if (signal.aborted) break;
    }
  }
  const { reason, cause } = classifyApiError(last);
  throw new UpdateError({
    reason,
    message: `Could not update ${taskString(t)}${cause ? `: ${cause}` : ''}`,
    task: taskString(t),
    cause: last,
  });
}

async function applyOne(m: Manifest, o: RunPayloadOptions, signal: AbortSignal): Promise<ApplyAction> {
  try {
    const { action } = await o.applier.apply(m.object, o.mode, signal, o.owner);
    return action;
  } catch (e) {
    // an error only reported (upstream UpdateEffectReport: a degraded ClusterOperator while Initializing) does not fail
    // the task
    if (!(e instanceof UpdateError) || e.effect !== 'Report') throw e;
    o.log.info('reported, not blocking', { task: `${m.gvk.kind} ${m.name}`, reason: e.reason, message: e.message });
    return 'unchanged';
  }
}
