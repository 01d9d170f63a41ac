/**
 * Checks of MachineConfig objects before they are used: field types as the API server enforces them (with the
 * MachineConfig CRD schema), the fields it would prune, Butane files given by mistake, and input sizes (so that a
 * render too large for the 1.5 MiB limit fails before the merge, not after).
 */
import { IGNITION_MAX_DEPTH as MAX_DEPTH, tooDeep, validate } from '@keelson/ignition';
import { MACHINECONFIG_CRD_SCHEMA } from './crd/schema.js';
import { checkStructural } from './crd/structural.js';
import type { MachineConfig } from './types.js';

/** Largest MachineConfig the API server stores (etcd's request limit) and the largest rendered config the MCO accepts. */
export const MAX_MACHINECONFIG_BYTES = 1_572_864;

/** Codes of {@link MachineConfigCheckError}. */
export type MachineConfigCheckCode = 'MC_INVALID_FIELD' | 'MC_UNKNOWN_FIELD' | 'MC_BUTANE' | 'MC_TOO_LARGE';

/** A MachineConfig refused before rendering: `path` is the field at fault (`spec.kernelArguments[0]`). */
export class MachineConfigCheckError extends Error {
  constructor(
    readonly code: MachineConfigCheckCode,
    message: string,
    /** Name of the MachineConfig at fault, when known. */
    readonly machineConfig?: string,
    /** JSON path of the field at fault (dotted, as kubectl prints it). */
    readonly field = '',
  ) {
    super(message);
    this.name = 'MachineConfigCheckError';
  }
}

/** Warnings of {@link checkMachineConfigObject}: what the API server or the MCO would silently drop. */
export interface MachineConfigCheckResult {
  /** Fields the API server prunes (unknown to the MachineConfig CRD, or `null` where not nullable). */
  pruned: string[];
  /** Keys of `spec.config` unknown to its Ignition spec version (dropped when the MCO parses it). */
  unusedIgnitionKeys: string[];
  /** One human-readable line per dropped field. */
  warnings: string[];
}

/** Options of {@link checkMachineConfigObject}. */
export interface CheckOptions {
  /** Refuse dropped fields (`MC_UNKNOWN_FIELD`) instead of reporting them as warnings. */
  strict?: boolean;
  /** Where the object came from (file name), for messages. */
  source?: string;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);

function nameOf(o: Obj): string | undefined {
  const md = o['metadata'];
  return isObj(md) && typeof md['name'] === 'string' ? md['name'] : undefined;
}

/** Butane configs carry `variant` and `version` at the top level and no `kind`. */
function refuseButane(o: Obj, where: string): void {
  if (o['kind'] !== undefined || typeof o['variant'] !== 'string' || o['version'] === undefined) return;
  throw new MachineConfigCheckError(
    'MC_BUTANE',
    `${where}is a Butane config (variant: ${o['variant']}, version: ${typeof o['version'] === 'string' ? o['version'] : JSON.stringify(o['version'])}), not a MachineConfig; translate it first with \`butane\` (the openshift variant produces a MachineConfig), then render the result`,
    undefined,
    'variant',
  );
}

function checkMetadata(o: Obj, where: string): void {
  const md = o['metadata'];
  const name = nameOf(o);
  if (!isObj(md) || name === undefined || name === '') {
    throw new MachineConfigCheckError(
      'MC_INVALID_FIELD',
      `${where}metadata.name: Required value: a MachineConfig needs metadata.name (a non-empty string)`,
      name,
      'metadata.name',
    );
  }
  for (const k of ['labels', 'annotations'] as const) {
    const m = md[k];
    if (m === undefined || m === null) continue;
    if (!isObj(m) || Object.values(m).some((v) => typeof v !== 'string')) {
      throw new MachineConfigCheckError(
        'MC_INVALID_FIELD',
        `${where}metadata.${k}: Invalid value: must be a map of strings`,
        name,
        `metadata.${k}`,
      );
    }
  }
}

/**
 * Refuses a MachineConfig whose fields have the wrong types, as the API server would (422): `kernelArguments` and
 * `extensions` lists of strings (no `null` items), `osImageURL`, `baseOSExtensionsContainerImage` and `kernelType`
 * strings, `fips` a boolean, `config` an object (or its raw JSON text, this library's extension).
 * @throws MachineConfigCheckError with code `MC_INVALID_FIELD`.
 */
export function assertMachineConfigTypes(mc: unknown, where = ''): asserts mc is MachineConfig {
  if (!isObj(mc)) throw new MachineConfigCheckError('MC_INVALID_FIELD', `${where}expected a MachineConfig object`);
  checkMetadata(mc, where);
  const name = nameOf(mc);
  const spec = mc['spec'];
  // before any recursive walk (schema check, Go marshalling, merge): the Ignition nesting limit, plus spec.config
  const deep = tooDeep(mc, MAX_DEPTH + 2);
  if (deep) {
    const field = deep
      .slice(0, 8)
      .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`))
      .join('');
    throw new MachineConfigCheckError(
      'MC_INVALID_FIELD',
      `${where}MachineConfig ${JSON.stringify(name)}: nests deeper than ${MAX_DEPTH} levels (${field}...)`,
      name,
      field,
    );
  }
  // raw JSON text for spec.config is accepted by the library (it is what the RawExtension holds)
  const forSchema = isObj(spec) && typeof spec['config'] === 'string' ? { ...mc, spec: { ...spec, config: {} } } : mc;
  const r = checkStructural(forSchema, MACHINECONFIG_CRD_SCHEMA);
  const first = r.errors[0];
  if (first) {
    const more =
      r.errors.length > 1
        ? ` (and ${r.errors.length - 1} more: ${r.errors
            .slice(1, 4)
            .map((e) => e.path)
            .join(', ')})`
        : '';
    throw new MachineConfigCheckError(
      'MC_INVALID_FIELD',
      `${where}MachineConfig ${JSON.stringify(name)}: ${first.message}${more}`,
      name,
      first.path,
    );
  }
}

function ignitionUnused(config: unknown): string[] {
  if (!isObj(config)) return [];
  return validate(config)
    .entries.filter((e) => e.kind === 'warning' && e.message.startsWith('unused key'))
    .map((e) =>
      ['spec', 'config', ...e.path].map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join(''),
    );
}

/**
 * Checks a MachineConfig as the API server and the MCO would see it: refuses Butane files and wrong types, and
 * reports (or, with `strict`, refuses) the fields that would be dropped: unknown to the CRD schema (pruned by the API
 * server, e.g. `spec.kernelArgument`) or unknown to the Ignition spec of `spec.config` (e.g. `storage.file`).
 * @throws MachineConfigCheckError
 */
export function checkMachineConfigObject(obj: unknown, opts: CheckOptions = {}): MachineConfigCheckResult {
  const where = opts.source !== undefined ? `${opts.source}: ` : '';
  if (isObj(obj)) refuseButane(obj, where);
  assertMachineConfigTypes(obj, where);
  const o = obj as unknown as Obj;
  const { pruned } = checkStructural(o, MACHINECONFIG_CRD_SCHEMA);
  const spec = o['spec'];
  const config = isObj(spec) ? spec['config'] : undefined;
  let parsed: unknown = config;
  if (typeof config === 'string') {
    try {
      parsed = JSON.parse(config);
    } catch {
      parsed = undefined;
    }
  }
  const unusedIgnitionKeys = ignitionUnused(parsed);
  const name = nameOf(o) ?? '';
  const warnings = [
    ...pruned.map(
      (p) =>
        `${where}MachineConfig ${JSON.stringify(name)}: unknown field "${p}": the API server drops it (not in the MachineConfig CRD schema)`,
    ),
    ...unusedIgnitionKeys.map(
      (p) =>
        `${where}MachineConfig ${JSON.stringify(name)}: unknown field "${p}": not part of its Ignition spec version; the MCO ignores it`,
    ),
  ];
  if (opts.strict === true && warnings.length > 0) {
    const field = pruned[0] ?? unusedIgnitionKeys[0] ?? '';
    throw new MachineConfigCheckError(
      'MC_UNKNOWN_FIELD',
      `${warnings.join('\n')}\n(refused with --strict; remove or fix these fields)`,
      name,
      field,
    );
  }
  return { pruned, unusedIgnitionKeys, warnings };
}

/**
 * A lower bound of the compact JSON size of `v`, walked iteratively and abandoned as soon as it passes `limit`
 * (so a 60 MB input costs a walk of 1.5 MB, not a serialisation).
 */
export function jsonSizeAtLeast(v: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [v];
  while (stack.length > 0 && size <= limit) {
    const x = stack.pop();
    if (typeof x === 'string') size += x.length + 2;
    else if (typeof x === 'number' || typeof x === 'boolean') size += String(x).length;
    else if (x === null || x === undefined) size += 4;
    else if (Array.isArray(x)) {
      size += 2 + Math.max(0, x.length - 1);
      for (const e of x) stack.push(e);
    } else if (typeof x === 'object') {
      const entries = Object.entries(x);
      size += 2 + Math.max(0, entries.length - 1);
      for (const [k, e] of entries) {
        size += k.length + 3;
        stack.push(e);
      }
    }
  }
  return size;
}

function sectionSizes(configs: readonly MachineConfig[]): number {
  // the rendered config keeps one file per path, one unit per name and one user per name: the smallest candidate of
  // each is a lower bound of what it holds
  const files = new Map<string, number>();
  const units = new Map<string, number>();
  const users = new Map<string, number>();
  let kargs = 0;
  for (const mc of configs) {
    const spec = mc.spec as MachineConfig['spec'] | undefined;
    for (const k of spec?.kernelArguments ?? []) kargs += k.length + 3;
    for (const e of spec?.extensions ?? []) kargs += e.length + 3;
    const raw = spec?.config;
    const cfg = typeof raw === 'string' ? undefined : raw;
    const storage = isObj(cfg) ? cfg['storage'] : undefined;
    const systemd = isObj(cfg) ? cfg['systemd'] : undefined;
    const passwd = isObj(cfg) ? cfg['passwd'] : undefined;
    for (const u of isObj(passwd) && Array.isArray(passwd['users']) ? passwd['users'] : []) {
      if (!isObj(u) || typeof u['name'] !== 'string') continue;
      const keys = Array.isArray(u['sshAuthorizedKeys']) ? u['sshAuthorizedKeys'] : [];
      const n = keys.reduce((sum: number, k) => sum + (typeof k === 'string' ? k.length : 0), 0);
      users.set(u['name'], Math.min(users.get(u['name']) ?? n, n));
    }
    for (const f of isObj(storage) && Array.isArray(storage['files']) ? storage['files'] : []) {
      if (!isObj(f) || typeof f['path'] !== 'string') continue;
      const contents = f['contents'];
      const n = isObj(contents) && typeof contents['source'] === 'string' ? contents['source'].length : 0;
      files.set(f['path'], Math.min(files.get(f['path']) ?? n, n));
    }
    for (const u of isObj(systemd) && Array.isArray(systemd['units']) ? systemd['units'] : []) {
      if (!isObj(u) || typeof u['name'] !== 'string') continue;
      const n = typeof u['contents'] === 'string' ? u['contents'].length : 0;
      units.set(u['name'], Math.min(units.get(u['name']) ?? n, n));
    }
  }
  let total = kargs;
  for (const n of files.values()) total += n;
  for (const n of units.values()) total += n;
  for (const n of users.values()) total += n;
  return total;
}

/**
 * Fails fast on input that cannot render within {@link MAX_MACHINECONFIG_BYTES}: a single MachineConfig larger than
 * that (the API server could not store it), or inputs whose files, units and kernel arguments alone exceed it in the
 * rendered result. Runs before any merging, in time linear in the limit, not in the input.
 * @throws MachineConfigCheckError with code `MC_TOO_LARGE`.
 */
export function assertRenderableSize(configs: readonly MachineConfig[], limit = MAX_MACHINECONFIG_BYTES): void {
  for (const mc of configs) {
    const raw = (mc.spec as MachineConfig['spec'] | undefined)?.config;
    const n = typeof raw === 'string' ? raw.length : jsonSizeAtLeast(mc, limit);
    if (n > limit) {
      throw new MachineConfigCheckError(
        'MC_TOO_LARGE',
        `MachineConfig ${mc.metadata.name} is larger than ${limit} bytes (the API server's request limit and the rendered MachineConfig limit); split or shrink it`,
        mc.metadata.name,
        'spec.config',
      );
    }
  }
  const bound = sectionSizes(configs);
  if (bound > limit) {
    throw new MachineConfigCheckError(
      'MC_TOO_LARGE',
      `size validation failed: the rendered MachineConfig would be larger than ${limit} bytes (its files, units and kernel arguments alone take at least ${bound} bytes); refused before merging`,
    );
  }
}
