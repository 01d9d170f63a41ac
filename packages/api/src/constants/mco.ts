/**
 * Constants of the Machine Config Operator: node annotations and their values, role and pool labels,
 * MachineConfig annotations, condition types of pools, MachineConfigNodes and ControllerConfig, and the names
 * of the singletons and files the MCO uses (openshift/machine-config-operator `pkg/daemon/constants`,
 * `pkg/controller/common`, openshift/api `machineconfiguration/v1`).
 */

/** Prefix of every MCO annotation and label. */
export const MCO_PREFIX = 'machineconfiguration.openshift.io/';

/** Node annotations (all `machineconfiguration.openshift.io/…`) written by the MCD and the controllers. */
export const NODE_ANNOTATIONS = {
  /** Rendered MachineConfig the node is known to run (MCD). */
  currentConfig: 'machineconfiguration.openshift.io/currentConfig',
  /** Rendered MachineConfig the node must move to (node controller). */
  desiredConfig: 'machineconfiguration.openshift.io/desiredConfig',
  /** MCD state: see {@link MACHINE_CONFIG_DAEMON_STATES}. */
  state: 'machineconfiguration.openshift.io/state',
  /** Error text of a Degraded/Unreconcilable state (at most 2000 characters; empty when Done). */
  reason: 'machineconfiguration.openshift.io/reason',
  /** `drain-<rendered>` or `uncordon-<rendered>` (MCD). */
  desiredDrain: 'machineconfiguration.openshift.io/desiredDrain',
  /** Copy of desiredDrain once the drain controller completed it. */
  lastAppliedDrain: 'machineconfiguration.openshift.io/lastAppliedDrain',
  /** On-cluster layering: image the node runs (MCD). */
  currentImage: 'machineconfiguration.openshift.io/currentImage',
  /** On-cluster layering: image the node must move to (node controller). */
  desiredImage: 'machineconfiguration.openshift.io/desiredImage',
  /** Rendered MachineConfig the node was born with. */
  firstPivotConfig: 'machineconfiguration.openshift.io/firstPivotConfig',
  /** Set once a custom pool's node-selector labels were copied onto a node born into it. */
  customPoolLabelsApplied: 'machineconfiguration.openshift.io/customPoolLabelsApplied',
  /** `Rebooting` before a reboot; cleared after the next sync. */
  postConfigAction: 'machineconfiguration.openshift.io/post-config-action',
  /** Copy of Infrastructure `status.controlPlaneTopology`. */
  controlPlaneTopology: 'machineconfiguration.openshift.io/controlPlaneTopology',
  /** Text of a failed ostree-finalize-staged from the previous boot. */
  ostreeFinalizeStagedFailure: 'machineconfiguration.openshift.io/ostree-finalize-staged-failure',
  /** `accessed` (MCD ≤ 4.13 only). */
  ssh: 'machineconfiguration.openshift.io/ssh',
} as const;

/** Values of the `state` node annotation. */
export const MACHINE_CONFIG_DAEMON_STATES = {
  Done: 'Done',
  Working: 'Working',
  Degraded: 'Degraded',
  Unreconcilable: 'Unreconcilable',
} as const;
/** A value of the `state` node annotation. */
export type MachineConfigDaemonState = (typeof MACHINE_CONFIG_DAEMON_STATES)[keyof typeof MACHINE_CONFIG_DAEMON_STATES];

/** Value of the `post-config-action` annotation before a reboot. */
export const POST_CONFIG_ACTION_REBOOTING = 'Rebooting';

/** Prefixes of the `desiredDrain` / `lastAppliedDrain` values. */
export const DRAIN_VERBS = { drain: 'drain', uncordon: 'uncordon' } as const;

/** `drain-<config>` or `uncordon-<config>`. */
export function drainAnnotationValue(verb: keyof typeof DRAIN_VERBS, config: string): string {
  return `${DRAIN_VERBS[verb]}-${config}`;
}

/** Taint set on pool nodes whose desiredConfig differs from the pool target. */
export const UPDATE_IN_PROGRESS_TAINT = { key: 'UpdateInProgress', effect: 'PreferNoSchedule' } as const;

/** Annotations on MachineConfigs and configs the controllers generate. */
export const MACHINE_CONFIG_ANNOTATIONS = {
  /** Controller source hash, on every controller-generated MachineConfig. */
  generatedByControllerVersion: 'machineconfiguration.openshift.io/generated-by-controller-version',
  /** Release image version of a rendered MachineConfig. */
  releaseImageVersion: 'machineconfiguration.openshift.io/release-image-version',
  /** `"true"` on a rendered MachineConfig whose OS image differs from the cluster default. */
  osImageURLOverridden: 'machineconfiguration.openshift.io/os-image-url-overridden',
  /** On KubeletConfig/ContainerRuntimeConfig: numbering of the generated MachineConfigs. */
  mcNameSuffix: 'machineconfiguration.openshift.io/mc-name-suffix',
  /** On ControllerConfig: operator version (render refuses a skewed ControllerConfig). */
  generatedByVersion: 'machineconfiguration.openshift.io/generated-by-version',
} as const;

/** Labels used by the MCO. */
export const MCO_LABELS = {
  /** On MachineConfigs: the pool role they belong to (`master`, `worker`, custom). */
  role: 'machineconfiguration.openshift.io/role',
  /** On the built-in pools. */
  mcoBuiltIn: 'machineconfiguration.openshift.io/mco-built-in',
  /** On pools the `machine-config` ClusterOperator waits for during an upgrade (master). */
  requiredForUpgrade: 'operator.machineconfiguration.openshift.io/required-for-upgrade',
  /** Prefix of `pools.operator.machineconfiguration.openshift.io/<pool>` (what KubeletConfig selectors match). */
  poolPrefix: 'pools.operator.machineconfiguration.openshift.io/',
} as const;

/** `pools.operator.machineconfiguration.openshift.io/<pool>`. */
export function poolLabel(pool: string): string {
  return `${MCO_LABELS.poolPrefix}${pool}`;
}

/** Kubernetes node role labels. */
export const NODE_ROLE_LABELS = {
  master: 'node-role.kubernetes.io/master',
  controlPlane: 'node-role.kubernetes.io/control-plane',
  worker: 'node-role.kubernetes.io/worker',
  arbiter: 'node-role.kubernetes.io/arbiter',
} as const;

/** `node-role.kubernetes.io/<role>`. */
export function nodeRoleLabel(role: string): string {
  return `node-role.kubernetes.io/${role}`;
}

/** Other well-known node labels the MCO reads. */
export const NODE_LABELS = {
  os: 'kubernetes.io/os',
  hostname: 'kubernetes.io/hostname',
  zone: 'topology.kubernetes.io/zone',
} as const;

/** MachineConfigPool condition types. */
export const MACHINE_CONFIG_POOL_CONDITIONS = {
  Updated: 'Updated',
  Updating: 'Updating',
  NodeDegraded: 'NodeDegraded',
  RenderDegraded: 'RenderDegraded',
  Degraded: 'Degraded',
  ImageBuildDegraded: 'ImageBuildDegraded',
  PinnedImageSetsDegraded: 'PinnedImageSetsDegraded',
  PoolSynchronizerDegraded: 'PoolSynchronizerDegraded',
  BuildPending: 'BuildPending',
  Building: 'Building',
  BuildSuccess: 'BuildSuccess',
  BuildFailed: 'BuildFailed',
  BuildInterrupted: 'BuildInterrupted',
} as const;

/** MachineConfigNode condition types (as the CRD's printer columns list them, plus degradation). */
export const MACHINE_CONFIG_NODE_CONDITIONS = {
  Updated: 'Updated',
  UpdatePrepared: 'UpdatePrepared',
  UpdateExecuted: 'UpdateExecuted',
  UpdatePostActionComplete: 'UpdatePostActionComplete',
  UpdateComplete: 'UpdateComplete',
  Resumed: 'Resumed',
  AppliedFilesAndOS: 'AppliedFilesAndOS',
  Cordoned: 'Cordoned',
  Drained: 'Drained',
  RebootedNode: 'RebootedNode',
  Uncordoned: 'Uncordoned',
  NodeDegraded: 'NodeDegraded',
  PinnedImageSetsProgressing: 'PinnedImageSetsProgressing',
  PinnedImageSetsDegraded: 'PinnedImageSetsDegraded',
} as const;

/** ControllerConfig condition types. */
export const CONTROLLER_CONFIG_CONDITIONS = {
  TemplateControllerRunning: 'TemplateControllerRunning',
  TemplateControllerCompleted: 'TemplateControllerCompleted',
  TemplateControllerFailing: 'TemplateControllerFailing',
} as const;

/** KubeletConfig / ContainerRuntimeConfig condition types. */
export const GENERATED_CONFIG_CONDITIONS = { Success: 'Success', Failure: 'Failure', Accepted: 'Accepted' } as const;

/** Event reasons the MCO controllers emit on pools and nodes. */
export const MCO_EVENT_REASONS = {
  SelectingAll: 'SelectingAll',
  SetDesiredConfig: 'SetDesiredConfig',
  Completed: 'Completed',
  DeferringOperatorNodeUpdate: 'DeferringOperatorNodeUpdate',
  DrainThresholdExceeded: 'DrainThresholdExceeded',
  DrainFailed: 'DrainFailed',
  PreflightConfigDriftCheckFailed: 'PreflightConfigDriftCheckFailed',
} as const;

/** Names of MCO objects and well-known files. */
export const MCO_NAMES = {
  namespace: 'openshift-machine-config-operator',
  /** The rendered MachineConfig name prefix: `rendered-<pool>-<hash>`. */
  renderedPrefix: 'rendered-',
  /** Ignition spec version the MCO renders internally. */
  internalIgnitionVersion: '3.5.0',
  /** Largest JSON size of a rendered MachineConfig (bytes). */
  maxRenderedConfigBytes: 1_572_864,
  /** Machine Config Server ports (Ignition over HTTPS; the second serves the bootstrap port). */
  serverPorts: [22623, 22624],
  currentConfigFile: '/etc/machine-config-daemon/currentconfig',
  currentImageFile: '/etc/machine-config-daemon/currentimage',
  nodeAnnotationsFile: '/etc/machine-config-daemon/node-annotations.json',
  forceFile: '/run/machine-config-daemon-force',
} as const;

/** Known MachineConfig extensions and the packages each installs. */
export const MACHINE_CONFIG_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  'two-node-ha': ['pacemaker', 'pcs', 'fence-agents-all'],
  ipsec: ['NetworkManager-libreswan', 'libreswan', 'openvswitch3.5-ipsec'],
  usbguard: ['usbguard'],
  kerberos: ['krb5-workstation', 'libkadm5'],
  'kernel-devel': ['kernel-devel', 'kernel-headers'],
  'sandboxed-containers': ['kata-containers'],
  sysstat: ['sysstat'],
};
