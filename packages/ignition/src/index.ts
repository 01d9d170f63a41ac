/**
 * @keelson/ignition — Ignition 2.2/3.x parse, validate, merge, translate (src/spec) and the MCO's
 * MachineConfig rendering, hashing and diffing (src/machineconfig).
 */
export * from './spec/index.js';
export * from './machineconfig/index.js';
export {
  translateButane,
  isIgnitionOutput,
  ButaneError,
  BUTANE_MESSAGES,
  formatButaneReport,
  BUTANE_PROFILES,
  butaneVersions,
  type ButaneOptions,
  type ButaneResult,
  type ButaneReportEntry,
  type ButaneErrorCode,
  type ButaneMessageName,
  type ButaneProfile,
} from './butane/index.js';
