/**
 * The keelson command-line tool. Each area registers its commands from src/commands/<area>.ts.
 * Exit codes: 0 success, 1 the operation failed (error on stderr), 2 usage error.
 */
import { Command, CommanderError } from 'commander';
import { registerGraphCommands } from './commands/graph.js';
import { registerIgnitionCommands } from './commands/ignition.js';
import { registerMachineConfigCommands } from './commands/mc.js';
import { registerOsCommands } from './commands/os.js';
import { registerPayloadCommands } from './commands/payload.js';
import { registerPayloadGraphCommand } from './commands/payload-graph.js';
import { registerSandboxCommands } from './commands/sandbox.js';
import { CliError } from './errors.js';

export function buildProgram(): Command {
  const program = new Command('keelson')
    .description('Inspect and drive OpenShift cluster updates: release payloads, task graphs, Ignition, MachineConfigs, OS and update graphs')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  const payload = program.command('payload').description('Release payloads: info, extract, manifests, graph, diff, verify');
  registerPayloadGraphCommand(payload);
  registerPayloadCommands(payload);
  registerIgnitionCommands(program);
  registerMachineConfigCommands(program);
  registerOsCommands(program);
  registerGraphCommands(program);
  registerSandboxCommands(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv as string[], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version exit with code 0; usage errors with 2
      return err.exitCode === 0 ? 0 : 2;
    }
    const message = err instanceof Error ? err.message : String(err);
    const code = err instanceof CliError ? err.exitCode : 1;
    process.stderr.write(`error: ${message}\n`);
    return code;
  }
}
