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
