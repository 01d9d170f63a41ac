/**
 * `@keelson/manifest-graph`: the OpenShift Cluster Version Operator's task graph
 * (pkg/payload/task_graph.go) in TypeScript.
 * @packageDocumentation
 */
export { ManifestGraphError, type ManifestGraphErrorCode } from './errors.js';
export {
  createTask,
  goQuote,
  gvkString,
  splitOnJobs,
  taskResourceId,
  taskString,
  type GroupVersionKind,
  type Task,
  type TaskInit,
} from './task.js';
export {
  byNumberAndComponent,
  createTaskNode,
  flattenByNumberAndComponent,
  permuteOrder,
  RUN_LEVEL_COMPONENT_PATTERN,
  shiftOrder,
  TaskGraph,
  taskNodeString,
  toDot,
  type BreakFn,
  type Shuffler,
  type TaskNode,
} from './graph.js';
export { GoRand } from './go-rand.js';
export { toJson, toMermaid, type TaskGraphJson } from './render.js';
export { runGraph, type RunGraphOptions, type RunGraphWorker, type RunGraphWorkerContext } from './run.js';
export { planSync, RECONCILE_SHIFT_STEPS, type PlanSyncOptions, type SyncMode, type SyncPlan } from './plan.js';
