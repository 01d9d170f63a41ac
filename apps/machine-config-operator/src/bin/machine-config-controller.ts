#!/usr/bin/env node
// machine-config-controller entry point (wiring only; see src/controllers/manager.ts).
import { Command } from 'commander';
import {
  addCommonFlags,
  cliLogger,
  processOptions,
  runCommandLine,
  runUntilSignal,
  UsageError,
  type CommonFlags,
} from '../common/cli.js';
import type { ControllerDurations } from '@keelson/machineconfig';
import { startMachineConfigController } from '../controllers/manager.js';

const program = new Command('machine-config-controller').description(
  'Machine Config Controller: template, render, kubelet/container-runtime config, node and drain controllers',
);
addCommonFlags(
  program.command('start').description('Run the controllers (leader-elected on Lease machine-config-controller)'),
  '127.0.0.1:9001',
)
  .option('--templates <dir>', 'templates directory in upstream layout (default: the set shipped with keelson)')
  .action(async (f: CommonFlags & { templates?: string }) => {
    const logger = cliLogger('machine-config-controller', f.v);
    await runUntilSignal(logger, () =>
      startMachineConfigController({
        ...processOptions(f, logger),
        ...(f.templates !== undefined ? { templatesDir: f.templates } : {}),
        ...durationsFromEnv(),
      }),
    );
  });
/** KEELSON_CONTROLLER_DURATIONS: a JSON object of ControllerDurations (milliseconds) for rehearsals and tests. */
function durationsFromEnv(): {
  durations?: Partial<ControllerDurations>;
  cordonBackoff?: { initialMs: number; steps: number };
} {
  const raw = process.env['KEELSON_CONTROLLER_DURATIONS'];
  if (raw === undefined || raw === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new UsageError(`KEELSON_CONTROLLER_DURATIONS: not JSON: ${(e as Error).message}`);
  }
  if (
    v === null ||
    typeof v !== 'object' ||
    Array.isArray(v) ||
    Object.values(v).some((x) => typeof x !== 'number' || !(x >= 0))
  ) {
    throw new UsageError(
      'KEELSON_CONTROLLER_DURATIONS: expected a JSON object of non-negative millisecond numbers, e.g. {"renderDelayMs":100}',
    );
  }
  const { cordonBackoffInitialMs, ...durations } = v as Record<string, number>;
  return {
    durations,
    ...(cordonBackoffInitialMs !== undefined ? { cordonBackoff: { initialMs: cordonBackoffInitialMs, steps: 5 } } : {}),
  };
}

await runCommandLine(program);
