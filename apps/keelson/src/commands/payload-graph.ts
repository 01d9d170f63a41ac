import { Option, type Command } from 'commander';
import {
  byNumberAndComponent,
  flattenByNumberAndComponent,
  GoRand,
  permuteOrder,
  TaskGraph,
  toDot,
  toJson,
  toMermaid,
  type BreakFn,
} from '@keelson/manifest-graph';
import {
  addOutputOption,
  CliError,
  outputFormat,
  renderStructured,
  usageError,
  writeOut,
  type OutputFlags,
} from '../output.js';
import { loadPayloadTasks, PayloadLoadError, type LoadedManifest } from '../payload-dir-loader.js';

const STRATEGIES = [
  'by-number-and-component',
  'flatten-by-number-and-component',
  'permute-flatten-by-number-and-component',
] as const;
const FORMATS = ['dot', 'mermaid', 'json', 'yaml'] as const;
type Strategy = (typeof STRATEGIES)[number];

interface GraphOptions extends OutputFlags {
  parallel: Strategy;
  seed?: string;
  verbose?: boolean;
}

function breakFnFor(strategy: Strategy, seed: string | undefined): BreakFn<LoadedManifest> {
  switch (strategy) {
    case 'by-number-and-component':
      return byNumberAndComponent;
    case 'flatten-by-number-and-component':
      return flattenByNumberAndComponent;
    case 'permute-flatten-by-number-and-component': {
      let s: bigint;
      if (seed === undefined) {
        s = BigInt(Date.now()) * 1_000_000n; // like upstream's time.Now().UnixNano()
      } else {
        if (!/^-?\d+$/.test(seed)) throw usageError(`--seed must be an integer, got ${JSON.stringify(seed)}`);
        s = BigInt(seed);
      }
      return permuteOrder(flattenByNumberAndComponent, new GoRand(s));
    }
  }
}

/** Registers `keelson payload graph`. */
export function registerPayloadGraphCommand(payload: Command): void {
  const cmd = payload
    .command('graph')
    .description(
      'Print the CVO task graph of an extracted release directory (manifests/ and release-manifests/), like upstream `cluster-version-util task-graph`',
    )
    .argument('<dir>', 'extracted release directory holding manifests/ and release-manifests/')
    .addOption(
      new Option('--parallel <strategy>', 'how to parallelise the graph')
        .choices(STRATEGIES)
        .default('by-number-and-component'),
    )
    .option(
      '--seed <n>',
      'seed of the Go math/rand permutation for permute-flatten-by-number-and-component (default: current time, as upstream)',
    )
    .option('-v, --verbose', 'print skipped templates and excluded manifests on stderr');
  // dot is byte-identical to upstream `cluster-version-util task-graph`
  addOutputOption(cmd, { formats: FORMATS, aliases: ['format'] }).action(async (dir: string, opts: GraphOptions) => {
    const format = outputFormat(opts, cmd);
    let loaded;
    try {
      loaded = await loadPayloadTasks(dir);
    } catch (e) {
      if (e instanceof PayloadLoadError) throw new CliError(e.message, 1);
      throw e;
    }
    if (opts.verbose === true) for (const w of loaded.warnings) process.stderr.write(`${w}\n`);
    const graph = new TaskGraph(loaded.tasks).splitOnJobs().parallelize(breakFnFor(opts.parallel, opts.seed));
    let text: string;
    if (format === 'dot') text = `${toDot(graph)}\n`;
    else if (format === 'mermaid') text = toMermaid(graph);
    else text = await renderStructured(toJson(graph), format === 'yaml' ? 'yaml' : 'json');
    await writeOut(text);
  });
}
