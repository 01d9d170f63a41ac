/**
 * @keelson/api: typed OpenShift objects (ClusterVersion, ClusterOperator, MachineConfig, MachineConfigPool,
 * ControllerConfig, KubeletConfig, ContainerRuntimeConfig, MachineConfigNode, MachineConfiguration) and the core
 * shapes they use, the upstream CRD manifests, and the constants (annotations, labels, condition types, reasons)
 * of the CVO and the MCO.
 * @packageDocumentation
 */
export type * from './core/meta.js';
export type * from './core/v1.js';
export type * from './config/v1.js';
export type * from './machineconfiguration/v1.js';
export type * from './operator/v1.js';
export type * from './apiextensions.js';
export { kubeTime } from './core/time.js';
export { parseGoDuration, DurationError } from './core/duration.js';
export {
  API_GROUP_CONFIG,
  API_GROUP_MACHINECONFIGURATION,
  API_GROUP_OPERATOR,
  OPENSHIFT_KINDS,
  SINGLETON_NAMES,
  apiVersionOf,
} from './constants/groups.js';
export type { KindInfo, OpenShiftKind } from './constants/groups.js';
export * from './constants/cvo.js';
export * from './constants/mco.js';
export { CRD_DIR, CrdError, crdFile, crdFiles, crds, loadCrd, loadCrds } from './crds.js';
export { CONFIG_CRD_DIR, loadConfigCrds } from './config-crds.js';
export type { CrdFile } from './crds.js';
export {
  LabelSelectorError,
  MAX_LABEL_SELECTOR_LENGTH,
  compileLabelSelector,
  isEmptyLabelSelector,
  labelRequirementsString,
  labelSelectorMatches,
  labelSelectorRequirements,
  matchLabelRequirements,
  parseLabelSelectorString,
} from './labels/selector.js';
export type {
  CompiledLabelSelector,
  LabelRequirement,
  LabelRequirementOperator,
  LabelSelectorErrorCode,
  LabelSelectorInput,
} from './labels/selector.js';
export { goJsonMarshal, goJsonString, compareUtf8 } from './gojson.js';
export type { GoJsonOptions } from './gojson.js';
