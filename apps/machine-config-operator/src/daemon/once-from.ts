/**
 * `machine-config-daemon start --once-from FILE`: applies one config to the host without a cluster, as upstream's
 * daemon does for firstboot and CI (openshift/machine-config-operator pkg/daemon/daemon.go `RunOnceFrom`,
 * `runOnceFromMachineConfig` / `runOnceFromIgnition`). FILE is a MachineConfig (JSON or YAML) or a bare Ignition
 * config (JSON); the old config is the on-disk currentconfig, or an empty one at the booted OS image. Files, units,
 * users and the OS are written through the host root and `HostExec` like any update; then the host reboots unless
 * `--skip-reboot`.
 */
import { promises as fs } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { splitKernelArguments } from '@keelson/machineconfig';
import type { MachineConfig } from '@keelson/api';
import { emptyMachineConfig } from './config.js';
import type { DaemonContext } from './context.js';
import { readOnDiskConfig } from './daemon.js';
import { update, type UpdateResult } from './update.js';

/** Largest config file accepted. */
export const MAX_ONCE_FROM_BYTES = 32 * 1024 * 1024;

/** FILE is not a MachineConfig or an Ignition config. */
export class OnceFromError extends Error {
  readonly code = 'MCD_ONCE_FROM';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`--once-from ${file}: ${message}`);
    this.name = 'OnceFromError';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads FILE as a MachineConfig (an Ignition config becomes one at the booted image). */
export async function readOnceFrom(file: string, bootedImage: string): Promise<MachineConfig> {
  const st = await fs.stat(file).catch((e: unknown) => {
    throw new OnceFromError(file, (e as Error).message);
  });
  if (!st.isFile()) throw new OnceFromError(file, 'not a regular file');
  if (st.size > MAX_ONCE_FROM_BYTES) throw new OnceFromError(file, `larger than ${MAX_ONCE_FROM_BYTES} bytes`);
  const text = await fs.readFile(file, 'utf8');
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new OnceFromError(file, `neither JSON nor YAML: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new OnceFromError(file, 'expected an object (a MachineConfig or an Ignition config)');
  if (doc['kind'] === 'MachineConfig') {
    if (!isObject(doc['metadata']) || !isObject(doc['spec']))
      throw new OnceFromError(file, 'a MachineConfig needs metadata and spec');
    const mc = doc as unknown as MachineConfig;
    return { ...mc, metadata: { ...mc.metadata, name: mc.metadata.name ?? 'once-from' } };
  }
  if (isObject(doc['ignition']) && typeof doc['ignition']['version'] === 'string') {
    return {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: 'once-from-ignition' },
      spec: { config: doc, osImageURL: bootedImage },
    };
  }
  throw new OnceFromError(file, 'not a MachineConfig (kind: MachineConfig) nor an Ignition config (ignition.version)');
}

/** Applies FILE once (no cluster access in `ctx`). */
export async function runOnceFrom(ctx: DaemonContext, file: string): Promise<UpdateResult & { config: string }> {
  const booted = await ctx.os.bootedImage();
  const mc = await readOnceFrom(file, booted);
  const onDisk = await readOnDiskConfig(ctx);
  const have = new Set(await ctx.os.kernelArguments());
  const present = splitKernelArguments(mc.spec?.kernelArguments ?? []).filter((k) => have.has(k));
  const old = onDisk ?? emptyMachineConfig(booted, present, await ctx.host.fipsEnabled());
  ctx.logger.info('applying config once', { file, from: old.metadata.name ?? '', to: mc.metadata.name ?? '' });
  const result = await update(ctx, old, mc, { firstboot: true });
  return { ...result, config: mc.metadata.name ?? '' };
}
