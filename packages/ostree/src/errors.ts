/** Machine-readable codes carried by every error of this package. */
export type OstreeErrorCode =
  | 'RPMOSTREE_COMMAND_FAILED'
  | 'RPMOSTREE_BUSY'
  | 'RPMOSTREE_TIMEOUT'
  | 'RPMOSTREE_NOT_FOUND'
  | 'STATUS_PARSE'
  | 'NO_BOOTED_DEPLOYMENT'
  | 'IMAGE_REFERENCE'
  | 'VERSION_PARSE'
  | 'INVALID_ARGUMENT'
  | 'UNSUPPORTED_KERNEL_TYPE'
  | 'INVALID_EXTENSIONS'
  | 'EXTENSIONS_NOT_STAGED'
  | 'OSTREE_COMMAND_FAILED'
  | 'OSTREE_NOT_FOUND'
  | 'SYSROOT'
  | 'PLAN_STEP_FAILED'
  | 'SIMULATION';

/** Base class of every error thrown by `@keelson/ostree`; `code` is stable, `message` tells what to do. */
export class OstreeError extends Error {
  /** Stable machine-readable error code. */
  readonly code: OstreeErrorCode;
  constructor(code: OstreeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OstreeError';
    this.code = code;
  }
}

/** Quotes one argument for display the way a POSIX shell would need it. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Formats a command and its arguments as one shell-safe line. */
export function formatCommandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map(shellQuote).join(' ');
}

/**
 * A failed `rpm-ostree` (or `ostree`) invocation: carries the exact command line, exit code and stderr.
 * `code` is `RPMOSTREE_BUSY` when another client holds the daemon, `RPMOSTREE_TIMEOUT` when the child was killed,
 * `RPMOSTREE_NOT_FOUND` when the binary is missing.
 */
export class RpmOstreeError extends OstreeError {
  /** The command and arguments as run. */
  readonly argv: readonly string[];
  /** The command line, shell-quoted, for logs. */
  readonly commandLine: string;
  /** Exit code of the child, or null when it was killed by a signal or never started. */
  readonly exitCode: number | null;
  /** Captured standard error (trimmed). */
  readonly stderr: string;
  constructor(code: OstreeErrorCode, argv: readonly string[], exitCode: number | null, stderr: string, hint?: string) {
    const commandLine = formatCommandLine(argv[0] ?? '', argv.slice(1));
    const what =
      code === 'RPMOSTREE_TIMEOUT'
        ? 'timed out and was killed'
        : code === 'RPMOSTREE_NOT_FOUND'
          ? 'could not be started (command not found)'
          : `failed with exit code ${exitCode === null ? 'unknown (signal)' : String(exitCode)}`;
    const detail = stderr.trim() === '' ? '' : `: ${stderr.trim()}`;
    super(code, `error running ${commandLine}: ${what}${detail}${hint ? ` (${hint})` : ''}`);
    this.name = 'RpmOstreeError';
    this.argv = [...argv];
    this.commandLine = commandLine;
    this.exitCode = exitCode;
    this.stderr = stderr.trim();
  }
}

/** A `rpm-ostree status --json` document (or part of it) that does not have the expected shape. */
export class StatusParseError extends OstreeError {
  /** JSON path of the offending value, e.g. `$.deployments[1].booted`. */
  readonly path: string;
  /** Where the document came from (file name or command), when known. */
  readonly source: string | undefined;
  constructor(path: string, message: string, source?: string) {
    super('STATUS_PARSE', `${source ? `${source}: ` : ''}${path}: ${message}`);
    this.name = 'StatusParseError';
    this.path = path;
    this.source = source;
  }
}
