/**
 * @keelson/kube: operator plumbing on @kubernetes/client-node: a typed REST client for our CRD kinds,
 * informers with indexers, client-go style rate-limited work queues, controllers, Lease leader election,
 * status-condition helpers, event recording, JSON logging, health/metrics server and graceful shutdown.
 * @packageDocumentation
 */
export { KubeConfig } from '@kubernetes/client-node';
export { Registry } from 'prom-client';
export { KubeError, KubeApiError, isNotFound, isConflict, isAlreadyExists, isGone } from './errors.js';
export type { KubeErrorCode, KubeStatus } from './errors.js';
export {
  createLogger,
  errorSafeLogger,
  klogFields,
  nullLogger,
  serializeError,
  serializeErrorFields,
} from './logger.js';
export type { Logger, LoggerOptions, LogLevel } from './logger.js';
export { realClock, sleep, jitter } from './clock.js';
/** Go's `time.ParseDuration` lives in `@keelson/api` (pure, no client); re-exported for the flags' users. */
export { parseGoDuration, DurationError } from '@keelson/api';
export {
  UsageError,
  isUsageError,
  flagName,
  parseDurationFlag,
  parseCountFlag,
  parseListenFlag,
  parseVerbosityFlag,
  parseLeaderElectionFlags,
  parseGoBool,
  levelFromVerbosity,
  COMMON_FLAGS,
  parseFlags,
  processLogger,
  runProgram,
} from './flags.js';
export type {
  DurationBound,
  BoolFlag,
  FlagSpec,
  FlagValue,
  FlagValues,
  ParsedFlags,
  StringFlag,
  StringsFlag,
} from './flags.js';
export { writeFileAtomic, atomicTempPath } from './atomic-write.js';
export type { AtomicWriteOptions } from './atomic-write.js';
export type { Clock } from './clock.js';
export {
  ItemExponentialFailureRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './ratelimit.js';
export type { RateLimiter } from './ratelimit.js';
export { WorkQueue } from './workqueue.js';
export type { WorkQueueOptions, QueueGetResult } from './workqueue.js';
export {
  kubeTime,
  findCondition,
  isConditionStatus,
  isConditionTrue,
  isConditionFalse,
  setCondition,
  removeCondition,
  conditionsEqual,
} from './conditions.js';
export type { Condition, ConditionStatus } from './conditions.js';
export type * from './types.js';
export {
  defineResource,
  apiVersionOf,
  ClusterVersions,
  ClusterOperators,
  MachineConfigs,
  MachineConfigPools,
  KubeletConfigs,
  ContainerRuntimeConfigs,
  ControllerConfigs,
  MachineConfigNodes,
  MachineConfigurations,
  Leases,
  Events,
  ConfigMaps,
  Namespaces,
} from './resources.js';
export type { ResourceDescriptor } from './resources.js';
export { KubeClient, ResourceClient, collectionPath, objectPath, MAX_WATCH_LINE_BYTES } from './client.js';
export type {
  KubeClientOptions,
  Query,
  RequestOptions,
  ListOptions,
  WatchOptions,
  PatchType,
  PatchOptions,
  DeleteOptions,
} from './client.js';
export { Indexer, objectKey, splitObjectKey, namespaceIndex, labelIndex, controllerOwnerIndex } from './store.js';
export type { IndexFunc } from './store.js';
export { Informer } from './informer.js';
export type { InformerOptions, InformerHandlers, InformerStats } from './informer.js';
export { Controller, ownerKeyMapper } from './controller.js';
export type { ControllerOptions, Reconciler, ReconcileContext, ReconcileResult } from './controller.js';
export { LeaderElector, microTime, LEADER_ELECTION_JITTER } from './leaderelection.js';
export type { LeaderElectionOptions } from './leaderelection.js';
export { SCALED_LEADER_ELECTION_FLOOR, scaledLeaderElection } from './leader-timing.js';
export type { LeaderElectionTiming } from './leader-timing.js';
export { COMBINED_EVENTS_PREFIX, EVENT_CORRELATOR_DEFAULTS, EventRecorder } from './events.js';
export type { CorrelatorLimits, EventRecorderOptions } from './events.js';
export { startHealthServer } from './health.js';
export type { HealthServer, HealthServerOptions, HealthServerTls, HealthCheck } from './health.js';
export { onShutdown } from './shutdown.js';
export { Manager, OPENSHIFT_LEADER_ELECTION, aborted, runnableFromStarter } from './manager.js';
export type { ManagerOptions, ManagerLeaderElection, Runnable, RunnableFunc, StopReason } from './manager.js';
export type { ShutdownOptions, ShutdownHandle } from './shutdown.js';
