/** Command-line wiring shared by the operator and controller entry points: flags, JSON logs, graceful SIGTERM. */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { createLogger, onShutdown, parseGoDuration, type Logger } from '@keelson/kube';
import { levelFromVerbosity, type ProcessOptions, type Running } from './runtime.js';

/** A bad flag value: the message says which flag and what to pass. */
export class UsageError extends Error {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

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
    .option('--kubeconfig <path>', 'kubeconfig file (default: KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('--v <level>', 'log verbosity (klog style: 0-3 info, 4+ debug)', '2')
    .addOption(
      new Option('--leader-elect [bool]', 'hold a Lease while running (disable only for a single replica)')
        .default(true)
        .argParser((v) => v !== 'false'),
    )
    .option('--leader-elect-lease-duration <d>', 'Lease duration', '137s')
    .option('--leader-elect-renew-deadline <d>', 'renew deadline', '107s')
    .option('--leader-elect-retry-period <d>', 'retry period', '26s')
    .option(
      '--resourcelock-namespace <ns>',
      'namespace of the leader-election Lease (default openshift-machine-config-operator)',
    )
    .option('--metrics-listen-address <host:port>', 'address of /metrics, /healthz and /readyz', defaultMetricsAddress);
}

/** Parses a Go-style duration (`137s`, `2m`, `500ms`, `1h`). */
export function parseDuration(flag: string, v: string): number {
  // Go time.ParseDuration (@keelson/kube parseGoDuration): a bare number is a usage error
  let ms: number;
  try {
    ms = parseGoDuration(v);
  } catch (e) {
    throw new UsageError(
      `--${flag}: invalid duration "${v}": ${(e as Error).message} (use e.g. 500ms, 30s, 1m30s, 1h)`,
    );
  }
  if (ms < 0) throw new UsageError(`--${flag}: invalid duration "${v}": must not be negative`);
  return ms;
}

/** Parses `host:port`. */
export function parseListen(v: string): { host: string; port: number } {
  const i = v.lastIndexOf(':');
  const port = Number(v.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--metrics-listen-address: expected host:port, got "${v}"`);
  return { host: v.slice(0, i) || '0.0.0.0', port };
}

/** The process options from the common flags. */
export function processOptions(f: CommonFlags, logger: Logger): ProcessOptions {
  const v = Number(f.v);
  if (!Number.isInteger(v) || v < 0) throw new UsageError(`--v: expected a non-negative integer, got "${f.v}"`);
  return {
    ...(f.kubeconfig !== undefined ? { kubeconfig: f.kubeconfig } : {}),
    logger,
    health: parseListen(f.metricsListenAddress),
    leaderElection: f.leaderElect
      ? {
          leaseDurationMs: parseDuration('leader-elect-lease-duration', f.leaderElectLeaseDuration),
          renewDeadlineMs: parseDuration('leader-elect-renew-deadline', f.leaderElectRenewDeadline),
          retryPeriodMs: parseDuration('leader-elect-retry-period', f.leaderElectRetryPeriod),
          ...(f.resourcelockNamespace !== undefined ? { namespace: f.resourcelockNamespace } : {}),
        }
      : false,
  };
}

/** JSON logger at the level of `--v`. */
export function cliLogger(component: string, v: string): Logger {
  const n = Number(v);
  return createLogger({ level: levelFromVerbosity(Number.isFinite(n) ? n : 2), fields: { component } });
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
    logger.error('failed to start', { err: (e as Error).message });
    process.exitCode = e instanceof UsageError ? 2 : 1;
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
