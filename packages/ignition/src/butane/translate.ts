/**
 * The Butane pipeline (coreos/butane config/config.go TranslateBytes + config/util Translate):
 * parse -> pick the translator -> unused keys -> source validation -> translation and sugar ->
 * field filters -> Ignition validation of the output, each finding mapped back to the YAML source.
 */
import { validate } from '../spec/validate.js';
import type { IgnitionConfigV3 } from '../spec/types.js';
import { goSemver } from '../spec/goparse.js';
import { translateBase, type JObj, type TxContext } from './base.js';
import {
  Decoder,
  locate,
  MAX_INPUT_BYTES,
  parseYaml,
  pathString,
  readCommonFields,
  type BObj,
  type CPath,
  type ParsedYaml,
} from './decode.js';
import { BUTANE_MESSAGES as M, ButaneError, type ButaneReportEntry } from './errors.js';
import { partitionWarnings, processBootDevice, processGrub } from './fcos.js';
import {
  addLuksFipsOptions,
  elidedFields,
  grubUserCfgAsContents,
  mcFieldSource,
  mcoSupport,
  verifyFilters,
  wrapMachineConfig,
  type JsonFinding,
} from './openshift.js';
import { addMountUnits, processQuadlets, processTrees } from './storage.js';
import { TranslationSet } from './tset.js';
import { quadletTemplate, validateSource, type Finding } from './validate.js';
import { findProfile, type ButaneProfile } from './versions.js';

/** Options of {@link translateButane}. */
export interface ButaneOptions {
  /** Directory `local`, `contents_local`, `ssh_authorized_keys_local` and trees are relative to. */
  filesDir?: string;
  /** Throw when the report has warnings too (upstream `--strict`). */
  strict?: boolean;
  /** openshift: output the Ignition config instead of a MachineConfig (upstream `--raw`). */
  raw?: boolean;
  /** Accept `*-experimental` versions. */
  experimental?: boolean;
  /** Source file name, for error messages. */
  fileName?: string;
}

/** Result of {@link translateButane}. */
export interface ButaneResult {
  variant: 'fcos' | 'openshift';
  version: string;
  ignitionVersion: string;
  /** Ignition config; for openshift without `raw`, a MachineConfig. */
  config: object;
  /** Warnings (errors throw). */
  report: ButaneReportEntry[];
}

function decodeText(source: string | Uint8Array, file: string | undefined): string {
  const size = typeof source === 'string' ? Buffer.byteLength(source, 'utf8') : source.byteLength;
  if (size > MAX_INPUT_BYTES)
    throw new ButaneError(
      'BUTANE_TOO_LARGE',
      `Butane config is ${size} bytes; the limit is ${MAX_INPUT_BYTES}`,
      [],
      file,
    );
  return typeof source === 'string' ? source : Buffer.from(source).toString('utf8');
}

function pickProfile(y: ParsedYaml, opts: ButaneOptions): ButaneProfile {
  const file = opts.fileName;
  const { variant, version } = readCommonFields(y, file);
  if (variant === '') throw new ButaneError('BUTANE_NO_VARIANT', M.ErrNoVariant, [], file);
  const v = goSemver(version);
  if (!v) throw new ButaneError('BUTANE_INVALID_VERSION', M.ErrInvalidVersion, [], file);
  const canonical = `${v.major}.${v.minor}.${v.patch}${v.pre ? `-${v.pre}` : ''}${v.meta ? `+${v.meta}` : ''}`;
  if (variant === 'rhcos' && canonical === '0.1.0')
    throw new ButaneError('BUTANE_UNKNOWN_VARIANT', M.ErrRhcosVariantUnsupported, [], file);
  const profile = findProfile(variant, canonical);
  if (!profile || (profile.experimental && opts.experimental !== true)) {
    throw new ButaneError(
      'BUTANE_UNKNOWN_VARIANT',
      `No translator exists for variant ${variant} with version ${canonical}`,
      [],
      file,
    );
  }
  return profile;
}

class Reporter {
  readonly entries: ButaneReportEntry[] = [];
  constructor(private readonly y: ParsedYaml) {}
  add(f: Finding): void {
    const pos = locate(this.y, f.path);
    this.entries.push({
      kind: f.kind,
      message: f.message,
      path: pathString(f.path),
      ...(pos ? { line: pos.line, column: pos.column } : {}),
    });
  }
  fatal(): boolean {
    return this.entries.some((e) => e.kind === 'error');
  }
}

function fail(r: Reporter, generated: boolean, file: string | undefined): never {
  throw new ButaneError(
    'BUTANE_INVALID',
    generated ? M.ErrInvalidGeneratedConfig : M.ErrInvalidSourceConfig,
    r.entries,
    file,
  );
}

/** Runs the desugaring steps of the profile on the base translation. */
function desugar(source: BObj, cx: TxContext): JObj {
  let cfg = translateBase(source, cx);
  if (cx.profile.base >= 2) {
    cfg = addMountUnits(source, cfg, cx);
    processTrees(source, cfg, cx);
  }
  if (cx.profile.base >= 8) processQuadlets(source, cfg, cx, quadletTemplate);
  if (cx.findings.some((f) => f.kind === 'error')) return cfg;
  if (cx.profile.fcos >= 3) cfg = processBootDevice(source, cfg, cx);
  partitionWarnings(cfg, cx);
  if (cx.profile.fcos >= 5) cfg = processGrub(source, cfg, cx);
  return cfg;
}

/** Maps a MachineConfig-space path back to YAML space. */
function mcToYaml(path: CPath, ts: TranslationSet): CPath {
  if (path[0] === 'spec' && path[1] === 'config') {
    const inner = path.slice(2);
    return (
      ts.get(inner) ?? path.map((e) => (typeof e === 'string' ? e.replace(/(MiB|[A-Z])/g, '_$1').toLowerCase() : e))
    );
  }
  return mcFieldSource(path) ?? path;
}

/** Ignition semantic validation of the output (upstream ValidateDups + validate.Validate on the result). */
function validateOutput(cfg: JObj, profile: ButaneProfile): JsonFinding[] {
  const res = validate(cfg, { version: profile.ignitionVersion, experimental: profile.experimental });
  return res.entries
    .filter((e) => (e.kind === 'error' || e.kind === 'warning') && !e.message.startsWith('unused key'))
    .map((e) => ({ kind: e.kind as 'error' | 'warning', message: e.message, path: e.path }));
}

/**
 * Translates a Butane config (fcos or openshift variant) into an Ignition config or, for openshift
 * without `raw`, a MachineConfig. Errors (and warnings with `strict`) throw {@link ButaneError}
 * carrying the whole report; otherwise warnings are returned in `report`.
 */
export function translateButane(source: string | Uint8Array, opts: ButaneOptions = {}): ButaneResult {
  const file = opts.fileName;
  const y = parseYaml(decodeText(source, file), file);
  const profile = pickProfile(y, opts);
  const dec = new Decoder(y, profile);
  const decoded = (dec.decode(y.doc.contents, { struct: 'Config' }, []) ?? {}) as BObj;
  if (dec.errors.length > 0) {
    throw new ButaneError(
      'BUTANE_PARSE',
      `Error unmarshaling yaml: yaml: unmarshal errors:\n  ${dec.errors.join('\n  ')}`,
      dec.errorEntries,
      file,
    );
  }
  const r = new Reporter(y);
  r.entries.push(...dec.unused);
  for (const f of validateSource(decoded, profile)) r.add(f);
  if (r.fatal()) fail(r, false, file);

  const noCompression = profile.variant === 'openshift' && profile.openshift <= 9;
  const cx: TxContext = {
    profile,
    opts: { ...(opts.filesDir !== undefined ? { filesDir: opts.filesDir } : {}), noCompression },
    ts: new TranslationSet(),
    findings: [],
  };
  const ignition = desugar(decoded, cx);
  for (const f of cx.findings) r.add(f);
  if (r.fatal()) fail(r, false, file);

  let output: JObj = ignition;
  const toYaml = (f: JsonFinding, inMc: boolean): void => {
    r.add({ ...f, path: inMc ? mcToYaml(f.path, cx.ts) : cx.ts.toYaml(f.path) });
  };
  if (profile.variant === 'openshift') {
    grubUserCfgAsContents(ignition, profile, cx.ts);
    const mc = wrapMachineConfig(decoded, ignition);
    for (const added of addLuksFipsOptions(mc, profile)) cx.ts.add(['openshift', 'fips'], added);
    for (const f of mcoSupport(mc, profile)) toYaml(f, true);
    if (opts.raw === true) {
      for (const f of elidedFields(decoded)) toYaml(f, true);
    } else {
      output = mc;
    }
    if (r.fatal()) fail(r, false, file);
    if (opts.raw !== true) for (const f of verifyFilters(mc, profile)) toYaml(f, true);
    if (r.fatal()) fail(r, false, file);
  }
  for (const f of validateOutput(ignition, profile)) toYaml(f, false);
  if (r.fatal()) fail(r, true, file);
  if (opts.strict === true && r.entries.length > 0) {
    throw new ButaneError('BUTANE_STRICT', 'Config produced warnings and --strict was specified', r.entries, file);
  }
  return {
    variant: profile.variant,
    version: profile.version,
    ignitionVersion: profile.ignitionVersion,
    config: output,
    report: r.entries,
  };
}

/** Type guard for translated Ignition output (fcos, or openshift with raw). */
export function isIgnitionOutput(result: ButaneResult): result is ButaneResult & { config: IgnitionConfigV3 } {
  return result.variant === 'fcos' || !('apiVersion' in result.config);
}
