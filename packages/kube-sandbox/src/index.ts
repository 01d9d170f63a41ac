/**
 * @keelson/kube-sandbox: an embedded Kubernetes API server that kubectl and @kubernetes/client-node accept.
 * Start one with {@link startSandbox}.
 */
export { startSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
export {
  clusterCABundleObjects,
  installClusterCABundles,
  installOpenShiftCrds,
  type ClusterCABundles,
  type CrdTarget,
} from './openshift.js';
export {
  Cluster,
  type ChangeEvent,
  type ClusterOptions,
  type DeleteOptions,
  type TypeStrategy,
  type WatchEventType,
  type WriteOptions,
} from './cluster.js';
export {
  ApiError,
  SandboxError,
  type KubeStatus,
  type StatusCause,
  type StatusDetails,
  type FieldError,
} from './errors.js';
export { buildKubeconfig, kubeconfigYaml, writeKubeconfig, type Kubeconfig } from './kubeconfig.js';
export { generateCaCert, generateTls, type TlsMaterial } from './tls.js';
export { mergePatch, jsonPatch, strategicMergePatch, JsonPatchError } from './patch.js';
export { parseLabelSelector } from './selectors.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- kept for existing importers; the implementation lives in @keelson/api
export { matchLabels, type LabelRequirement } from './selectors.js';
export { SERVER_VERSION } from './http.js';
/** Authentication and RBAC authorization (as kube-apiserver's), for tests that reason about access. */
export {
  authorize,
  ruleAllows,
  rulesFor,
  serviceAccountUsername,
  SYSTEM_MASTERS,
  type Decision,
  type PolicyRule,
  type UserInfo,
} from './rbac.js';
export { requestAttributes, forbiddenFor, type RequestAttributes } from './authz.js';
export { BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_CLUSTER_ROLE_BINDINGS, aggregatedRules } from './rbac-bootstrap.js';
export { ADMIN_USER, type StaticTokenUser } from './authn.js';
/**
 * Builds a served resource type from a short definition (group, version, plural, kind, namespaced, shortNames,
 * subresources, fields, lists...). Register it with `sandbox.cluster.addType(type)` to serve another kind
 * generically (it then appears in discovery and supports every verb).
 */
export { makeType as defineResourceType, type Def as ResourceTypeDefinition } from './builtins.js';
export type {
  KubeObject,
  ObjectMeta,
  OwnerReference,
  ManagedFieldsEntry,
  ResourceType,
  JsonObject,
  CrdInfo,
  ListStrategy,
} from './types.js';
/**
 * SIMULATOR of cluster operators (opt-in): reports ClusterOperator versions and conditions like healthy (or
 * faulty) operators would, through the API like any client. Also started in-process by `startSandbox({ simulateOperators })`.
 */
export {
  startOperatorSimulator,
  expectedVersionsFromManifests,
  type OperatorSimulator,
  type OperatorSimulatorOptions,
  type OperatorReport,
  type SimulatorLogger,
} from './simulators/operator-simulator.js';
export {
  decideOperatorReport,
  resolveExpectedVersions,
  unavailableDeployments,
  relatedNamespaces,
  buildOperatorStatus,
  RELEASE_VERSION_ENV,
  type OperatorReportDecision,
  type OperatorReportInput,
} from './simulators/decide-operator.js';
export { OPERATOR_SIMULATOR_IDENTITY, operatorSimulatorManifests } from './simulators/operator-simulator-rbac.js';
export {
  OPERATOR_FAULT_KINDS,
  type OperatorFault,
  type OperandVersion,
  type OperatorCondition,
} from './simulators/operator-types.js';
/**
 * The pod simulator's scheduler as pure functions (kube-scheduler filters NodeUnschedulable, TaintToleration and
 * NodeAffinity; the FitError message of a pod that fits nowhere).
 */
export {
  decidePodPlacement,
  nodeRejection,
  toleratesTaint,
  unschedulableMessage,
  DEFAULT_SCHEDULER_NAME,
  SCHEDULER_REASONS,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_UNSCHEDULABLE,
  type NodeSelectorTerm,
  type PodPlacement,
  type SchedulableNode,
  type SchedulablePod,
  type Taint,
  type Toleration,
} from './scheduler.js';
