import { spawn } from 'node:child_process';
import { RpmOstreeError } from './errors.js';

/** Options of one command run. */
export interface RunOptions {
  /** Extra environment entries, merged over the runner's base environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the child (SIGTERM, then SIGKILL after a grace period) after this many milliseconds. */
  readonly timeoutMs?: number;
  /** Bytes written to the child's standard input. */
  readonly stdin?: string;
  /** Working directory. */
  readonly cwd?: string;
}

/** What a finished command produced. */
export interface CommandResult {
  /** Exit code, or null when the child died from a signal. */
  readonly exitCode: number | null;
  /** Signal that ended the child, if any. */
  readonly signal: string | null;
  /** Captured standard output (UTF-8). */
  readonly stdout: string;
  /** Captured standard error (UTF-8). */
  readonly stderr: string;
  /** True when the runner killed the child because `timeoutMs` passed. */
  readonly timedOut: boolean;
}

/**
 * The single seam through which every OS command goes. A runner must not throw for a non-zero exit code: it
 * reports it in the result. It throws {@link RpmOstreeError} with code `RPMOSTREE_NOT_FOUND` when the binary is missing.
 */
export interface CommandRunner {
  /** Runs `command` with `args` and resolves once it has exited. */
  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
}

/** Options of {@link ChildProcessRunner}. */
export interface ChildProcessRunnerOptions {
  /** Base environment (default: `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default timeout in ms when a call gives none (default 0 = none). */
  readonly defaultTimeoutMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL on timeout (default 2000). */
  readonly killGraceMs?: number;
  /** Largest captured output per stream, in bytes (default 64 MiB); beyond that the child is killed. */
  readonly maxOutputBytes?: number;
}

/** The real runner: spawns a child process (no shell), captures stdout/stderr, kills it on timeout. */
export class ChildProcessRunner implements CommandRunner {
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #defaultTimeoutMs: number;
  readonly #killGraceMs: number;
  readonly #maxOutputBytes: number;

  constructor(options: ChildProcessRunnerOptions = {}) {
    this.#env = options.env ?? process.env;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 0;
    this.#killGraceMs = options.killGraceMs ?? 2000;
    this.#maxOutputBytes = options.maxOutputBytes ?? 64 * 1024 * 1024;
  }

  run(command: string, args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.#env)) if (v !== undefined) env[k] = v;
    for (const [k, v] of Object.entries(options.env ?? {})) env[k] = v;
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    return new Promise<CommandResult>((resolve, reject) => {
      const child = spawn(command, [...args], {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outLen = 0;
      let errLen = 0;
      let timedOut = false;
      let overflow = false;
      let settled = false;
      let killTimer: NodeJS.Timeout | undefined;
      const kill = (): void => {
        child.kill('SIGTERM');
        killTimer = setTimeout(() => child.kill('SIGKILL'), this.#killGraceMs);
        killTimer.unref();
      };
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              timedOut = true;
              kill();
            }, timeoutMs)
          : undefined;
      child.stdout.on('data', (b: Buffer) => {
        outLen += b.length;
        if (outLen > this.#maxOutputBytes) {
          if (!overflow) kill();
          overflow = true;
          return;
        }
        out.push(b);
      });
      child.stderr.on('data', (b: Buffer) => {
        errLen += b.length;
        if (errLen > this.#maxOutputBytes) {
          if (!overflow) kill();
          overflow = true;
          return;
        }
        err.push(b);
      });
      child.stdin.on('error', () => {
        /* child may exit before reading stdin */
      });
      child.on('error', (e: NodeJS.ErrnoException) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        if (e.code === 'ENOENT') {
          reject(
            new RpmOstreeError(
              'RPMOSTREE_NOT_FOUND',
              [command, ...args],
              null,
              e.message,
              `is ${command} installed and on PATH?`,
            ),
          );
        } else {
          reject(new RpmOstreeError('RPMOSTREE_COMMAND_FAILED', [command, ...args], null, e.message));
        }
      });
      child.on('close', (code, signal) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        if (killTimer) clearTimeout(killTimer);
        const stderr = Buffer.concat(err).toString('utf8');
        resolve({
          exitCode: code,
          signal,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: overflow ? `${stderr}\n[output exceeded ${this.#maxOutputBytes} bytes; child killed]` : stderr,
          timedOut,
        });
      });
      if (options.stdin !== undefined) child.stdin.end(options.stdin);
      else child.stdin.end();
    });
  }
}
