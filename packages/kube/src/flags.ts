/**
 * The flags every Keelson process shares, parsed one way: the operators' and daemons' bins and the `keelson` CLI.
 * Names and defaults as upstream's (k8s.io/component-base `--v`, client-go `--kubeconfig`, library-go's
 * leader-election trio, `--metrics-listen-address`), durations as Go's `time.ParseDuration`, and one
 * {@link UsageError} (exit code 2) naming the flag.
 */
import { parseGoDuration } from '@keelson/api';
import { createLogger, type Logger, type LogLevel } from './logger.js';

/** A bad command line: the message names the flag and what to pass. Processes exit 2 on it. */
export class UsageError extends Error {
  readonly code = 'USAGE';
  /** Exit code of a process that stops on it. */
  readonly exitCode = 2;
  /** The flag (`--name`), when one flag is at fault. */
  readonly flag: string | undefined;
  /** What is wrong with the value, without the flag (e.g. `time: missing unit in duration "137"`). */
  readonly reason: string;
  constructor(message: string, options: { flag?: string; reason?: string; cause?: unknown } = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'UsageError';
    this.flag = options.flag;
    this.reason = options.reason ?? message;
  }
}

/**
 * True for a {@link UsageError}, also one from another copy of this module (the `@keelson/kube/flags` entry point
 * and the package root are bundled separately).
 */
export function isUsageError(e: unknown): e is UsageError {
  return e instanceof Error && (e as { code?: unknown }).code === 'USAGE';
}

/** `--name` of a flag given as `name` or `--name`. */
export function flagName(flag: string): string {
  return flag.startsWith('-') ? flag : `--${flag}`;
}

/** Which durations a flag accepts. */
export type DurationBound = 'any' | 'nonNegative' | 'positive';

/**
 * A duration flag in milliseconds as Go's `time.ParseDuration` (`137s`, `1m30s`, `500ms`, `2h`): a bare number is a
 * usage error (not milliseconds); `bound` refuses negative (default) or also zero durations.
 */
export function parseDurationFlag(flag: string, value: string, bound: DurationBound = 'nonNegative'): number {
  const name = flagName(flag);
  const fail = (reason: string, cause?: unknown): UsageError =>
    new UsageError(`${name}: invalid duration ${JSON.stringify(value)}: ${reason} (use e.g. 500ms, 30s, 1m30s, 1h)`, {
      flag: name,
      reason,
      cause,
    });
  let ms: number;
  try {
    ms = parseGoDuration(value.trim());
  } catch (e) {
    throw fail((e as Error).message, e);
  }
  if (bound === 'positive' && !(ms > 0)) throw fail('must be a positive duration');
  if (bound === 'nonNegative' && ms < 0) throw fail('must not be negative');
  return ms;
}

/** A non-negative integer flag (ports, counts, indexes). */
export function parseCountFlag(flag: string, value: string): number {
  const name = flagName(flag);
  if (!/^\d+$/.test(value)) {
    const reason = `expected a non-negative integer, got ${JSON.stringify(value)}`;
    throw new UsageError(`${name}: ${reason}`, { flag: name, reason });
  }
  return Number(value);
}

/**
 * A `HOST:PORT` flag (`--metrics-listen-address`, the CVO's `--listen`); an IPv6 host in brackets. An empty host is
 * `defaultHost` ('' = every interface, as Go's `:9099`).
 */
export function parseListenFlag(flag: string, value: string, defaultHost: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  const port = Number(m?.[3]);
  if (!m || !Number.isInteger(port) || port > 65535) {
    const name = flagName(flag);
    const reason = `expected HOST:PORT, got ${JSON.stringify(value)}`;
    throw new UsageError(`${name}: ${reason}`, { flag: name, reason });
  }
  const host = m[1] ?? m[2] ?? '';
  return { host: host === '' ? defaultHost : host, port };
}

/** klog's `--v` (a non-negative integer). */
export function parseVerbosityFlag(value: string): number {
  if (!/^\d+$/.test(value)) {
    const reason = `expected a non-negative integer, got ${JSON.stringify(value)}`;
    throw new UsageError(`--v: ${reason}`, { flag: '--v', reason });
  }
  return Number(value);
}

/** The log level of klog's `--v` (upstream operators log at 2; 4 and above is debug). */
export function levelFromVerbosity(v: number): LogLevel {
  return v >= 4 ? 'debug' : 'info';
}

/**
 * The logger of a Keelson process: `@keelson/kube`'s one JSON-line logger ({@link createLogger}, klog-style keys),
 * `component` on every line, at the level of klog's `--v` when given (a bad value is a {@link UsageError}).
 */
export function processLogger(component: string, verbosity?: string): Logger {
  return createLogger({
    ...(verbosity !== undefined ? { level: levelFromVerbosity(parseVerbosityFlag(verbosity)) } : {}),
    fields: { component },
  });
}

/** Go's `strconv.ParseBool`, as `--flag=value` of a boolean pflag takes it; undefined when not a boolean. */
export function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** The shared flags: names, defaults and help, as the binaries declare them. */
export const COMMON_FLAGS = {
  kubeconfig: { name: '--kubeconfig', help: 'kubeconfig file (default: KUBECONFIG, ~/.kube/config or in-cluster)' },
  v: { name: '--v', default: '2', help: 'log verbosity (klog style: 0-3 info, 4+ debug)' },
  leaderElect: { name: '--leader-elect', default: true, help: 'hold a Lease while running' },
  leaseDuration: { name: '--leader-elect-lease-duration', default: '137s', help: 'Lease duration' },
  renewDeadline: { name: '--leader-elect-renew-deadline', default: '107s', help: 'renew deadline' },
  retryPeriod: { name: '--leader-elect-retry-period', default: '26s', help: 'retry period' },
  metricsListenAddress: { name: '--metrics-listen-address', help: 'address of /metrics, /healthz and /readyz' },
} as const;

/** The leader-election trio in milliseconds, validated as client-go's `NewLeaderElector` does. */
export function parseLeaderElectionFlags(f: { leaseDuration: string; renewDeadline: string; retryPeriod: string }): {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
} {
  const leaseDurationMs = parseDurationFlag(COMMON_FLAGS.leaseDuration.name, f.leaseDuration, 'positive');
  const renewDeadlineMs = parseDurationFlag(COMMON_FLAGS.renewDeadline.name, f.renewDeadline, 'positive');
  const retryPeriodMs = parseDurationFlag(COMMON_FLAGS.retryPeriod.name, f.retryPeriod, 'positive');
  if (!(leaseDurationMs > renewDeadlineMs))
    throw new UsageError(
      `${COMMON_FLAGS.leaseDuration.name} (${f.leaseDuration}) must be greater than ${COMMON_FLAGS.renewDeadline.name} (${f.renewDeadline})`,
      { flag: COMMON_FLAGS.leaseDuration.name },
    );
  if (!(renewDeadlineMs > 1.2 * retryPeriodMs))
    throw new UsageError(
      `${COMMON_FLAGS.renewDeadline.name} (${f.renewDeadline}) must be greater than 1.2 × ${COMMON_FLAGS.retryPeriod.name} (${f.retryPeriod})`,
      { flag: COMMON_FLAGS.renewDeadline.name },
    );
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

export { parseFlags, runProgram } from './command-line.js';
export type {
  BoolFlag,
  FlagSpec,
  FlagValue,
  FlagValues,
  ParsedFlags,
  StringFlag,
  StringsFlag,
} from './command-line.js';
