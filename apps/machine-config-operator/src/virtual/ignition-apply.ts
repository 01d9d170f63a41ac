/**
 * What Ignition does on a virtual machine's first boot with the config fetched from the machine-config-server:
 * storage files, systemd units and dropins (with enablement) and the core user's SSH keys, written into the
 * node's root with the daemon's atomic writer.
 */
import { promises as fs } from 'node:fs';
import { parseAndConvertConfig } from '@keelson/ignition';
import type { Host } from '../daemon/host.js';
import type { HostRoot } from '../daemon/root.js';
import { writeSshKeys } from '../daemon/passwd.js';
import { decodeContents } from '../daemon/dataurl.js';
import { SYSTEMD_UNIT_DIR } from '../daemon/constants.js';
import { PreparedDirectories, atomicWrite } from '../daemon/writer.js';
import type { IgnitionConfigV3 } from '@keelson/ignition';

/**
 * Parsed configs by text, the few most recent: the machines of a pool fetch the same config from the
 * machine-config-server, and each parsed and validated it again (the result is read-only).
 */
const parsed = new Map<string, IgnitionConfigV3>();
const PARSED_MAX = 8;

function parsedConfig(text: string): IgnitionConfigV3 {
  let cfg = parsed.get(text);
  if (cfg === undefined) {
    cfg = parseAndConvertConfig(text);
    if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value as string);
  } else parsed.delete(text);
  parsed.set(text, cfg);
  return cfg;
}

/** Applies an Ignition config (any supported spec) to a root; returns the number of files written. */
export async function applyIgnition(root: HostRoot, host: Host, configText: string): Promise<number> {
  const cfg = parsedConfig(configText);
  const dirs = new PreparedDirectories();
  let n = 0;
  for (const f of cfg.storage?.files ?? []) {
    const path = f.path ?? '';
    await atomicWrite(root.resolve(path), decodeContents(f.contents ?? undefined, path), {
      mode: f.mode ?? 0o644,
      dirs,
    });
    n++;
  }
  const enable: string[] = [];
  const disable: string[] = [];
  for (const u of cfg.systemd?.units ?? []) {
    const name = u.name ?? '';
    for (const d of u.dropins ?? []) {
      if ((d.contents ?? '') !== '')
        await atomicWrite(root.resolve(`${SYSTEMD_UNIT_DIR}/${name}.d/${d.name ?? ''}`), d.contents ?? '', { dirs });
    }
    if (u.mask === true) {
      await fs.mkdir(root.resolve(SYSTEMD_UNIT_DIR), { recursive: true });
      await fs.rm(root.resolve(`${SYSTEMD_UNIT_DIR}/${name}`), { force: true });
      await fs.symlink('/dev/null', root.resolve(`${SYSTEMD_UNIT_DIR}/${name}`));
    } else if ((u.contents ?? '') !== '')
      await atomicWrite(root.resolve(`${SYSTEMD_UNIT_DIR}/${name}`), u.contents ?? '', { dirs });
    if (u.enabled === true) enable.push(name);
    if (u.enabled === false) disable.push(name);
  }
  if (enable.length > 0) await host.systemctl(['enable', ...enable]);
  if (disable.length > 0) await host.systemctl(['disable', ...disable]);
  await writeSshKeys(root, cfg.passwd?.users ?? []);
  return n;
}
