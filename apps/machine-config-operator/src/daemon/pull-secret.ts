/**
 * rpm-ostree's access to the cluster's pull secrets (openshift/machine-config-operator pkg/daemon/image_manager_helper.go
 * useMergedPullSecrets / linkAuthFile): `/run/ostree/auth.json`, where rpm-ostree looks for registry credentials, is
 * a symlink to the merged secret the MCO writes (`/etc/mco/internal-registry-pull-secret.json`: internal registry +
 * global pull secret), or to the kubelet's pull secret (`/var/lib/kubelet/config.json`) when the merged one is
 * missing, unreadable or not JSON. Host paths under the daemon's root; the link names the host path, since rpm-ostree
 * resolves it on the host.
 */
import { promises as fs } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '@keelson/kube';
import type { HostRoot } from './root.js';

/** Where rpm-ostree reads registry credentials. */
export const OSTREE_AUTH_FILE = '/run/ostree/auth.json';
/** The cluster pull secret the kubelet uses. */
export const KUBELET_AUTH_FILE = '/var/lib/kubelet/config.json';
/** Internal registry pull secret + global pull secret, written by the MCO. */
export const INTERNAL_REGISTRY_AUTH_FILE = '/etc/mco/internal-registry-pull-secret.json';

async function usableJson(path: string): Promise<'ok' | 'missing' | 'invalid'> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    return 'invalid';
  }
  try {
    JSON.parse(text);
    return 'ok';
  } catch {
    return 'invalid';
  }
}

/** Points `/run/ostree/auth.json` at `target` (a host path), replacing an older link. */
export async function linkAuthFile(root: HostRoot, target: string, log?: Logger): Promise<void> {
  const link = root.resolve(OSTREE_AUTH_FILE);
  try {
    await fs.lstat(link);
    await fs.rm(link);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    await fs.mkdir(dirname(link), { recursive: true, mode: 0o544 });
  }
  log?.info(`Linking rpm-ostree authfile to ${target}`);
  await fs.symlink(target, link);
}

/** Gives rpm-ostree the merged pull secrets, else the cluster pull secret (upstream useMergedPullSecrets). */
export async function useMergedPullSecrets(root: HostRoot, log?: Logger): Promise<void> {
  const merged = await usableJson(root.resolve(INTERNAL_REGISTRY_AUTH_FILE));
  if (merged !== 'ok') {
    log?.error(
      merged === 'missing'
        ? 'Merged secret file does not exist; defaulting to cluster pull secret'
        : 'Merged secret file could not be validated; defaulting to cluster pull secret',
    );
    await linkAuthFile(root, KUBELET_AUTH_FILE, log);
    return;
  }
  await linkAuthFile(root, INTERNAL_REGISTRY_AUTH_FILE, log);
}
