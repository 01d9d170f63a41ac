/**
 * `keelson mc generate`: the MachineConfigs the MCO's template controller would create for a ControllerConfig
 * (upstream's getMachineConfigsForControllerConfig over the release-4.20 `templates/` tree, or `--templates DIR`),
 * printed as a `v1/List`.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { ControllerConfig } from '@keelson/api';
import { defaultTemplatesDir } from '@keelson/machine-config-operator';
import {
  generateTemplateMachineConfigs,
  loadTemplateTree,
  TemplateError,
  type TemplateInputs,
} from '@keelson/machineconfig';
import { addOutputOption, CliError, outputFormat, usageError, writeOut, type OutputFlags } from '../output.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** Reads one YAML/JSON object of `kind` from `file` (a `v1/List` with one such item is accepted too). */
function readObject(file: string, kind: string, flag: string): Obj {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw usageError(
      `${flag} ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  if (text.length > MAX_INPUT_BYTES) throw new CliError(`${file}: larger than ${MAX_INPUT_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new CliError(`${file}: not YAML/JSON: ${(e as Error).message}`);
  }
  if (isObj(doc) && doc['kind'] === 'List' && Array.isArray(doc['items']))
    doc = doc['items'].find((i) => isObj(i) && i['kind'] === kind);
  if (!isObj(doc)) throw new CliError(`${file}: $: expected a ${kind} object`);
  if (doc['kind'] !== undefined && doc['kind'] !== kind)
    throw new CliError(`${file}: $.kind: expected ${kind}, found ${JSON.stringify(doc['kind'])}`);
  return doc;
}

/** `--pull-secret`: a Secret (type kubernetes.io/dockerconfigjson, data[.dockerconfigjson]) or the raw config.json. */
function readPullSecret(file: string): string {
  const text = readFileSync(file, 'utf8');
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new CliError(`${file}: not YAML/JSON: ${(e as Error).message}`);
  }
  if (isObj(doc) && doc['kind'] === 'Secret') {
    if (doc['type'] !== 'kubernetes.io/dockerconfigjson')
      throw new CliError(
        `${file}: expected secret type kubernetes.io/dockerconfigjson found ${typeof doc['type'] === 'string' ? doc['type'] : ''}`,
      );
    const data = isObj(doc['data']) ? doc['data']['.dockerconfigjson'] : undefined;
    const str = isObj(doc['stringData']) ? doc['stringData']['.dockerconfigjson'] : undefined;
    if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8');
    if (typeof str === 'string') return str;
    throw new CliError(`${file}: $.data[".dockerconfigjson"]: missing`);
  }
  return text;
}

interface GenerateFlags extends OutputFlags {
  controllerConfig: string;
  pullSecret?: string;
  apiserver?: string;
  featureGates?: string;
  templates?: string;
  controllerVersion: string;
}

/** Registers `mc generate` under the `mc` command of `program`. */
export function registerMcGenerateCommand(program: Command): void {
  const mc = program.commands.find((c) => c.name() === 'mc') ?? program.command('mc');
  const gen = mc
    .command('generate')
    .description(
      "Print the MachineConfigs the MCO's template controller creates for a ControllerConfig (00-<role>, 01-<role>-kubelet, 01-<role>-container-runtime, …) as a v1/List",
    )
    .requiredOption('--controller-config <file>', 'ControllerConfig YAML/JSON')
    .option(
      '--pull-secret <file>',
      "the cluster's pull secret: a kubernetes.io/dockerconfigjson Secret or its .dockerconfigjson",
    )
    .option('--apiserver <file>', "the cluster's APIServer object (spec.tlsSecurityProfile; default Intermediate)")
    .option(
      '--feature-gates <file>',
      "the cluster's FeatureGate object (release-4.20's template controller renders without it; checked only)",
    )
    .option(
      '--templates <dir>',
      "templates tree in upstream layout (default: upstream's release-4.20 templates/ shipped with the MCO)",
    )
    .option('--controller-version <hash>', 'value of the generated-by-controller-version annotation', '');
  addOutputOption(gen, { formats: ['yaml', 'json'] }).action(async (o: GenerateFlags) => {
    const format = outputFormat(o, gen);
    const cc = readObject(o.controllerConfig, 'ControllerConfig', '--controller-config') as unknown as ControllerConfig;
    if (!isObj(cc.spec)) throw new CliError(`${o.controllerConfig}: $.spec: expected an object`);
    cc.metadata ??= { name: 'machine-config-controller' };
    const inputs: TemplateInputs = {};
    if (o.pullSecret !== undefined) inputs.pullSecret = readPullSecret(o.pullSecret);
    if (o.apiserver !== undefined) inputs.apiServer = readObject(o.apiserver, 'APIServer', '--apiserver');
    if (o.featureGates !== undefined) readObject(o.featureGates, 'FeatureGate', '--feature-gates');
    let items;
    try {
      items = generateTemplateMachineConfigs(
        loadTemplateTree(o.templates ?? defaultTemplatesDir()),
        cc,
        o.controllerVersion,
        inputs,
      );
    } catch (e) {
      if (e instanceof TemplateError) throw new CliError(e.message);
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw usageError(`--templates ${o.templates ?? ''}: no such directory`);
      throw e;
    }
    const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
    await writeOut(format === 'json' ? `${JSON.stringify(list, null, 2)}\n` : toYaml(list, { lineWidth: 0 }));
  });
}
