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
import { atomicWrite } from '../daemon/writer.js';

/** Applies an Ignition config (any supported spec) to a root; returns the number of files written. */
export async function applyIgnition(root: HostRoot, host: Host, configText: string): Promise<number> {
  const cfg = parseAndConvertConfig(configText);
  let n = 0;
  for (const f of cfg.storage?.files ?? []) {
    const path = f.path ?? '';
    await atomicWrite(root.resolve(path), decodeContents(f.contents ?? undefined, path), { mode: f.mode ?? 0o644 });
    n++;
  }
  const enable: string[] = [];
  const disable: string[] = [];
  for (const u of cfg.systemd?.units ?? []) {
    const name = u.name ?? '';
    for (const d of u.dropins ?? []) {
      if ((d.contents ?? '') !== '')
        await atomicWrite(root.resolve(`${SYSTEMD_UNIT_DIR}/${name}.d/${d.name ?? ''}`), d.contents ?? '');
    }
    if (u.mask === true) {
      await fs.mkdir(root.resolve(SYSTEMD_UNIT_DIR), { recursive: true });
      await fs.rm(root.resolve(`${SYSTEMD_UNIT_DIR}/${name}`), { force: true });
      await fs.symlink('/dev/null', root.resolve(`${SYSTEMD_UNIT_DIR}/${name}`));
    } else if ((u.contents ?? '') !== '')
      await atomicWrite(root.resolve(`${SYSTEMD_UNIT_DIR}/${name}`), u.contents ?? '');
    if (u.enabled === true) enable.push(name);
    if (u.enabled === false) disable.push(name);
  }
  if (enable.length > 0) await host.systemctl(['enable', ...enable]);
  if (disable.length > 0) await host.systemctl(['disable', ...disable]);
  await writeSshKeys(root, cfg.passwd?.users ?? []);
  return n;
}
