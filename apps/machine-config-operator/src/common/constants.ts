/** Annotation keys, labels and names of the Machine Config Operator, spelled exactly as upstream. */

const MC = 'machineconfiguration.openshift.io';

/** Node annotations (mco.md 1.6). */
export const NodeAnnotations = {
  currentConfig: `${MC}/currentConfig`,
  desiredConfig: `${MC}/desiredConfig`,
  state: `${MC}/state`,
  reason: `${MC}/reason`,
  desiredDrain: `${MC}/desiredDrain`,
  lastAppliedDrain: `${MC}/lastAppliedDrain`,
  currentImage: `${MC}/currentImage`,
  desiredImage: `${MC}/desiredImage`,
  firstPivotConfig: `${MC}/firstPivotConfig`,
  customPoolLabelsApplied: `${MC}/customPoolLabelsApplied`,
  postConfigAction: `${MC}/post-config-action`,
  controlPlaneTopology: `${MC}/controlPlaneTopology`,
} as const;

/** Values of the node `state` annotation. */
export const NodeStates = { done: 'Done', working: 'Working', degraded: 'Degraded', unreconcilable: 'Unreconcilable' } as const;

/** MachineConfig annotations. */
export const McAnnotations = {
  generatedByControllerVersion: `${MC}/generated-by-controller-version`,
  releaseImageVersion: `${MC}/release-image-version`,
  osImageURLOverridden: `${MC}/os-image-url-overridden`,
  mcNameSuffix: `${MC}/mc-name-suffix`,
  /** On ControllerConfig: the operator version that wrote it. */
  generatedByVersion: `${MC}/generated-by-version`,
} as const;

/** Labels. */
export const Labels = {
  role: `${MC}/role`,
  requiredForUpgrade: 'operator.machineconfiguration.openshift.io/required-for-upgrade',
  mcoBuiltIn: `${MC}/mco-built-in`,
  poolPrefix: 'pools.operator.machineconfiguration.openshift.io/',
  zone: 'topology.kubernetes.io/zone',
  os: 'kubernetes.io/os',
  nodeRolePrefix: 'node-role.kubernetes.io/',
} as const;

/** Namespace of the MCO's components. */
export const MCO_NAMESPACE = 'openshift-machine-config-operator';
/** Name of the ControllerConfig singleton. */
export const CONTROLLER_CONFIG_NAME = 'machine-config-controller';
/** ConfigMap the release carries with the OS image references. */
export const OSIMAGEURL_CONFIGMAP = 'machine-config-osimageurl';
/** The ClusterOperator the operator reports. */
export const CLUSTER_OPERATOR_NAME = 'machine-config';
/** Taint the node controller puts on nodes whose desiredConfig differs from the pool target. */
export const UPDATE_IN_PROGRESS_TAINT = { key: 'UpdateInProgress', effect: 'PreferNoSchedule' } as const;
/** Label of the machine-config-operator pod (its node is updated last in the master pool). */
export const OPERATOR_POD_LABEL = { key: 'k8s-app', value: 'machine-config-operator' } as const;

/** Pool condition types (MachineConfigPoolConditionType). */
export const PoolConditions = {
  updated: 'Updated',
  updating: 'Updating',
  nodeDegraded: 'NodeDegraded',
  renderDegraded: 'RenderDegraded',
  degraded: 'Degraded',
} as const;

/**
 * Version hash the controller stamps on MCs it generates (`generated-by-controller-version`). Upstream uses the
 * git commit of the MCO build; ours is the app version plus a build marker, so MCs from another build are refused.
 */
export const CONTROLLER_VERSION = 'keelson-mco-0.1.0';
