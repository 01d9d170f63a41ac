/**
 * Reading MachineConfigs as the daemon sees them: the Ignition config parsed and converted to spec 3.5 (2.2 input
 * de-duplicated, last duplicate wins), and conversion of API objects to @keelson/machineconfig's MachineConfig shape.
 */
import { parseAndConvertConfig, type IgnitionConfigV3 } from '@keelson/ignition';
import { type MachineConfig as IgnMachineConfig, type JsonObject } from '@keelson/machineconfig';
import type { MachineConfig } from '@keelson/api';

/** A MachineConfig whose Ignition config cannot be parsed. */
export class ConfigParseError extends Error {
  readonly code = 'MCD_CONFIG_PARSE';
  constructor(
    readonly configName: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigParseError';
  }
}

/**
 * Parsed configs by their raw text: a rendered config is content-addressed and every node of a pool reads the same
 * one several times per update (diff, files, units, drain decision, validation, drift monitor), so parsing and
 * validating it once per process instead of once per call keeps a 5,000-node rehearsal's daemons cheap. Callers
 * treat the result as read-only. Bounded: the least recently used entry leaves first.
 */
const parsed = new Map<string, IgnitionConfigV3>();
const PARSED_MAX = 32;
/** The same, by the config object of a MachineConfig read from the API (shared by the nodes through their MC cache). */
const parsedByObject = new WeakMap<object, IgnitionConfigV3>();

/** The Ignition config of a MachineConfig as spec 3.5 (an absent config is the empty 3.5.0 config). */
export function ignitionOf(mc: MachineConfig): IgnitionConfigV3 {
  const raw = mc.spec?.config;
  if (raw === undefined || raw === null) return { ignition: { version: '3.5.0' } };
  if (typeof raw === 'object') {
    const known = parsedByObject.get(raw);
    if (known !== undefined) return known;
  }
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  const hit = parsed.get(text);
  if (hit !== undefined) {
    parsed.delete(text);
    parsed.set(text, hit);
    if (typeof raw === 'object') parsedByObject.set(raw, hit);
    return hit;
  }
  let ign: IgnitionConfigV3;
  try {
    ign = parseAndConvertConfig(text);
  } catch (e) {
    throw new ConfigParseError(
      mc.metadata.name ?? '',
      `parsing Ignition config from machineconfig "${mc.metadata.name ?? ''}" failed: ${(e as Error).message}`,
    );
  }
  parsed.set(text, ign);
  if (typeof raw === 'object') parsedByObject.set(raw, ign);
  if (parsed.size > PARSED_MAX) parsed.delete(parsed.keys().next().value ?? '');
  return ign;
}

/** The API object in the shape @keelson/machineconfig's daemon functions take. */
export function toIgnitionMc(mc: MachineConfig): IgnMachineConfig {
  const { config, ...rest } = mc.spec ?? {};
  const spec: IgnMachineConfig['spec'] = { ...rest };
  if (config !== undefined) spec.config = config as JsonObject;
  return {
    metadata: {
      name: mc.metadata.name ?? '',
      ...(mc.metadata.annotations ? { annotations: mc.metadata.annotations } : {}),
    },
    spec,
  };
}

/** The empty MachineConfig firstboot starts from (`mco-empty-mc`). */
export function emptyMachineConfig(osImageURL: string, kernelArguments: string[], fips: boolean): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name: 'mco-empty-mc' },
    spec: { osImageURL, config: { ignition: { version: '3.5.0' } }, kernelArguments, fips },
  };
}
