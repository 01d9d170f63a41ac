/**
 * SSH keys and password hashes of the `core` user (update.go updateSSHKeys / SetPasswordHash): every key of every
 * user, each followed by "\n", into /home/core/.ssh/authorized_keys.d/ignition (dir 0700, file 0600, owned by
 * core); password hashes through `usermod -p` (`*` when unset), old users absent from the new config cleared.
 */
import { promises as fs } from 'node:fs';
import type { PasswdUser } from '@keelson/ignition';
import { SSH_KEYS_PATH } from './constants.js';
import type { Host } from './host.js';
import type { HostRoot } from './root.js';
import { atomicWrite } from './writer.js';

async function coreIds(root: HostRoot): Promise<{ uid: number; gid: number } | undefined> {
  const passwd = await fs.readFile(root.resolve('/etc/passwd'), 'utf8').catch(() => '');
  for (const line of passwd.split('\n')) {
    const f = line.split(':');
    if (f[0] === 'core') return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  return undefined;
}

/** Writes the SSH keys of `users` (a missing `core` user means nothing to do, as upstream). */
export async function writeSshKeys(root: HostRoot, users: readonly PasswdUser[]): Promise<void> {
  const ids = await coreIds(root);
  if (ids === undefined) return;
  const content = users
    .flatMap((u) => u.sshAuthorizedKeys ?? [])
    .map((k) => `${k}\n`)
    .join('');
  const dir = root.resolve('/home/core/.ssh/authorized_keys.d');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await atomicWrite(root.resolve(SSH_KEYS_PATH), content, { mode: 0o600, ...ids });
}

/** Sets password hashes; users only in `oldUsers` get an empty hash. */
export async function setPasswords(
  root: HostRoot,
  host: Host,
  oldUsers: readonly PasswdUser[],
  newUsers: readonly PasswdUser[],
): Promise<void> {
  if ((await coreIds(root)) === undefined) return;
  for (const u of newUsers) {
    const hash = u.passwordHash ?? '';
    await host.setPasswordHash(u.name ?? '', hash === '' ? '*' : hash);
  }
  const keep = new Set(newUsers.map((u) => u.name));
  for (const u of oldUsers) if (!keep.has(u.name)) await host.setPasswordHash(u.name ?? '', '');
}
