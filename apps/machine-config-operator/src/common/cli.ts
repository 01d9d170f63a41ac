/** Command-line wiring shared by the operator and controller entry points: flags, JSON logs, graceful SIGTERM. */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import {
  COMMON_FLAGS,
  isUsageError,
  onShutdown,
  parseDurationFlag,
  parseLeaderElectionFlags,
  parseListenFlag,
  parseVerbosityFlag,
  processLogger,
  runProgram,
  UsageError,
  type Logger,
} from '@keelson/kube';
import type { ProcessOptions, Running } from './runtime.js';

/** A bad flag value: the message says which flag and what to pass (`@keelson/kube`'s one `UsageError`). */
export { UsageError };

/** Flags common to `start` of both processes. */
export interface CommonFlags {
  kubeconfig?: string;
  v: string;
  leaderElect: boolean;
  leaderElectLeaseDuration: string;
  leaderElectRenewDeadline: string;
  leaderElectRetryPeriod: string;
  resourcelockNamespace?: string;
  metricsListenAddress: string;
}

/** Adds the common flags to a `start` command. */
export function addCommonFlags(cmd: Command, defaultMetricsAddress: string): Command {
  return cmd
    .option(`${COMMON_FLAGS.kubeconfig.name} <path>`, COMMON_FLAGS.kubeconfig.help)
    .option(`${COMMON_FLAGS.v.name} <level>`, COMMON_FLAGS.v.help, COMMON_FLAGS.v.default)
    .addOption(
      new Option(
        `${COMMON_FLAGS.leaderElect.name} [bool]`,
        `${COMMON_FLAGS.leaderElect.help} (disable only for a single replica)`,
      )
        .default(COMMON_FLAGS.leaderElect.default)
        .argParser((v) => v !== 'false'),
    )
    .option(
      `${COMMON_FLAGS.leaseDuration.name} <d>`,
      COMMON_FLAGS.leaseDuration.help,
      COMMON_FLAGS.leaseDuration.default,
    )
    .option(
      `${COMMON_FLAGS.renewDeadline.name} <d>`,
      COMMON_FLAGS.renewDeadline.help,
      COMMON_FLAGS.renewDeadline.default,
    )
    .option(`${COMMON_FLAGS.retryPeriod.name} <d>`, COMMON_FLAGS.retryPeriod.help, COMMON_FLAGS.retryPeriod.default)
    .option(
      '--resourcelock-namespace <ns>',
      'namespace of the leader-election Lease (default openshift-machine-config-operator)',
    )
    .option(
      `${COMMON_FLAGS.metricsListenAddress.name} <host:port>`,
      COMMON_FLAGS.metricsListenAddress.help,
      defaultMetricsAddress,
    );
}

/** Parses a Go duration flag (`137s`, `2m`, `500ms`, `1h`; `@keelson/kube` `parseDurationFlag`): negative refused. */
export function parseDuration(flag: string, v: string): number {
  return parseDurationFlag(flag, v, 'nonNegative');
}

/** Parses `host:port` of `--metrics-listen-address` (an empty host is every interface). */
export function parseListen(v: string): { host: string; port: number } {
  return parseListenFlag(COMMON_FLAGS.metricsListenAddress.name, v, '0.0.0.0');
}

/** The process options from the common flags. */
export function processOptions(f: CommonFlags, logger: Logger): ProcessOptions {
  parseVerbosityFlag(f.v);
  return {
    ...(f.kubeconfig !== undefined ? { kubeconfig: f.kubeconfig } : {}),
    logger,
    health: parseListen(f.metricsListenAddress),
    leaderElection: f.leaderElect
      ? {
          ...parseLeaderElectionFlags({
            leaseDuration: f.leaderElectLeaseDuration,
            renewDeadline: f.leaderElectRenewDeadline,
            retryPeriod: f.leaderElectRetryPeriod,
          }),
          ...(f.resourcelockNamespace !== undefined ? { namespace: f.resourcelockNamespace } : {}),
        }
      : false,
  };
}

/** The process logger (`@keelson/kube` {@link processLogger}) at the level of `--v`; a bad `--v` logs at info. */
export function cliLogger(component: string, v: string): Logger {
  return processLogger(component, /^\d+$/.test(v) ? v : '2');
}

/** Reads a JSON object of strings from a file (e.g. --images-json). */
export function readJsonStrings(flag: string, path: string): Record<string, string> {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--${flag}: cannot read ${path}: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
    throw new UsageError(`--${flag}: ${path} must hold a JSON object of strings`);
  }
  return v as Record<string, string>;
}

/** Runs `start()` and stops it on SIGTERM/SIGINT; exits 2 on usage errors, 1 on failures. */
export async function runUntilSignal(logger: Logger, start: () => Promise<Running>): Promise<void> {
  let running: Running;
  try {
    running = await start();
  } catch (e) {
    logger.error('failed to start', { err: e });
    process.exitCode = isUsageError(e) ? e.exitCode : 1;
    return;
  }
  logger.info('started', { healthUrl: running.healthUrl });
  // as upstream (klog.Fatalf "leaderelection lost"): a process that lost its Lease exits and its pod restarts
  void running.done?.then((reason) => {
    if (reason === 'leaderLost') process.exit(1);
  });
  onShutdown(
    async (reason) => {
      logger.info('shutting down', { reason });
      await running.stop();
    },
    { logger },
  );
}

/**
 * Parses `process.argv` and runs the program with `@keelson/kube`'s {@link runProgram}: an unknown flag or a bad flag
 * value exits 2 (as a {@link UsageError} from an action), `--help` exits 0.
 */
export async function runCommandLine(program: Command): Promise<void> {
  const code = await runProgram(program, process.argv.slice(2));
  if (code !== 0) process.exitCode = code;
}
