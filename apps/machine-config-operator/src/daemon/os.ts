/**
 * The OS driver: what the daemon needs from rpm-ostree (booted image, kernel arguments, applying the OS part of
 * an update with roll-back, cleanups). `RpmOstreeOs` drives @keelson/ostree's `RpmOstree` with any runner: the real
 * `rpm-ostree` binary, an ostree sysroot (`SysrootRpmOstree`) or the `SimulatedRpmOstree` of virtual nodes.
 */
import { readFile } from 'node:fs/promises';
import {
  RpmOstree,
  applyOsChangesOnHost,
  bootedDeployment,
  isEL10,
  osImageUrlOf,
  type CommandRunner,
} from '@keelson/ostree';
import type { MachineConfig } from '@keelson/api';
import { ExtensionsImage, needsExtensionsRepo } from './extensions-image.js';
import type { HostExec } from './host-exec.js';

/** OS operations of an update (rpm-ostree.go in upstream's daemon). */
export interface OsDriver {
  /** The OS image the node booted ("" when not booted from a container image). */
  bootedImage(): Promise<string>;
  /** Kernel arguments of the booted deployment. */
  kernelArguments(): Promise<string[]>;
  /**
   * Applies the OS part of `oldMc` → `newMc` (rebase, kargs, kernel type, extensions); on failure the pending
   * deployment is removed (`rpm-ostree cleanup -p`) and the error is thrown. Returns the command lines run.
   */
  applyChanges(oldMc: MachineConfig, newMc: MachineConfig, opts: { force: boolean }): Promise<string[]>;
  /** Drops the rollback deployment after a successful boot (`rpm-ostree cleanup -r`). */
  cleanupRollback(): Promise<void>;
  /** Drops a pending deployment (`rpm-ostree cleanup -p`), the roll-back of an OS change. */
  cleanupPending(): Promise<void>;
}

/** {@link OsDriver} over @keelson/ostree's `RpmOstree`. */
export class RpmOstreeOs implements OsDriver {
  readonly driver: RpmOstree;
  readonly #commands: string[] = [];
  readonly #extensions: ExtensionsImage | undefined;
  readonly #osRelease: (() => Promise<string>) | undefined;
  /**
   * `extensions`: the extensions image puller of the host (extensions-image.ts). Without it a config naming
   * `baseOSExtensionsContainerImage` is applied with whatever repos the host already has. `osRelease`: the host's
   * os-release text (a RHEL 10 based host has no `kernel-rt-kvm` in its realtime kernel set); without it the host is
   * taken as RHEL 9 based, as release-4.20's RHCOS is.
   */
  constructor(
    runner?: CommandRunner,
    opts: {
      sleep?: (ms: number) => Promise<void>;
      extensions?: ExtensionsImage;
      osRelease?: () => Promise<string>;
    } = {},
  ) {
    this.#extensions = opts.extensions;
    this.#osRelease = opts.osRelease;
    this.driver = new RpmOstree({
      ...(runner ? { runner } : {}),
      ...(opts.sleep ? { sleep: opts.sleep } : {}),
      onCommand: (argv) => this.#commands.push(argv.join(' ')),
    });
  }
  async bootedImage(): Promise<string> {
    const b = bootedDeployment(await this.driver.status());
    return b ? (osImageUrlOf(b) ?? '') : '';
  }
  async kernelArguments(): Promise<string[]> {
    return this.driver.kargs();
  }
  async applyChanges(oldMc: MachineConfig, newMc: MachineConfig, opts: { force: boolean }): Promise<string[]> {
    const start = this.#commands.length;
    // upstream applyLayeredOSChanges: the coreos-extensions repo (from the extensions image) is in place for every
    // rpm-ostree transaction of the update and removed afterwards, whether they succeeded or not
    const image = newMc.spec?.baseOSExtensionsContainerImage ?? '';
    const cleanup =
      this.#extensions && needsExtensionsRepo(oldMc, newMc) ? await this.#extensions.prepare(image) : undefined;
    try {
      const el10 = this.#osRelease !== undefined && isEL10(await this.#osRelease());
      await applyOsChangesOnHost(this.driver, oldMc, newMc, { force: opts.force, el10 });
    } finally {
      await cleanup?.();
    }
    return this.#commands.slice(start);
  }
  async cleanupRollback(): Promise<void> {
    await this.driver.cleanup({ rollback: true });
  }
  async cleanupPending(): Promise<void> {
    await this.driver.cleanup({ pending: true });
  }
}

/** The OS driver of a real host: `rpm-ostree` and the extensions image's podman, both through the host's `HostExec`. */
export function hostOsDriver(exec: HostExec): RpmOstreeOs {
  return new RpmOstreeOs(exec.runner, {
    extensions: new ExtensionsImage({ root: exec.root, runner: exec.runner }),
    osRelease: () =>
      readFile(exec.root.resolve('/etc/os-release'), 'utf8').catch(() =>
        readFile(exec.root.resolve('/usr/lib/os-release'), 'utf8').catch(() => ''),
      ),
  });
}
