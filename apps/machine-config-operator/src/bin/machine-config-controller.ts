#!/usr/bin/env node
// machine-config-controller entry point (wiring only; see src/controllers/manager.ts).
import { Command } from 'commander';
import { addCommonFlags, cliLogger, processOptions, runUntilSignal, type CommonFlags } from '../common/cli.js';
import { startMachineConfigController } from '../controllers/manager.js';

const program = new Command('machine-config-controller').description('Machine Config Controller: template, render, kubelet/container-runtime config, node and drain controllers');
addCommonFlags(program.command('start').description('Run the controllers (leader-elected on Lease machine-config-controller)'), '127.0.0.1:9001')
  .option('--templates <dir>', 'templates directory in upstream layout (default: the set shipped with keelson)')
  .action(async (f: CommonFlags & { templates?: string }) => {
    const logger = cliLogger('machine-config-controller', f.v);
    await runUntilSignal(logger, () => startMachineConfigController({ ...processOptions(f, logger), ...(f.templates !== undefined ? { templatesDir: f.templates } : {}) }));
  });
await program.parseAsync(process.argv);
