/**
 * @keelson/ignition — Ignition 2.2/3.x parse, validate, merge, translate (src/spec) and Butane (src/butane).
 * The MCO's MachineConfig rendering, hashing and diffing live in `@keelson/machineconfig`.
 */
export * from './spec/index.js';
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
