/** Annotation keys, labels and names of the Machine Config Operator, spelled exactly as upstream (mostly from `@keelson/api`). */
import { MCO_NAMES } from '@keelson/api';

/** The annotations, labels and states the controllers' decisions use live in `@keelson/machineconfig`. */
export {
  NodeAnnotations,
  NodeStates,
  McAnnotations,
  Labels,
  UPDATE_IN_PROGRESS_TAINT,
  CONTROLLER_CONFIG_NAME,
  OSIMAGEURL_CONFIGMAP,
} from '@keelson/machineconfig';

/** Namespace of the MCO's components. */
export const MCO_NAMESPACE = MCO_NAMES.namespace;
/** The ClusterOperator the operator reports. */
export const CLUSTER_OPERATOR_NAME = 'machine-config';
/** Label of the machine-config-operator pod (its node is updated last in the master pool). */
export const OPERATOR_POD_LABEL = { key: 'k8s-app', value: 'machine-config-operator' } as const;

/**
 * Version hash the controller stamps on MCs it generates (`generated-by-controller-version`). Upstream uses the
 * git commit of the MCO build; ours is the app version plus a build marker, so MCs from another build are refused.
 */
export const CONTROLLER_VERSION = 'keelson-mco-0.1.0';
