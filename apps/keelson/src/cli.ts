/**
 * The keelson command-line tool. Each area registers its commands from src/commands/<area>.ts.
 * Exit codes: 0 success, 1 the operation failed (error on stderr), 2 usage error; output conventions in output.ts.
 */
import { Command, CommanderError, Help } from 'commander';
import { AREA_SUMMARIES } from './command-index.js';
import { EXIT_OK, EXIT_USAGE, reportError } from './output.js';

/**
 * Each top-level area and how to load it. Areas are imported only when their command runs (or for the
 * top-level help), so `keelson payload graph` does not load the API server, the OS driver, etc.
 */
const areas: Readonly<Record<string, (program: Command) => Promise<void>>> = {
  payload: async (program) => {
    const payload = program.command('payload').description(summary('payload').description);
    (await import('./commands/payload-graph.js')).registerPayloadGraphCommand(payload);
    (await import('./commands/payload.js')).registerPayloadCommands(payload);
  },
  ignition: async (program) => {
    (await import('./commands/ignition.js')).registerIgnitionCommands(program);
  },
  butane: async (program) => {
    (await import('./commands/butane.js')).registerButaneCommand(program);
  },
  mc: async (program) => {
    (await import('./commands/mc.js')).registerMachineConfigCommands(program);
    (await import('./commands/mc-generate.js')).registerMcGenerateCommand(program);
  },
  os: async (program) => {
    (await import('./commands/os.js')).registerOsCommands(program);
  },
  graph: async (program) => {
    (await import('./commands/graph.js')).registerGraphCommands(program);
  },
  mcp: async (program) => {
    (await import('./commands/mcp.js')).registerMcpCommands(program);
  },
  rehearse: async (program) => {
    (await import('./commands/rehearse.js')).registerRehearseCommand(program);
  },
  sandbox: async (program) => {
    (await import('./commands/sandbox.js')).registerSandboxCommands(program);
  },
  upgrade: async (program) => {
    const upgrade = (await import('./commands/upgrade.js')).registerUpgradeCommands(program);
    (await import('./commands/upgrade-plan.js')).registerUpgradePlanCommand(upgrade);
  },
  simulate: async (program) => {
    (await import('./commands/simulate.js')).registerSimulateCommands(program);
  },
};

function summary(name: string): { term: string; description: string } {
  return AREA_SUMMARIES.find((a) => a.name === name) ?? { term: name, description: '' };
}

/**
 * Builds the command tree. With `only`, loads just that area (when it is one); otherwise every area. With
 * `{ lazy: true }`, the areas not loaded are listed from {@link AREA_SUMMARIES} (for the top-level help) and not
 * imported at all.
 */
export async function buildProgram(only?: string, opts: { lazy?: boolean } = {}): Promise<Command> {
  const program = new Command('keelson')
    .description(
      'Inspect and drive OpenShift cluster updates: release payloads, task graphs, Ignition, MachineConfigs, OS and update graphs',
    )
    .version('0.1.0')
    .showHelpAfterError()
    // subcommands own their options (`graph updates --version V` is not the program's --version)
    .enablePositionalOptions()
    .exitOverride();
  const load = only !== undefined && only in areas ? [only] : opts.lazy === true ? [] : Object.keys(areas);
  const stubs = new Map<Command, string>();
  for (const name of Object.keys(areas)) {
    if (load.includes(name)) await areas[name]?.(program);
    else if (opts.lazy === true)
      stubs.set(program.command(name).description(summary(name).description), summary(name).term);
  }
  if (stubs.size > 0) {
    const help = new Help();
    program.configureHelp({ subcommandTerm: (cmd) => stubs.get(cmd) ?? help.subcommandTerm(cmd) });
  }
  return program;
}

/** The area a command line runs: its first word, or for `help <area>` the second. */
function areaOf(argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = await buildProgram(areaOf(argv), { lazy: true });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version exit with code 0; usage errors with 2 (commander printed the message)
      return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    return reportError(err);
  }
}
