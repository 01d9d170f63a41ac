/** rpm-ostree's pull secret link (upstream useMergedPullSecrets / linkAuthFile) on a real directory tree as the host root. */
import { mkdtempSync, mkdirSync, readlinkSync, rmSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostRoot } from '../src/daemon/root.js';
import {
  INTERNAL_REGISTRY_AUTH_FILE,
  KUBELET_AUTH_FILE,
  OSTREE_AUTH_FILE,
  useMergedPullSecrets,
} from '../src/daemon/pull-secret.js';

describe('useMergedPullSecrets', () => {
  let dir: string;
  let root: HostRoot;
  const put = (p: string, text: string): void => {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  };
  const link = (): string => readlinkSync(join(dir, OSTREE_AUTH_FILE));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcd-pull-secret-'));
    root = new HostRoot(dir);
    put(KUBELET_AUTH_FILE, '{"auths":{}}');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('links the cluster pull secret when there is no merged secret (creating /run/ostree)', async () => {
    await useMergedPullSecrets(root);
    expect(link()).toBe(KUBELET_AUTH_FILE);
    expect(lstatSync(join(dir, OSTREE_AUTH_FILE)).isSymbolicLink()).toBe(true);
  });

  it('links the merged secret once it is valid JSON, replacing the older link; invalid JSON falls back', async () => {
    await useMergedPullSecrets(root);
    put(INTERNAL_REGISTRY_AUTH_FILE, '{"auths":{"image-registry.openshift-image-registry.svc:5000":{}}}');
    await useMergedPullSecrets(root);
    expect(link()).toBe(INTERNAL_REGISTRY_AUTH_FILE);
    put(INTERNAL_REGISTRY_AUTH_FILE, '{not json');
    await useMergedPullSecrets(root);
    expect(link()).toBe(KUBELET_AUTH_FILE);
  });
});
