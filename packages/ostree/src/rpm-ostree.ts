import { RpmOstreeError } from './errors.js';
import { ChildProcessRunner, type CommandResult, type CommandRunner } from './runner.js';
import {
  rpmOstreeArgs,
  revertKernelSwapArgs,
  type CleanupOptions,
  type DeployOptions,
  type KargsEdit,
  type RebaseOptions,
} from './commands.js';
import {
  bootedDeployment,
  parseRpmOstreeStatus,
  pendingDeployment,
  rollbackDeployment,
  stagedDeployment,
  type Deployment,
  type RpmOstreeStatus,
} from './status.js';
import { parseRpmOstreeVersion, type RpmOstreeVersion } from './version.js';
import { parseKernelCommandLine } from './kargs.js';
import { containersStorageReference, unverifiedRegistryReference } from './imageref.js';
import { OstreeError } from './errors.js';
import type { KernelType } from './packages.js';

/** Retry policy for `rpm-ostree` calls. */
export interface RetryPolicy {
  /** Total attempts including the first (default 5). */
  readonly attempts: number;
  /** Delay before the second attempt in ms (default 1000). */
  readonly initialDelayMs: number;
  /** Multiplier per attempt (default 2). */
  readonly factor: number;
  /** Cap on one delay in ms (default 60000). */
  readonly maxDelayMs: number;
}

/** Default busy-retry policy. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  attempts: 5,
  initialDelayMs: 1000,
  factor: 2,
  maxDelayMs: 60_000,
});
/** The machine-config-daemon's rebase retry: 7 tries, 10 s doubling, capped at 60 s. */
export const MCO_REBASE_RETRY: RetryPolicy = Object.freeze({
  attempts: 7,
  initialDelayMs: 10_000,
  factor: 2,
  maxDelayMs: 60_000,
});

/** Options of {@link RpmOstree}. */
export interface RpmOstreeOptions {
  /** Command runner (default: a {@link ChildProcessRunner}). */
  readonly runner?: CommandRunner;
  /** Binary to run (default `rpm-ostree`). */
  readonly binary?: string;
  /** Value of `RPMOSTREE_CLIENT_ID` (default `keelson`). */
  readonly clientId?: string;
  /** Per-call timeout in ms (default 30 min; 0 = none). */
  readonly timeoutMs?: number;
  /** Retry policy for busy transactions. */
  readonly retry?: Partial<RetryPolicy>;
  /** Sleep function (tests pass a fast one). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Called before every invocation with the full argv (for logs). */
  readonly onCommand?: (argv: readonly string[]) => void;
}

/** Options of one raw {@link RpmOstree.exec} call. */
export interface ExecOptions {
  /** Also retry on any non-zero exit (not only busy): the daemon does this for rebase. */
  readonly retryAnyFailure?: boolean;
  /** Override the retry policy for this call. */
  readonly retry?: Partial<RetryPolicy>;
  /** Exit codes treated as success besides 0 (e.g. 77 for `--unchanged-exit-77`). */
  readonly okExitCodes?: readonly number[];
}

/** Pattern of stderr texts meaning another client holds the rpm-ostree daemon. */
export const BUSY_PATTERN =
  /Transaction in progress|transaction.*(already|in progress)|rpm-ostreed? .*busy|Unable to acquire|Another (transaction|client)/i;

/** True when a failed result means "daemon busy" (worth retrying). */
export function isBusyResult(r: CommandResult): boolean {
  return r.exitCode !== 0 && !r.timedOut && BUSY_PATTERN.test(r.stderr);
}

const defaultSleep = (ms: number): Promise<void> => new Promise((res) => setTimeout(res, ms));

/**
 * Driver for `rpm-ostree`: typed status, the exact argument lists the machine-config-daemon and Zincati use, busy
 * retry with backoff and {@link RpmOstreeError}s carrying command line, exit code and stderr.
 */
export class RpmOstree {
  /** The runner every command goes through. */
  readonly runner: CommandRunner;
  /** Binary name or path. */
  readonly binary: string;
  /** `RPMOSTREE_CLIENT_ID` sent with each call. */
  readonly clientId: string;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #onCommand: ((argv: readonly string[]) => void) | undefined;

  constructor(options: RpmOstreeOptions = {}) {
    this.runner = options.runner ?? new ChildProcessRunner();
    this.binary = options.binary ?? 'rpm-ostree';
    this.clientId = options.clientId ?? 'keelson';
    this.#timeoutMs = options.timeoutMs ?? 30 * 60 * 1000;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#sleep = options.sleep ?? defaultSleep;
    this.#onCommand = options.onCommand;
  }

  /**
   * Runs `rpm-ostree <args>` and returns stdout. Busy failures (and, with `retryAnyFailure`, all failures except
   * timeouts) are retried with exponential backoff; the last failure is thrown as {@link RpmOstreeError}.
   */
  async exec(args: readonly string[], options: ExecOptions = {}): Promise<string> {
    return (await this.execResult(args, options)).stdout;
  }

  /** Like {@link RpmOstree.exec} but resolves with the whole {@link CommandResult} (exit code included). */
  async execResult(args: readonly string[], options: ExecOptions = {}): Promise<CommandResult> {
    const policy = { ...this.#retry, ...options.retry };
    const argv = [this.binary, ...args];
    let delay = policy.initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      this.#onCommand?.(argv);
      const r = await this.runner.run(this.binary, args, {
        env: { RPMOSTREE_CLIENT_ID: this.clientId },
        ...(this.#timeoutMs > 0 ? { timeoutMs: this.#timeoutMs } : {}),
      });
      if (r.exitCode === 0 || (r.exitCode !== null && options.okExitCodes?.includes(r.exitCode))) return r;
      if (r.timedOut) {
        throw new RpmOstreeError(
          'RPMOSTREE_TIMEOUT',
          argv,
          r.exitCode,
          r.stderr,
          `after ${this.#timeoutMs} ms; raise the timeout or check rpm-ostreed`,
        );
      }
      const busy = isBusyResult(r);
      if ((busy || options.retryAnyFailure) && attempt < policy.attempts) {
        await this.#sleep(delay);
        delay = Math.min(policy.maxDelayMs, delay * policy.factor);
        continue;
      }
      throw new RpmOstreeError(
        busy ? 'RPMOSTREE_BUSY' : 'RPMOSTREE_COMMAND_FAILED',
        argv,
        r.exitCode,
        r.stderr,
        busy
          ? `daemon still busy after ${attempt} attempts; wait for the other transaction or run "rpm-ostree cancel"`
          : undefined,
      );
    }
  }

  /** `rpm-ostree status --json`, parsed. */
  async status(): Promise<RpmOstreeStatus> {
    const out = await this.exec(rpmOstreeArgs.statusJson());
    return parseRpmOstreeStatus(out, `${this.binary} status --json`);
  }

  /** `rpm-ostree status` (human text, for logs). */
  statusText(): Promise<string> {
    return this.exec(['status']);
  }

  /** The booted deployment; throws `NO_BOOTED_DEPLOYMENT` when none (not an ostree-booted host). */
  async booted(): Promise<Deployment> {
    const d = bootedDeployment(await this.status());
    if (!d)
      throw new OstreeError(
        'NO_BOOTED_DEPLOYMENT',
        'no booted deployment in rpm-ostree status; is this host booted into ostree?',
      );
    return d;
  }
  /** The staged deployment, or undefined. */
  async staged(): Promise<Deployment | undefined> {
    return stagedDeployment(await this.status());
  }
  /** The pending deployment, or undefined. */
  async pending(): Promise<Deployment | undefined> {
    return pendingDeployment(await this.status());
  }
  /** The rollback deployment, or undefined. */
  async rollback(): Promise<Deployment | undefined> {
    return rollbackDeployment(await this.status());
  }
  /** Booted and staged deployments from one status call (what the daemon uses). */
  async bootedAndStaged(): Promise<{ booted: Deployment; staged: Deployment | undefined }> {
    const s = await this.status();
    const booted = bootedDeployment(s);
    if (!booted)
      throw new OstreeError(
        'NO_BOOTED_DEPLOYMENT',
        'no booted deployment in rpm-ostree status; is this host booted into ostree?',
      );
    return { booted, staged: stagedDeployment(s) };
  }

  /** `rpm-ostree --version` parsed from YAML. */
  async version(): Promise<RpmOstreeVersion> {
    return parseRpmOstreeVersion(await this.exec(rpmOstreeArgs.version()));
  }
  /** True when `--version` lists `feature` (e.g. `container`). */
  async hasFeature(feature: string): Promise<boolean> {
    return (await this.version()).features.includes(feature);
  }
  /** True when rpm-ostree can rebase to container images (the `container` feature). */
  isNewEnoughForLayering(): Promise<boolean> {
    return this.hasFeature('container');
  }

  /** Current kernel arguments (`rpm-ostree kargs`), split. */
  async kargs(): Promise<string[]> {
    return parseKernelCommandLine((await this.exec(rpmOstreeArgs.kargsRead())).trim());
  }
  /** `rpm-ostree kargs` with edits; resolves false when `unchangedExit77` was set and nothing changed. */
  async editKargs(edit: KargsEdit): Promise<boolean> {
    const r = await this.execResult(rpmOstreeArgs.kargs(edit), edit.unchangedExit77 ? { okExitCodes: [77] } : {});
    return r.exitCode !== 77;
  }
  /** Runs `rpm-ostree kargs <args>` with prebuilt arguments (e.g. from {@link generateKargs}); no-op when empty. */
  async kargsRaw(args: readonly string[]): Promise<void> {
    if (args.length === 0) return;
    await this.exec(['kargs', ...args]);
  }

  /** `rpm-ostree rebase …`. */
  async rebase(ref: string, options: RebaseOptions = {}, exec: ExecOptions = {}): Promise<void> {
    await this.exec(rpmOstreeArgs.rebase(ref, options), exec);
  }
  /** The daemon's OS update: `rebase --experimental ostree-unverified-registry:<image>`, retried like upstream. */
  async rebaseLayered(
    osImageURL: string,
    exec: ExecOptions = { retryAnyFailure: true, retry: MCO_REBASE_RETRY },
  ): Promise<void> {
    await this.rebase(unverifiedRegistryReference(osImageURL), { experimental: true }, exec);
  }
  /** `rebase --experimental ostree-unverified-image:containers-storage:<repoDigest>`. */
  async rebaseFromContainerStorage(repoDigest: string): Promise<void> {
    await this.rebase(containersStorageReference(repoDigest), { experimental: true });
  }
  /** `rpm-ostree deploy …`. */
  async deploy(revision: string, options: DeployOptions = {}): Promise<void> {
    await this.exec(rpmOstreeArgs.deploy(revision, options));
  }
  /** Registers an update driver: `deploy '' --register-driver=<name>`. */
  async registerDriver(name: string): Promise<void> {
    await this.deploy('', { registerDriver: name });
  }
  /** `rpm-ostree finalize-deployment <checksum>` (unlocks the staged deployment and reboots). */
  async finalizeDeployment(checksum: string, allowMissingChecksum = false): Promise<void> {
    await this.exec(rpmOstreeArgs.finalizeDeployment(checksum, allowMissingChecksum));
  }
  /** `rpm-ostree cleanup -p/-r/-b/-m`. */
  async cleanup(options: CleanupOptions): Promise<void> {
    await this.exec(rpmOstreeArgs.cleanup(options));
  }
  /** `cleanup -p`: drop the pending deployment. */
  removePendingDeployment(): Promise<void> {
    return this.cleanup({ pending: true });
  }
  /** `rpm-ostree update --install … --uninstall …` from prebuilt extension args; no-op when empty. */
  async update(extensionArgs: readonly string[]): Promise<void> {
    if (extensionArgs.length === 0) return;
    await this.exec(rpmOstreeArgs.update(extensionArgs));
  }
  /** `override remove … --install …`. */
  async overrideRemove(remove: readonly string[], install: readonly string[] = []): Promise<void> {
    await this.exec(rpmOstreeArgs.overrideRemove(remove, install));
  }
  /** `override replace … --remove …`. */
  async overrideReplace(replace: readonly string[], remove: readonly string[] = []): Promise<void> {
    await this.exec(rpmOstreeArgs.overrideReplace(replace, remove));
  }
  /** `override reset … --uninstall …`. */
  async overrideReset(reset: readonly string[], uninstall: readonly string[] = []): Promise<void> {
    await this.exec(rpmOstreeArgs.overrideReset(reset, uninstall));
  }
  /** Switches to the realtime or 64k-pages kernel (no-op for `default`: reverting is {@link revertKernelSwap}). */
  async switchKernel(kernelType: KernelType): Promise<void> {
    if (kernelType === 'default') return;
    await this.exec(rpmOstreeArgs.switchKernel(kernelType));
  }
  /** Undoes a kernel-rt/64k swap of the booted deployment; resolves true when a command ran. */
  async revertKernelSwap(): Promise<boolean> {
    const args = revertKernelSwapArgs(await this.booted());
    if (!args) return false;
    await this.exec(args);
    return true;
  }
}
