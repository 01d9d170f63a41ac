/**
 * firstboot-complete-machineconfig (machine-config-daemon-firstboot.service): applies the non-Ignition parts of
 * the encapsulated MachineConfig (/etc/ignition-machine-config-encapsulated.json) before the kubelet starts: the
 * old config is the empty `mco-empty-mc` at the booted OS image with the kernel arguments already present, the
 * update runs in firstboot mode (legacy actions, no API), the file is renamed to `.bak` and the node reboots.
 */
import { promises as fs } from 'node:fs';
import { splitKernelArguments } from '@keelson/machineconfig';
import type { MachineConfig } from '@keelson/api';
import { emptyMachineConfig } from './config.js';
import { ENCAPSULATED_CONFIG_PATH } from './constants.js';
import type { DaemonContext } from './context.js';
import { update } from './update.js';
import { exists } from './writer.js';

/** The encapsulated config is missing or not a MachineConfig. */
export class FirstbootError extends Error {
  readonly code = 'MCD_FIRSTBOOT';
  constructor(message: string) {
    super(message);
    this.name = 'FirstbootError';
  }
}

/** Result of {@link runFirstboot}. */
export interface FirstbootResult {
  /** Nothing to do (no encapsulated config, or no difference). */
  readonly skipped: boolean;
  /** A reboot was requested. */
  readonly rebooted: boolean;
  /** Name of the encapsulated config. */
  readonly config?: string;
}

/** Runs firstboot in a root that has the encapsulated config; idempotent (re-run after a crash is safe). */
export async function runFirstboot(ctx: DaemonContext): Promise<FirstbootResult> {
  const path = ctx.root.resolve(ENCAPSULATED_CONFIG_PATH);
  if (!(await exists(path))) return { skipped: true, rebooted: false };
  let mc: MachineConfig;
  try {
    mc = JSON.parse(await fs.readFile(path, 'utf8')) as MachineConfig;
  } catch (e) {
    throw new FirstbootError(
      `${ENCAPSULATED_CONFIG_PATH}: cannot read the encapsulated MachineConfig: ${(e as Error).message}`,
    );
  }
  if (typeof mc !== 'object' || typeof mc.metadata !== 'object' || typeof mc.spec !== 'object' || mc.spec === null) {
    throw new FirstbootError(`${ENCAPSULATED_CONFIG_PATH}: not a MachineConfig (needs metadata and spec)`);
  }
  const spec = mc.spec;
  const booted = await ctx.os.bootedImage();
  const have = new Set(await ctx.os.kernelArguments());
  const present = splitKernelArguments(spec.kernelArguments ?? []).filter((k) => have.has(k));
  const old = emptyMachineConfig(booted, present, await ctx.host.fipsEnabled());
  const name = mc.metadata.name ?? '';
  const wantKargs = splitKernelArguments(spec.kernelArguments ?? []);
  const noDiff =
    (spec.osImageURL ?? '') === booted &&
    wantKargs.every((k) => have.has(k)) &&
    (spec.extensions ?? []).length === 0 &&
    ['', 'default'].includes(spec.kernelType ?? '');
  if (noDiff) {
    await fs.rm(path, { force: true });
    return { skipped: true, rebooted: false, config: name };
  }
  // rename before rebooting: the reboot must not rerun firstboot (the daemon finishes from here on)
  const result = await update(ctx, old, mc, {
    firstboot: true,
    beforeReboot: async () => fs.rename(path, `${path}.bak`),
  });
  if (!result.rebooted) await fs.rename(path, `${path}.bak`);
  return { skipped: false, rebooted: result.rebooted, config: name };
}
