/** Annotation keys, labels and values the MCO controllers' decisions read and write, spelled as upstream (from `@keelson/api`). */
import {
  MACHINE_CONFIG_ANNOTATIONS,
  MACHINE_CONFIG_DAEMON_STATES,
  MCO_LABELS,
  NODE_ANNOTATIONS,
  NODE_LABELS,
  UPDATE_IN_PROGRESS_TAINT as API_TAINT,
  nodeRoleLabel,
} from '@keelson/api';

/** Node annotations (upstream pkg/daemon/constants), from `@keelson/api`. */
export const NodeAnnotations = NODE_ANNOTATIONS;

/** Values of the node `state` annotation. */
export const NodeStates = {
  done: MACHINE_CONFIG_DAEMON_STATES.Done,
  working: MACHINE_CONFIG_DAEMON_STATES.Working,
  degraded: MACHINE_CONFIG_DAEMON_STATES.Degraded,
  unreconcilable: MACHINE_CONFIG_DAEMON_STATES.Unreconcilable,
} as const;

/** MachineConfig / ControllerConfig annotations, from `@keelson/api`. */
export const McAnnotations = MACHINE_CONFIG_ANNOTATIONS;

/** Labels. */
export const Labels = {
  role: MCO_LABELS.role,
  requiredForUpgrade: MCO_LABELS.requiredForUpgrade,
  mcoBuiltIn: MCO_LABELS.mcoBuiltIn,
  poolPrefix: MCO_LABELS.poolPrefix,
  zone: NODE_LABELS.zone,
  os: NODE_LABELS.os,
  nodeRolePrefix: nodeRoleLabel(''),
} as const;

/** Taint the node controller puts on nodes whose desiredConfig differs from the pool target. */
export const UPDATE_IN_PROGRESS_TAINT = API_TAINT;

/** Name of the ControllerConfig singleton. */
export const CONTROLLER_CONFIG_NAME = 'machine-config-controller';
/** ConfigMap the release carries with the OS image references. */
export const OSIMAGEURL_CONFIGMAP = 'machine-config-osimageurl';
