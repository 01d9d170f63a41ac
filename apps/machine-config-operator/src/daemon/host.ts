/**
 * The host effects of the daemon that are not plain files: systemctl, reboot, passwords, the FIPS flag and the
 * boot id. `CommandHost` runs the real commands (a CoreOS node, the daemon chrooted or not); the virtual nodes use
 * `VirtualHost` (src/virtual/host.ts). Files go through the root directory (see root.ts), the OS through an
 * OsDriver (os.ts).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Result of one host command. */
export interface HostCommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Host effects the daemon needs. */
export interface Host {
  /** Runs `systemctl <args>` (enable, disable, preset, is-enabled, restart, reload, daemon-reload). */
  systemctl(args: readonly string[]): Promise<HostCommandResult>;
  /** Sets a password hash (`usermod -p <hash> <user>`); "" clears it. */
  setPasswordHash(user: string, hash: string): Promise<void>;
  /** Runs `update-ca-trust`. */
  updateCaTrust(): Promise<void>;
  /** Whether the running kernel is in FIPS mode (`/proc/sys/crypto/fips_enabled`). */
  fipsEnabled(): Promise<boolean>;
  /** Whether an RPM owns this host path (`rpm -qf`). */
  rpmOwned(path: string): Promise<boolean>;
  /** Identifier of the current boot (changes with every reboot). */
  bootId(): Promise<string>;
  /** Reboots the machine (`systemd-run --unit machine-config-daemon-reboot … systemctl reboot`). Does not return on a real host. */
  reboot(rationale: string): Promise<void>;
}

/** A host command failed. */
export class HostCommandError extends Error {
  readonly code = 'MCD_HOST_COMMAND';
  constructor(
    readonly argv: readonly string[],
    readonly result: HostCommandResult,
  ) {
    super(`error running ${argv.join(' ')}: ${result.stderr.trim()}: exit status ${result.exitCode}`);
    this.name = 'HostCommandError';
  }
}

function run(argv: readonly string[]): Promise<HostCommandResult> {
  const [cmd, ...args] = argv;
  return new Promise((resolve) => {
    execFile(cmd ?? 'true', args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 127;
      resolve({ exitCode: code, stdout, stderr: stderr || (err && code === 127 ? err.message : '') });
    });
  });
}

async function mustRun(argv: readonly string[]): Promise<HostCommandResult> {
  const r = await run(argv);
  if (r.exitCode !== 0) throw new HostCommandError(argv, r);
  return r;
}

/** The real host: runs systemctl, usermod, update-ca-trust and systemd-run. */
export class CommandHost implements Host {
  async systemctl(args: readonly string[]): Promise<HostCommandResult> {
    return run(['systemctl', ...args]);
  }
  async setPasswordHash(user: string, hash: string): Promise<void> {
    await mustRun(['usermod', '-p', hash, user]);
  }
  async updateCaTrust(): Promise<void> {
    await mustRun(['update-ca-trust']);
  }
  async fipsEnabled(): Promise<boolean> {
    try {
      return (await readFile('/proc/sys/crypto/fips_enabled', 'utf8')).trim() === '1';
    } catch {
      return false;
    }
  }
  async rpmOwned(path: string): Promise<boolean> {
    return (await run(['rpm', '-qf', path])).exitCode === 0;
  }
  async bootId(): Promise<string> {
    return (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
  }
  async reboot(rationale: string): Promise<void> {
    const r = await run([
      'systemd-run', '--unit', 'machine-config-daemon-reboot', '--description', `machine-config-daemon: ${rationale}`,
      '-p', 'Requires=ostree-finalize-staged.service', '-p', 'After=ostree-finalize-staged.service',
      '/bin/sh', '-c', 'systemctl reboot',
    ]);
    if (r.exitCode !== 0) throw new Error('reboot command failed, something is seriously wrong');
  }
}
