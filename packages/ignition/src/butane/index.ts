/**
 * Butane (coreos/butane) for the fcos and openshift variants: YAML configs translated to Ignition or
 * to a MachineConfig, with upstream's sugar, validation messages and positions.
 */
export {
  translateButane,
  translateButane as translate,
  isIgnitionOutput,
  type ButaneOptions,
  type ButaneResult,
} from './translate.js';
export {
  ButaneError,
  BUTANE_MESSAGES,
  formatButaneReport,
  type ButaneReportEntry,
  type ButaneErrorCode,
  type ButaneMessageName,
} from './errors.js';
export { BUTANE_PROFILES, butaneVersions, type ButaneProfile } from './versions.js';
export { makeDataURL, type DataURL } from './files.js';
export { MAX_INPUT_BYTES } from './decode.js';
