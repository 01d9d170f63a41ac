import { MACHINE_CONFIG_ANNOTATIONS, MACHINE_CONFIG_EXTENSIONS, MCO_LABELS, MCO_NAMES } from '@keelson/api';
import { assertMachineConfigTypes, assertRenderableSize, MachineConfigCheckError } from './check.js';
import { MachineConfigReconcileError, type StorageOverride, checkReconcilable } from './daemon.js';
import { mergeOwned } from '@keelson/ignition';
import { serializeIgnitionV35 } from './gojson.js';
import { hashInputYAML, renderedNameFromYAML } from './hash.js';
import { MachineConfigIgnitionError, parseMachineConfigIgnition } from './ignition-adapter.js';
import { type ControllerConfigInput, type JsonObject, type MachineConfig, type MachineConfigSpec } from './types.js';

/** Largest rendered MachineConfig the MCO accepts (JSON of the whole object, bytes). */
export const MAX_RENDERED_MC_BYTES: number = MCO_NAMES.maxRenderedConfigBytes;

/** Kernel types the MCO accepts. */
export const KERNEL_TYPES = ['', 'default', 'realtime', '64k-pages'] as const;

/** Error codes of {@link MachineConfigRenderError}. */
export type RenderErrorCode =
  | 'MC_NO_CONFIGS'
  | 'MC_NO_LABELS'
  | 'MC_INVALID_KERNEL_TYPE'
  | 'MC_INVALID_IGNITION'
  | 'MC_INVALID_MODE'
  | 'MC_INVALID_EXTENSIONS'
  | 'MC_STALE_GENERATED'
  | 'MC_KERNEL_DEVEL'
  | 'MC_OS_IMAGE_STREAM_CONFLICT'
  | 'MC_HASH_YAML'
  | 'MC_RECONCILE'
  | 'MC_TOO_LARGE'
  | 'MC_INVALID_FIELD';

/** A render failure; `message` is the MCO's error text, `machineConfig` names the MC at fault when known. */
export class MachineConfigRenderError extends Error {
  constructor(
    readonly code: RenderErrorCode,
    message: string,
    /** Name of the MachineConfig at fault. */
    readonly machineConfig?: string,
    /** JSON path inside that MachineConfig. */
    readonly path: (string | number)[] = [],
  ) {
    super(message);
    this.name = 'MachineConfigRenderError';
  }
}

/** The pool being rendered: its name, or the fields of the MachineConfigPool rendering reads. */
export interface PoolRef {
  name: string;
  /** metadata.uid, written into the owner reference. */
  uid?: string;
  /** spec.osImageStream.name, if set. */
  osImageStreamName?: string;
}

/** Input of {@link renderMachineConfigs}. */
export interface RenderInput {
  /** Pool name or reference. */
  pool: string | PoolRef;
  /** The MachineConfigs selected by the pool (any order). */
  configs: readonly MachineConfig[];
  /** ControllerConfig fields (cluster OS image defaults). */
  controllerConfig?: ControllerConfigInput;
  /**
   * The running controller's version hash: MCs carrying a different non-empty generated-by-controller-version
   * are refused. When omitted, the check is skipped and no generated-by annotation is written.
   */
  controllerVersion?: string;
  /**
   * The rendered MachineConfig the pool targets now, if it exists: the candidate must be reconcilable with it
   * (render controller check, same rules as the daemon).
   */
  currentRendered?: MachineConfig;
  /** Storage sections allowed to change (MachineConfiguration irreconcilableValidationOverrides.storage). */
  irreconcilableStorageOverrides?: readonly StorageOverride[];
}

/** Output of {@link renderMachineConfigs}. */
export interface RenderResult {
  /** `rendered-<pool>-<hash>`. */
  name: string;
  /** The rendered MachineConfig object (spec.config as a JSON object). */
  machineConfig: MachineConfig;
  /** Exact bytes of spec.config. */
  configRaw: string;
  /** The spec with `config` as its raw bytes (what the hash is computed over). */
  spec: MachineConfigSpec & { config: string; kernelArguments: string[]; extensions: string[] };
  /** Exact hash input (after the salt). */
  hashInputYAML: string;
  /** Names for the pool's spec.configuration.source, in merge order. */
  source: string[];
  /** True when the OS image differs from the cluster default. */
  osImageURLOverridden: boolean;
  /** Size of the rendered object's compact JSON (the MCO's size check; > 80 % of the cap only warns). */
  sizeBytes: number;
}

/** Splits a dotted field path (`spec.kernelArguments[0]`) into JSON path segments. */
function fieldPath(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(m[3]) as string);
    else if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

/**
 * Checks done before any merging: field types (as the API server enforces them) and input sizes (so that input that
 * cannot fit the 1.5 MiB limit fails at once instead of after a merge of tens of MB).
 */
function precheck(configs: readonly MachineConfig[]): void {
  try {
    for (const mc of configs) assertMachineConfigTypes(mc);
    assertRenderableSize(configs, MAX_RENDERED_MC_BYTES);
  } catch (e) {
    if (!(e instanceof MachineConfigCheckError)) throw e;
    throw new MachineConfigRenderError(
      e.code === 'MC_TOO_LARGE' ? 'MC_TOO_LARGE' : 'MC_INVALID_FIELD',
      e.message,
      e.machineConfig,
      fieldPath(e.field),
    );
  }
}

const goOctal = (n: number): string => `0${n.toString(8)}`;

function validateMachineConfig(mc: MachineConfig): JsonObject | undefined {
  const name = mc.metadata.name;
  const spec = mc.spec ?? {};
  const kt = spec.kernelType ?? '';
  if (!(KERNEL_TYPES as readonly string[]).includes(kt)) {
    throw new MachineConfigRenderError('MC_INVALID_KERNEL_TYPE', `kernelType=${kt} is invalid`, name, [
      'spec',
      'kernelType',
    ]);
  }
  if (spec.config === undefined || spec.config === null) return undefined;
  let ign: Record<string, unknown>;
  try {
    ign = parseMachineConfigIgnition(spec.config);
  } catch (err) {
    if (err instanceof MachineConfigIgnitionError) {
      throw new MachineConfigRenderError('MC_INVALID_IGNITION', err.message, name, ['spec', 'config', ...err.path]);
    }
    throw err;
  }
  const files = ((ign['storage'] as Record<string, unknown> | undefined)?.['files'] ?? []) as Record<string, unknown>[];
  files.forEach((f, i) => {
    const mode = f['mode'];
    if (typeof mode === 'number' && mode > 0o777) {
      throw new MachineConfigRenderError(
        'MC_INVALID_MODE',
        `invalid mode ${goOctal(mode)} for ${String(f['path'])}, cannot exceed 0777`,
        name,
        ['spec', 'config', 'storage', 'files', i, 'mode'],
      );
    }
  });
  const exts = spec.extensions ?? [];
  if (exts.length > 0) {
    const bad = exts.filter((e) => !Object.hasOwn(MACHINE_CONFIG_EXTENSIONS, e));
    if (bad.length > 0) {
      throw new MachineConfigRenderError(
        'MC_INVALID_EXTENSIONS',
        `invalid extensions found: [${bad.join(' ')}]`,
        name,
        ['spec', 'extensions'],
      );
    }
  }
  return ign as JsonObject;
}

const byName = (a: MachineConfig, b: MachineConfig): number =>
  a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;

type Obj = Record<string, unknown>;

function filesOf(c: Obj): Obj[] {
  const storage = c['storage'] as Obj | undefined;
  return (storage?.['files'] as Obj[] | undefined) ?? [];
}

type RenderedSpec = RenderResult['spec'];

/** Refuses MCs generated by another controller version and MCs without labels (upstream render.go `generateRenderedMachineConfig`). */
function checkGeneratedAndLabels(sorted: readonly MachineConfig[], controllerVersion: string | undefined): void {
  if (controllerVersion !== undefined) {
    for (const mc of sorted) {
      const v = mc.metadata.annotations?.[MACHINE_CONFIG_ANNOTATIONS.generatedByControllerVersion];
      if (v !== undefined && v !== '' && v !== controllerVersion) {
        throw new MachineConfigRenderError(
          'MC_STALE_GENERATED',
          `ignoring MC ${mc.metadata.name} generated by older version ${v} (my version: ${controllerVersion})`,
          mc.metadata.name,
          ['metadata', 'annotations', MACHINE_CONFIG_ANNOTATIONS.generatedByControllerVersion],
        );
      }
    }
  }
  for (const mc of sorted) {
    if (!mc.metadata.labels || Object.keys(mc.metadata.labels).length === 0) {
      throw new MachineConfigRenderError(
        'MC_NO_LABELS',
        `cannot find label in MachineConfig ${mc.metadata.name}`,
        mc.metadata.name,
        ['metadata', 'labels'],
      );
    }
  }
}

/** Merges the Ignition configs in order (upstream pkg/controller/common/helpers.go `MergeMachineConfigs`); returns the raw bytes. */
function mergeIgnitionConfigs(
  ordered: readonly MachineConfig[],
  parsed: ReadonlyMap<MachineConfig, JsonObject | undefined>,
): string {
  const first = ordered[0] as MachineConfig;
  let merged: Obj = (parsed.get(first) as Obj | undefined) ?? { ignition: { version: '3.5.0' } };
  for (const mc of ordered.slice(1)) {
    const child = parsed.get(mc) as Obj | undefined;
    if (child === undefined) continue;
    for (const f of filesOf(child)) {
      const contents = (f['contents'] ?? {}) as Obj;
      if (contents['compression'] === undefined || contents['compression'] === null) {
        f['contents'] = { ...contents, compression: '' };
      }
    }
    merged = mergeOwned(merged, child) as Obj;
    for (const f of filesOf(merged)) {
      const contents = f['contents'] as Obj | undefined;
      if (contents && contents['compression'] === '') {
        const { compression: _drop, ...rest } = contents;
        f['contents'] = rest;
      }
    }
  }
  for (const f of filesOf(merged)) if (f['overwrite'] === undefined || f['overwrite'] === null) f['overwrite'] = true;
  return serializeIgnitionV35(merged);
}

/** The non-Ignition fields of the merge: FIPS, kernel type and arguments, extensions, OS images. */
function mergeSpecFields(ordered: readonly MachineConfig[], cc: ControllerConfigInput, config: string): RenderedSpec {
  let fips = false;
  let kernelType = 'default';
  const kernelArguments: string[] = [];
  const extensions: string[] = [];
  let osImageURL = cc.baseOSContainerImage ?? '';
  let baseOSExtensionsContainerImage = cc.baseOSExtensionsContainerImage ?? '';
  for (const mc of ordered) {
    const s = mc.spec ?? {};
    if (s.fips === true) fips = true;
    if (s.kernelType === 'realtime' || s.kernelType === '64k-pages') kernelType = s.kernelType;
    kernelArguments.push(...(s.kernelArguments ?? []));
    extensions.push(...(s.extensions ?? []));
    const generated = mc.metadata.annotations?.[MACHINE_CONFIG_ANNOTATIONS.generatedByControllerVersion];
    if (generated === undefined || generated === '') {
      if (s.osImageURL) osImageURL = s.osImageURL;
      if (s.baseOSExtensionsContainerImage) baseOSExtensionsContainerImage = s.baseOSExtensionsContainerImage;
    }
  }
  if (kernelType !== 'default' && extensions.includes('kernel-devel')) {
    throw new MachineConfigRenderError(
      'MC_KERNEL_DEVEL',
      `installing kernel-devel extension is not supported with kernelType: ${kernelType}`,
    );
  }
  return { osImageURL, baseOSExtensionsContainerImage, config, kernelArguments, extensions, fips, kernelType };
}

/** The hash input YAML and the `rendered-<pool>-<hash>` name. */
function renderedHash(pool: string, spec: RenderedSpec, configObject: JsonObject): { yaml: string; name: string } {
  try {
    // the merged config only holds Go ints, so the parsed object hashes exactly like its raw bytes
    const yaml = hashInputYAML({ ...spec, config: configObject });
    return { yaml, name: renderedNameFromYAML(pool, yaml) };
  } catch (err) {
    throw new MachineConfigRenderError('MC_HASH_YAML', (err as Error).message);
  }
}

/**
 * Refuses a render the pool's current config cannot reconcile with, naming the component MC at fault when one
 * explains the failure (upstream render.go `generateAndValidateRenderedMachineConfig`).
 */
function checkRenderReconcilable(
  current: MachineConfig,
  candidate: MachineConfig,
  ordered: readonly MachineConfig[],
  overrides: readonly StorageOverride[],
): void {
  const fail = (a: MachineConfig, b: MachineConfig): string | undefined => {
    try {
      checkReconcilable(a, b, overrides);
      return undefined;
    } catch (e) {
      if (e instanceof MachineConfigReconcileError) return e.message;
      throw e;
    }
  };
  const full = fail(current, candidate);
  if (full === undefined) return;
  const components: string[] = [];
  for (const mc of ordered) {
    const err = fail(current, mc);
    if (err === undefined) continue;
    const reason = err.slice(err.indexOf(': ') + 2);
    if (full.includes(reason)) {
      throw new MachineConfigRenderError(
        'MC_RECONCILE',
        `reconciliation failed between current config "${current.metadata.name}" and base config "${mc.metadata.name}": ${reason}`,
        mc.metadata.name,
        ['spec'],
      );
    }
    components.push(err);
  }
  throw new MachineConfigRenderError(
    'MC_RECONCILE',
    `render reconciliation error: ${full}; component errors: ${components.join('; ')}`,
  );
}

/** The rendered MachineConfig object, owned by its pool; refuses one above {@link MAX_RENDERED_MC_BYTES}. */
function renderedObject(
  input: RenderInput,
  pool: PoolRef,
  rendered: { name: string; spec: RenderedSpec; configObject: JsonObject; osImageURLOverridden: boolean },
): { machineConfig: MachineConfig; sizeBytes: number } {
  const { name, spec, configObject } = rendered;
  const annotations: Record<string, string> = {};
  if (input.controllerVersion !== undefined)
    annotations[MACHINE_CONFIG_ANNOTATIONS.generatedByControllerVersion] = input.controllerVersion;
  const releaseImageVersion = input.controllerConfig?.releaseImageVersion;
  if (releaseImageVersion !== undefined)
    annotations[MACHINE_CONFIG_ANNOTATIONS.releaseImageVersion] = releaseImageVersion;
  if (rendered.osImageURLOverridden) annotations[MACHINE_CONFIG_ANNOTATIONS.osImageURLOverridden] = 'true';
  const machineConfig: MachineConfig = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name,
      annotations,
      ownerReferences: [
        {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfigPool',
          name: pool.name,
          uid: pool.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { ...spec, config: structuredClone(configObject) },
  };
  const sizeBytes = Buffer.byteLength(JSON.stringify(machineConfig), 'utf8');
  if (sizeBytes > MAX_RENDERED_MC_BYTES) {
    throw new MachineConfigRenderError(
      'MC_TOO_LARGE',
      `size validation failed: rendered MachineConfig ${name} is too large (${sizeBytes} bytes, max ${MAX_RENDERED_MC_BYTES} bytes)`,
    );
  }
  return { machineConfig, sizeBytes };
}

/**
 * Renders a pool's MachineConfigs into the rendered MachineConfig exactly as the MCO render controller does
 * (generateRenderedMachineConfig + MergeMachineConfigs + getMachineConfigHashedName).
 * @throws MachineConfigRenderError with the MCO's error text.
 */
export function renderMachineConfigs(input: RenderInput): RenderResult {
  const pool: PoolRef = typeof input.pool === 'string' ? { name: input.pool } : input.pool;
  const cc = input.controllerConfig ?? {};
  if (input.configs.length === 0) {
    throw new MachineConfigRenderError('MC_NO_CONFIGS', `no MachineConfigs found for pool ${pool.name}`);
  }
  precheck(input.configs);
  const sorted = [...input.configs].sort(byName);
  const parsed = new Map<MachineConfig, JsonObject | undefined>();
  for (const mc of sorted) parsed.set(mc, validateMachineConfig(mc));
  checkGeneratedAndLabels(sorted, input.controllerVersion);
  const ordered = [
    ...sorted.filter((mc) => mc.metadata.labels?.[MCO_LABELS.role] === 'worker'),
    ...sorted.filter((mc) => mc.metadata.labels?.[MCO_LABELS.role] !== 'worker'),
  ];
  const configRaw = mergeIgnitionConfigs(ordered, parsed);
  const spec = mergeSpecFields(ordered, cc, configRaw);
  const osImageURLOverridden = spec.osImageURL !== (cc.baseOSContainerImage ?? '');
  if (osImageURLOverridden && pool.osImageStreamName) {
    throw new MachineConfigRenderError(
      'MC_OS_IMAGE_STREAM_CONFLICT',
      'cannot override MachineConfig osImageURL and set MachineConfigPool spec.osImageStream.name simultaneously',
    );
  }
  const configObject = JSON.parse(configRaw) as JsonObject;
  const { yaml, name } = renderedHash(pool.name, spec, configObject);
  if (input.currentRendered !== undefined) {
    const candidate: MachineConfig = { metadata: { name }, spec: { ...spec } };
    checkRenderReconcilable(input.currentRendered, candidate, ordered, input.irreconcilableStorageOverrides ?? []);
  }
  const { machineConfig, sizeBytes } = renderedObject(input, pool, { name, spec, configObject, osImageURLOverridden });
  return {
    name,
    machineConfig,
    sizeBytes,
    configRaw,
    spec,
    hashInputYAML: yaml,
    source: ordered.map((mc) => mc.metadata.name),
    osImageURLOverridden,
  };
}
