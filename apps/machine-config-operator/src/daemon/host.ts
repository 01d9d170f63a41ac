/**
 * The host effects of the daemon that are not plain files: systemctl, reboot, passwords, the FIPS flag and the
 * boot id. `CommandHost` runs the real commands (a CoreOS node, the daemon chrooted or not); the virtual nodes use
 * `VirtualHost` (src/virtual/host.ts). Files go through the root directory (see root.ts), the OS through an
 * OsDriver (os.ts).
 */
import { readFile } from 'node:fs/promises';
import { ChrootHostExec, type HostCommandResult, type HostExec } from './host-exec.js';

export type { HostCommandResult } from './host-exec.js';

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

/**
 * The real host: systemctl, usermod, update-ca-trust, rpm and systemd-run through one {@link HostExec} (inside the
 * host root), /proc read under the root (the host's /proc once chrooted, as upstream reads it after its chroot).
 */
export class CommandHost implements Host {
  readonly exec: HostExec;
  constructor(exec: HostExec = new ChrootHostExec('/')) {
    this.exec = exec;
  }
  async #mustRun(argv: readonly string[]): Promise<HostCommandResult> {
    const r = await this.exec.run(argv);
    if (r.exitCode !== 0) throw new HostCommandError(argv, r);
    return r;
  }
  async systemctl(args: readonly string[]): Promise<HostCommandResult> {
    return this.exec.run(['systemctl', ...args]);
  }
  async setPasswordHash(user: string, hash: string): Promise<void> {
    await this.#mustRun(['usermod', '-p', hash, user]);
  }
  async updateCaTrust(): Promise<void> {
    await this.#mustRun(['update-ca-trust']);
  }
  async fipsEnabled(): Promise<boolean> {
    try {
      return (await readFile(this.exec.root.resolve('/proc/sys/crypto/fips_enabled'), 'utf8')).trim() === '1';
    } catch {
      return false;
    }
  }
  async rpmOwned(path: string): Promise<boolean> {
    return (await this.exec.run(['rpm', '-qf', path])).exitCode === 0;
  }
  async bootId(): Promise<string> {
    return (await readFile(this.exec.root.resolve('/proc/sys/kernel/random/boot_id'), 'utf8')).trim();
  }
  async reboot(rationale: string): Promise<void> {
    // upstream pkg/daemon/update.go reboot(): a transient unit ordered after ostree-finalize-staged
    const r = await this.exec.run([
      'systemd-run',
      '--unit',
      'machine-config-daemon-reboot',
      '--description',
      `machine-config-daemon: ${rationale}`,
      '-p',
      'Requires=ostree-finalize-staged.service',
      '-p',
      'After=ostree-finalize-staged.service',
      '/bin/sh',
      '-c',
      'systemctl reboot',
    ]);
    if (r.exitCode !== 0) throw new Error('reboot command failed, something is seriously wrong');
  }
}
