/**
 * The `Host` of a virtual node: systemd unit enablement and password hashes kept in a JSON state file inside the
 * node's root (so they survive a restart of the process), service restarts/reloads recorded, the boot id in
 * /var/lib/keelson-virtual/boot-id, and reboots handed to the harness. This is the boundary that cannot exist
 * on a test machine (no systemd, no real reboot); everything else in the daemon runs unchanged.
 */
import { promises as fs } from 'node:fs';
import type { Host, HostCommandResult } from '../daemon/host.js';
import type { HostRoot } from '../daemon/root.js';
import { atomicWrite, exists } from '../daemon/writer.js';

/** Where virtual-machine state lives inside the root. */
export const VIRTUAL_STATE_DIR = '/var/lib/keelson-virtual';

interface SystemdState {
  enabled: Record<string, boolean>;
  passwords: Record<string, string>;
}

/** Options of {@link VirtualHost}. */
export interface VirtualHostOptions {
  /** Called when the daemon reboots the machine (must not wait for the daemon to stop). */
  readonly onReboot: (rationale: string) => void;
  /** Running kernel in FIPS mode. */
  readonly fips?: boolean;
  /** Called for every systemctl call that changes a service (restart, reload, daemon-reload). */
  readonly onServiceAction?: (argv: readonly string[]) => void;
}

const ok = (stdout = ''): HostCommandResult => ({ exitCode: 0, stdout, stderr: '' });

/** A simulated host inside a root directory. */
export class VirtualHost implements Host {
  readonly #root: HostRoot;
  readonly #opts: VirtualHostOptions;
  /** systemctl restart/reload/daemon-reload calls, in order. */
  readonly serviceActions: string[][] = [];
  constructor(root: HostRoot, opts: VirtualHostOptions) {
    this.#root = root;
    this.#opts = opts;
  }

  get #statePath(): string {
    return this.#root.resolve(`${VIRTUAL_STATE_DIR}/systemd.json`);
  }

  /**
   * The state as last read or written: this host is the only writer of its state file, so the file is read once (a
   * process started again finds it there) instead of on every systemctl call of every unit of every node.
   */
  #state: SystemdState | undefined;

  async #load(): Promise<SystemdState> {
    if (this.#state === undefined) {
      try {
        const s = JSON.parse(await fs.readFile(this.#statePath, 'utf8')) as Partial<SystemdState>;
        this.#state = { enabled: s.enabled ?? {}, passwords: s.passwords ?? {} };
      } catch {
        this.#state = { enabled: {}, passwords: {} };
      }
    }
    // a copy: a caller's changes count once they are saved
    return { enabled: { ...this.#state.enabled }, passwords: { ...this.#state.passwords } };
  }

  async #save(s: SystemdState): Promise<void> {
    await atomicWrite(this.#statePath, JSON.stringify(s));
    this.#state = s;
  }

  async systemctl(args: readonly string[]): Promise<HostCommandResult> {
    const [verb, ...units] = args;
    switch (verb) {
      case 'enable':
      case 'disable': {
        const s = await this.#load();
        for (const u of units) s.enabled[u] = verb === 'enable';
        await this.#save(s);
        return ok();
      }
      case 'preset':
        return ok();
      case 'is-enabled': {
        const u = units[0] ?? '';
        const s = await this.#load();
        const file = await exists(this.#root.resolve(`/etc/systemd/system/${u}`));
        const link = await fs.readlink(this.#root.resolve(`/etc/systemd/system/${u}`)).catch(() => '');
        if (link === '/dev/null') return { exitCode: 1, stdout: 'masked\n', stderr: '' };
        const state = s.enabled[u];
        if (state === true) return ok('enabled\n');
        if (state === false || file) return { exitCode: 1, stdout: 'disabled\n', stderr: '' };
        return { exitCode: 1, stdout: 'not-found\n', stderr: '' };
      }
      case 'restart':
      case 'reload':
      case 'stop':
      case 'start':
      case 'daemon-reload':
        this.serviceActions.push([...args]);
        this.#opts.onServiceAction?.(args);
        return ok();
      default:
        return { exitCode: 1, stdout: '', stderr: `virtual host: unsupported systemctl verb ${String(verb)}` };
    }
  }

  async setPasswordHash(user: string, hash: string): Promise<void> {
    const s = await this.#load();
    s.passwords[user] = hash;
    await this.#save(s);
  }

  /** Password hash last set for `user`. */
  async passwordHash(user: string): Promise<string | undefined> {
    return (await this.#load()).passwords[user];
  }

  updateCaTrust(): Promise<void> {
    this.serviceActions.push(['update-ca-trust']);
    return Promise.resolve();
  }

  fipsEnabled(): Promise<boolean> {
    return Promise.resolve(this.#opts.fips ?? false);
  }

  /** Nothing is RPM-owned on a virtual root; distribution files are those with a /usr/etc counterpart. */
  rpmOwned(): Promise<boolean> {
    return Promise.resolve(false);
  }

  async bootId(): Promise<string> {
    return (await fs.readFile(this.#root.resolve(`${VIRTUAL_STATE_DIR}/boot-id`), 'utf8').catch(() => '0')).trim();
  }

  reboot(rationale: string): Promise<void> {
    this.#opts.onReboot(rationale);
    return Promise.resolve();
  }
}
