/**
 * The one way the daemon runs a command on its host. Upstream's daemon, started in its DaemonSet pod with the
 * host's `/` mounted at `/rootfs`, re-executes itself chrooted into `/rootfs` (openshift/machine-config-operator
 * cmd/machine-config-daemon/start.go, `runStartCmd`: `syscall.Chroot(startOpts.rootMount)` when it is not `/`), so
 * every later `systemctl`, `rpm-ostree`, `usermod`, `update-ca-trust`, `systemd-run` and every path is the host's.
 * A Node process cannot chroot itself; here every host command is spawned as `chroot ROOT <cmd> …` (files go
 * through the same root: `HostRoot.resolve`). With `--root-mount /` (the daemon installed on the host) commands run
 * directly. Nothing else in the daemon spawns a process: `CommandHost` (host.ts) and the rpm-ostree driver (os.ts)
 * both take a `HostExec`.
 */
import { ChildProcessRunner, type CommandResult, type CommandRunner, type RunOptions } from '@keelson/ostree';
import { HostRoot } from './root.js';

/** Result of one host command. */
export interface HostCommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** PATH of host commands: the host's, never the container's. */
export const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Runs commands on the host. */
export interface HostExec {
  /** The host root every file operation goes through. */
  readonly root: HostRoot;
  /** How commands reach the host: `direct` (root `/`) or `chroot` (any other root). */
  readonly mode: 'direct' | 'chroot';
  /** Runs `argv` on the host (never throws for a non-zero exit; a missing `chroot`/command is exit 127). */
  run(argv: readonly string[], opts?: RunOptions): Promise<HostCommandResult>;
  /** The same as a @keelson/ostree `CommandRunner` (for the rpm-ostree driver). */
  readonly runner: CommandRunner;
}

/** The argv actually spawned for a host command. */
export function hostArgv(root: HostRoot, argv: readonly string[]): string[] {
  return root.dir === '/' ? [...argv] : ['chroot', root.dir, ...argv];
}

/** A {@link HostExec} over child processes: `chroot ROOT cmd` unless the root is `/`. */
export class ChrootHostExec implements HostExec {
  readonly root: HostRoot;
  readonly mode: 'direct' | 'chroot';
  readonly runner: CommandRunner;
  readonly #spawn: ChildProcessRunner;

  constructor(root: HostRoot | string, opts: { env?: Readonly<Record<string, string | undefined>> } = {}) {
    this.root = typeof root === 'string' ? new HostRoot(root) : root;
    this.mode = this.root.dir === '/' ? 'direct' : 'chroot';
    // the host's PATH, not the container's: chroot resolves the command inside the root with it
    this.#spawn = new ChildProcessRunner({ env: { ...(opts.env ?? process.env), PATH: HOST_PATH } });
    this.runner = { run: (command, args, o) => this.#runRaw([command, ...args], o) };
  }

  #runRaw(argv: readonly string[], opts?: RunOptions): Promise<CommandResult> {
    const [cmd = 'true', ...args] = hostArgv(this.root, argv);
    return this.#spawn.run(cmd, args, opts);
  }

  async run(argv: readonly string[], opts?: RunOptions): Promise<HostCommandResult> {
    try {
      const r = await this.#runRaw(argv, opts);
      return { exitCode: r.exitCode ?? 128, stdout: r.stdout, stderr: r.stderr };
    } catch (e) {
      return { exitCode: 127, stdout: '', stderr: (e as Error).message };
    }
  }
}
