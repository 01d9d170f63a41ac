import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import {
  MAX_MACHINECONFIG_BYTES,
  MachineConfigCheckError,
  checkMachineConfigObject,
  MachineConfigRenderError,
  type ControllerConfigInput,
  type MachineConfig,
  type MachineConfigPoolInput,
  PoolSelectionError,
  customPool,
  defaultPool,
  renderMachineConfigs,
  renderPool,
} from '@keelson/machineconfig';
import {
  addOutputOption,
  CliError,
  outputFormat,
  renderStructured,
  usageError,
  writeOut,
  type OutputFlags,
} from '../output.js';
import { translateForCli } from './butane.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);
const ROLE = 'machineconfiguration.openshift.io/role';

interface Loaded {
  mc: MachineConfig;
  file: string;
  doc: number;
}

function jsonPath(path: (string | number)[]): string {
  return (
    '$' +
    path
      .map((p) =>
        typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`,
      )
      .join('')
  );
}

function listFiles(p: string): string[] {
  let st;
  try {
    st = statSync(p);
  } catch {
    throw usageError(`${p}: no such file or directory`);
  }
  if (!st.isDirectory()) return [p];
  return readdirSync(p)
    .filter((n) => /\.(ya?ml|json|bu)$/i.test(n))
    .sort()
    .flatMap((n) => (statSync(join(p, n)).isDirectory() ? [] : [join(p, n)]));
}

/**
 * Field checks of `mc render`: `--strict` refuses the fields the API server or the MCO would drop (set by a
 * pre-action hook of the command); without it they are warnings on stderr.
 */
const fieldChecks = { strict: false };

/** Butane inputs of `mc render` (`.bu` files, or documents with `variant:` and no `kind:`) are translated first. */
const butaneInputs: { filesDir?: string } = {};

/** Translates a Butane document into the MachineConfig it stands for (openshift variant only). */
function fromButane(text: string, file: string, doc: number): MachineConfig {
  const where = `${file}${doc > 0 ? ` (document ${doc + 1})` : ''}`;
  const r = translateForCli(text, where, butaneInputs);
  if (r.variant !== 'openshift') {
    throw new CliError(
      `${where}: Butane variant ${r.variant} translates to an Ignition config, not a MachineConfig; use variant: openshift (with metadata.name and the role label)`,
    );
  }
  return r.config as MachineConfig;
}

/** Largest total size of the inputs of `mc render`, checked before any file is parsed. */
export const MAX_RENDER_INPUT_BYTES = 32 * 1024 * 1024;

/** The library's checks: a Butane file, wrong types (as the API server refuses them), dropped fields (warned or refused). */
function checkFields(o: Obj, file: string, doc: number): void {
  try {
    const r = checkMachineConfigObject(o, {
      strict: fieldChecks.strict,
      source: `${file}${doc > 0 ? ` (document ${doc + 1})` : ''}`,
    });
    for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  } catch (e) {
    if (e instanceof MachineConfigCheckError) throw new CliError(e.message);
    throw e;
  }
}

/** Refuses inputs whose total size is above {@link MAX_RENDER_INPUT_BYTES} before reading them. */
function checkInputSizes(files: string[]): void {
  let total = 0;
  for (const f of files) {
    total += statSync(f).size;
    if (total > MAX_RENDER_INPUT_BYTES) {
      throw new CliError(
        `inputs are larger than ${MAX_RENDER_INPUT_BYTES} bytes (at ${f}); a rendered MachineConfig is at most ${MAX_MACHINECONFIG_BYTES} bytes, so pass only the MachineConfigs of the pool`,
      );
    }
  }
}

function asMachineConfig(o: unknown, file: string, doc: number): MachineConfig | undefined {
  const where = (path: (string | number)[]): string =>
    `${file}${doc > 0 ? ` (document ${doc + 1})` : ''}: ${jsonPath(path)}`;
  if (!isObj(o)) throw new CliError(`${where([])}: expected a MachineConfig object`);
  if (o['kind'] !== undefined && o['kind'] !== 'MachineConfig') return undefined;
  // a Butane file (variant + version, no kind) is named as such before anything else is said about it
  if (o['kind'] === undefined && o['variant'] !== undefined) checkFields(o, file, doc);
  const md = o['metadata'];
  if (!isObj(md) || typeof md['name'] !== 'string' || md['name'] === '') {
    throw new CliError(`${where(['metadata', 'name'])}: a MachineConfig needs metadata.name (a non-empty string)`);
  }
  for (const k of ['labels', 'annotations'] as const) {
    const m = md[k];
    if (m === undefined || m === null) continue;
    if (!isObj(m) || Object.values(m).some((v) => typeof v !== 'string')) {
      throw new CliError(`${where(['metadata', k])}: must be a map of strings`);
    }
  }
  const spec = o['spec'] ?? {};
  if (!isObj(spec)) throw new CliError(`${where(['spec'])}: must be an object`);
  for (const k of ['osImageURL', 'baseOSExtensionsContainerImage', 'kernelType'] as const) {
    if (spec[k] !== undefined && spec[k] !== null && typeof spec[k] !== 'string')
      throw new CliError(`${where(['spec', k])}: must be a string`);
  }
  for (const k of ['kernelArguments', 'extensions'] as const) {
    const l = spec[k];
    if (l !== undefined && l !== null && (!Array.isArray(l) || l.some((x) => typeof x !== 'string'))) {
      throw new CliError(`${where(['spec', k])}: must be a list of strings`);
    }
  }
  if (spec['fips'] !== undefined && spec['fips'] !== null && typeof spec['fips'] !== 'boolean')
    throw new CliError(`${where(['spec', 'fips'])}: must be true or false`);
  const c = spec['config'];
  if (c !== undefined && c !== null && !isObj(c))
    throw new CliError(`${where(['spec', 'config'])}: must be an Ignition config object`);
  checkFields(o, file, doc);
  return o as unknown as MachineConfig;
}

interface LoadedInputs {
  configs: Loaded[];
  /** MachineConfigPool objects found among the inputs, by name. */
  pools: Map<string, MachineConfigPoolInput>;
}

function loadMachineConfigs(paths: string[]): LoadedInputs {
  const out: Loaded[] = [];
  const pools = new Map<string, MachineConfigPoolInput>();
  const files = paths.flatMap(listFiles);
  checkInputSizes(files);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (/\.bu$/i.test(file)) {
      out.push({ mc: fromButane(text, file, 0), file, doc: 0 });
      continue;
    }
    // YAML 1.1 like Kubernetes' decoder (gopkg.in/yaml.v2): `mode: 0644` is octal 420, not 644
    const docs = parseAllDocuments(text, { version: '1.1' });
    const list = Array.isArray(docs) ? docs : [docs];
    list.forEach((d, i) => {
      if (d.errors.length > 0) {
        const e = d.errors[0];
        const pos = e?.linePos?.[0];
        throw new CliError(
          `${file}${pos ? `:${pos.line}:${pos.col}` : ''}: invalid YAML: ${e?.message.split('\n')[0] ?? 'parse error'}`,
        );
      }
      const v: unknown = d.toJS({ maxAliasCount: 100 });
      if (v === null || v === undefined) return;
      const items = isObj(v) && v['kind'] === 'List' && Array.isArray(v['items']) ? v['items'] : [v];
      for (const item of items) {
        if (
          isObj(item) &&
          item['kind'] === 'MachineConfigPool' &&
          isObj(item['metadata']) &&
          typeof item['metadata']['name'] === 'string'
        ) {
          pools.set(item['metadata']['name'], item as unknown as MachineConfigPoolInput);
          continue;
        }
        if (isObj(item) && item['kind'] === undefined && item['variant'] !== undefined && item === v) {
          // the document's text, shifted down by newlines so that reported lines are those of the file
          const before = text.slice(0, d.range[0]).split('\n').length - 1;
          out.push({ mc: fromButane('\n'.repeat(before) + text.slice(d.range[0], d.range[2]), file, i), file, doc: i });
          continue;
        }
        const mc = asMachineConfig(item, file, i);
        if (mc) out.push({ mc, file, doc: i });
      }
    });
  }
  return { configs: out, pools };
}

/**
 * The pool to render: a MachineConfigPool given among the inputs, the shipped master/worker pools, or a custom pool
 * in the documented convention (role worker or <name>) when some MachineConfig carries role <name>.
 */
function choosePool(name: string, inputs: LoadedInputs, roles: string[] | undefined): MachineConfigPoolInput {
  if (roles !== undefined) {
    return {
      metadata: { name },
      spec: { machineConfigSelector: { matchExpressions: [{ key: ROLE, operator: 'In', values: roles }] } },
    };
  }
  const given = inputs.pools.get(name);
  if (given) return given;
  if (name === 'master' || name === 'worker') return defaultPool(name);
  if (inputs.configs.some((l) => l.mc.metadata.labels?.[ROLE] === name)) return customPool(name);
  throw new CliError(
    `unknown pool ${name}: no MachineConfigPool named ${name} among the inputs and no MachineConfig carries ${ROLE}=${name} (known roles: ${
      [...new Set(inputs.configs.map((l) => l.mc.metadata.labels?.[ROLE] ?? '').filter(Boolean))].sort().join(', ') ||
      'none'
    }); pass its MachineConfigPool YAML with the MachineConfigs, or use --roles`,
  );
}

function loadControllerConfig(file: string | undefined): ControllerConfigInput {
  if (file === undefined) return {};
  let v: unknown;
  try {
    v = parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1' })[0]?.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new CliError(`${file}: ${(e as Error).message}`, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 2 : 1);
  }
  if (!isObj(v)) throw new CliError(`${file}: $: expected a ControllerConfig object`);
  const spec = isObj(v['spec']) ? v['spec'] : v;
  const ann = isObj(v['metadata']) && isObj(v['metadata']['annotations']) ? v['metadata']['annotations'] : {};
  const out: ControllerConfigInput = {};
  for (const k of ['baseOSContainerImage', 'baseOSExtensionsContainerImage', 'osImageURL'] as const) {
    const x = spec[k];
    if (x === undefined || x === null) continue;
    if (typeof x !== 'string')
      throw new CliError(`${file}: ${jsonPath(spec === v ? [k] : ['spec', k])}: must be a string`);
    out[k] = x;
  }
  const rel = ann['machineconfiguration.openshift.io/release-image-version'];
  if (typeof rel === 'string') out.releaseImageVersion = rel;
  return out;
}

/** Registers `keelson mc …` (MachineConfig rendering). */
export function registerMachineConfigCommands(program: Command): void {
  const mc = program.command('mc').description('MachineConfigs: render a pool exactly as the Machine Config Operator');
  const render = mc
    .command('render')
    .description('Render the MachineConfigs of a pool into rendered-<pool>-<hash>, byte-identical to the MCO')
    .argument(
      '<paths...>',
      'MachineConfig YAML/JSON files, Butane (.bu, variant openshift) files, or directories of them',
    )
    .requiredOption('--pool <name>', 'pool to render (worker, master or a custom pool)')
    .option(
      '--controller-config <file>',
      'ControllerConfig YAML (spec.baseOSContainerImage, spec.baseOSExtensionsContainerImage)',
    )
    .option(
      '--controller-version <hash>',
      'controller version hash: refuse generated MCs from another version and annotate the result',
    )
    .option(
      '--roles <roles>',
      "comma-separated role labels to select (default: the pool's machineConfigSelector: a MachineConfigPool among the inputs, the shipped master/worker pools, or role worker+<pool> for a custom pool)",
    )
    .option('--all', 'use every MachineConfig given, whatever its role label')
    .option('--pool-uid <uid>', 'pool metadata.uid for the owner reference')
    .option(
      '--strict',
      'refuse fields the API server would prune (unknown to the MachineConfig CRD) and unknown Ignition keys, instead of warning',
    )
    .option(
      '-d, --files-dir <dir>',
      'Butane inputs: directory that contents.local, contents_local and trees are relative to',
    )
    .hook('preAction', (cmd) => {
      const opts = cmd.opts<{ strict?: boolean; filesDir?: string }>();
      fieldChecks.strict = opts.strict === true;
      if (opts.filesDir !== undefined) butaneInputs.filesDir = opts.filesDir;
    })
    .option('--name-only', 'same as -o name');
  // manifest (default): a comment naming the result and its sources, then the rendered MachineConfig as YAML to apply;
  // json / yaml: the result as data ({name, source, machineConfig}); name: the rendered name only
  addOutputOption(render, { formats: ['manifest', 'json', 'yaml', 'name'], aliases: ['json'] }).action(
    (paths: string[], o: RenderFlags) => renderCommand(paths, o, render),
  );
}

/** The flags of `keelson mc render`. */
type RenderFlags = OutputFlags & {
  pool: string;
  controllerConfig?: string;
  controllerVersion?: string;
  roles?: string;
  all?: boolean;
  poolUid?: string;
  nameOnly?: boolean;
};

/** `keelson mc render`'s action: the inputs loaded, the pool chosen, the rendered MachineConfig written. */
async function renderCommand(paths: string[], o: RenderFlags, cmd: Command): Promise<void> {
  const format = o.nameOnly === true && o.output === undefined && o.json !== true ? 'name' : outputFormat(o, cmd);
  const inputs = loadMachineConfigs(paths);
  const loaded = inputs.configs;
  const seen = new Map<string, Loaded>();
  for (const l of loaded) {
    const prev = seen.get(l.mc.metadata.name);
    if (prev)
      throw new CliError(
        `${l.file}: $.metadata.name: MachineConfig "${l.mc.metadata.name}" is also defined in ${prev.file}`,
      );
    seen.set(l.mc.metadata.name, l);
  }
  const roles = o.roles
    ? o.roles
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean)
    : undefined;
  const pool = choosePool(o.pool, inputs, roles);
  if (o.poolUid) pool.metadata = { ...pool.metadata, uid: o.poolUid };
  const controllerConfig = loadControllerConfig(o.controllerConfig);
  const opts = o.controllerVersion !== undefined ? { controllerVersion: o.controllerVersion } : {};
  try {
    const r = o.all
      ? renderMachineConfigs({
          pool: { name: o.pool, ...(o.poolUid ? { uid: o.poolUid } : {}) },
          configs: loaded.map((l) => l.mc),
          controllerConfig,
          ...opts,
        })
      : renderPool(
          pool,
          loaded.map((l) => l.mc),
          controllerConfig,
          opts,
        );
    if (format === 'name') await writeOut(`${r.name}\n`);
    else if (format === 'json' || format === 'yaml')
      await writeOut(
        await renderStructured({ name: r.name, source: r.source, machineConfig: r.machineConfig }, format),
      );
    else
      await writeOut(`# ${r.name} (from ${r.source.join(', ')})\n${await renderStructured(r.machineConfig, 'yaml')}`);
  } catch (e) {
    if (e instanceof PoolSelectionError) throw new CliError(`pool ${e.pool}: ${jsonPath(e.path)}: ${e.message}`);
    if (e instanceof MachineConfigRenderError) {
      const at = e.machineConfig !== undefined ? seen.get(e.machineConfig) : undefined;
      const where = at ? `${at.file}: MachineConfig "${e.machineConfig}" at ${jsonPath(e.path)}: ` : '';
      throw new CliError(`${where}${e.message}`);
    }
    throw e;
  }
}
