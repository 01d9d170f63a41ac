/**
 * MachineConfig rendering, hashing and diffing, identical to the OpenShift Machine Config Operator.
 * @packageDocumentation
 */
export * from './types.js';
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
export { RENDERED_NAME_SALT, RenderedNameError, hashInputYAML, renderedName } from './hash.js';
export {
  KERNEL_TYPES,
  SUPPORTED_EXTENSIONS,
  MachineConfigRenderError,
  type RenderErrorCode,
  type PoolRef,
  type RenderInput,
  type RenderResult,
  renderMachineConfigs,
} from './render.js';
export { serializeIgnitionV35, normalizeIgnitionV35, goJsonString } from './gojson.js';
export { MachineConfigIgnitionError, parseMachineConfigIgnition, MCO_SUPPORTED_SPECS } from './ignition-adapter.js';
