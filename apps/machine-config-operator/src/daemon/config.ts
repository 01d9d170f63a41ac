/**
 * Reading MachineConfigs as the daemon sees them: the Ignition config parsed and converted to spec 3.5 (2.2 input
 * de-duplicated, last duplicate wins), and conversion of API objects to @keelson/ignition's MachineConfig shape.
 */
import {
  parseAndConvertConfig,
  type IgnitionConfigV3,
  type MachineConfig as IgnMachineConfig,
  type JsonObject,
} from '@keelson/ignition';
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

/** The Ignition config of a MachineConfig as spec 3.5 (an absent config is the empty 3.5.0 config). */
export function ignitionOf(mc: MachineConfig): IgnitionConfigV3 {
  const raw = mc.spec?.config;
  if (raw === undefined || raw === null) return { ignition: { version: '3.5.0' } };
  try {
    return parseAndConvertConfig(typeof raw === 'string' ? raw : JSON.stringify(raw));
  } catch (e) {
    throw new ConfigParseError(
      mc.metadata.name ?? '',
      `parsing Ignition config from machineconfig "${mc.metadata.name ?? ''}" failed: ${(e as Error).message}`,
    );
  }
}

/** The API object in the shape @keelson/ignition's daemon functions take. */
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
