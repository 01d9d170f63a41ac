/**
 * @keelson/ignition — Ignition 2.2/3.x parse, validate, merge, translate (src/spec) and the MCO's
 * MachineConfig rendering, hashing and diffing (src/machineconfig).
 */
export * from './spec/index.js';
export * from './machineconfig/index.js';
