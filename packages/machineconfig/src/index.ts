/**
 * MachineConfig rendering, hashing and diffing, identical to the OpenShift Machine Config Operator.
 * @packageDocumentation
 */
export * from './types.js';
export {
  MAX_MACHINECONFIG_BYTES,
  MachineConfigCheckError,
  type MachineConfigCheckCode,
  type MachineConfigCheckResult,
  type CheckOptions,
  assertMachineConfigTypes,
  assertRenderableSize,
  checkMachineConfigObject,
  jsonSizeAtLeast,
} from './check.js';
export { type CrdSchema, type StructuralError, type StructuralResult, checkStructural } from './crd/structural.js';
export { MACHINECONFIG_CRD_SCHEMA } from './crd/schema.js';
export {
  GoFloat,
  GoUint,
  type GoYamlValue,
  YamlV2Error,
  marshalYamlV2,
  parseJsonForYamlV2,
  resolvesToNonString,
  formatGoFloat,
  yamlKeyLess,
} from './yamlv2.js';
export { RENDERED_NAME_SALT, RenderedNameError, hashInputYAML, renderedName, renderedNameFromYAML } from './hash.js';
export {
  KERNEL_TYPES,
  MAX_RENDERED_MC_BYTES,
  MachineConfigRenderError,
  type RenderErrorCode,
  type PoolRef,
  type RenderInput,
  type RenderResult,
  renderMachineConfigs,
} from './render.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- kept for existing importers; the list lives in @keelson/api
export { SUPPORTED_EXTENSIONS } from './constants.js';
export { serializeIgnitionV35, normalizeIgnitionV35, goJsonString } from './gojson.js';
export { MachineConfigIgnitionError, parseMachineConfigIgnition, MCO_SUPPORTED_SPECS } from './ignition-adapter.js';
export { RenderThread } from './render-thread.js';
export {
  MCD_FORCE_FILE,
  MachineConfigReconcileError,
  type StorageOverride,
  type DisruptionAction,
  type FilePolicy,
  type UnitPolicy,
  type NodeDisruptionPolicy,
  DEFAULT_NODE_DISRUPTION_POLICIES,
  clusterNodeDisruptionPolicies,
  findClosestFilePolicyPathMatch,
  isPathInDropins,
  splitKernelArguments,
  kargsArgs,
  extensionsArgs,
  type MachineConfigChangeFlags,
  type LegacyPostConfigAction,
  type MachineConfigDiff,
  type DiffOptions,
  diffMachineConfigs,
  checkReconcilable,
} from './daemon.js';
export {
  type AcceptEntry,
  AcceptHeaderError,
  IGNITION_MEDIA_SUBTYPE,
  SERVABLE_IGNITION_VERSIONS,
  parseAcceptHeader,
  negotiateIgnitionVersion,
} from './server.js';
export { toGoStructV35, goDeepEqual } from './gojson.js';
export {
  type LabelSelector,
  type LabelSelectorRequirement,
  type MachineConfigPoolInput,
  type ControllerConfigSource,
  type PoolSelectionErrorCode,
  type RenderPoolOptions,
  PoolSelectionError,
  compileLabelSelector,
  labelSelectorString,
  defaultPool,
  customPool,
  selectMachineConfigs,
  controllerConfigInput,
  renderPool,
} from './pool.js';
/* eslint-disable @typescript-eslint/no-deprecated -- kept for existing importers; the constants and the selector live in @keelson/api */
export {
  REQUIRED_FOR_UPGRADE_LABEL,
  MCO_BUILT_IN_LABEL,
  POOL_LABEL_PREFIX,
  isEmptySelector,
  labelSelectorMatches,
} from './pool.js';
/* eslint-enable @typescript-eslint/no-deprecated */
export * from './controller/index.js';
