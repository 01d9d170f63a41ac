/**
 * A failed update rolls back in upstream's order and says so when the roll-back itself fails (issue 24 §6; upstream
 * pkg/daemon/update.go update(): the deferred OS roll-back runs before the files one, each wrapping its error as
 * `error rolling back …: [rollback error, update error]`), so the node's Degraded reason tells whether the disk
 * still holds the new config. Real files under a temporary host root; the OS driver fails on purpose.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nullLogger } from '@keelson/kube';
import type { DaemonContext } from '../src/daemon/context.js';
import { DEFAULT_DRAIN_TIMEOUTS } from '../src/daemon/drain.js';
import type { Host } from '../src/daemon/host.js';
import type { OsDriver } from '../src/daemon/os.js';
import { HostRoot } from '../src/daemon/root.js';
import { update } from '../src/daemon/update.js';
import { machineConfig } from './daemon-helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const host: Host = {
  systemctl: () => Promise.resolve({ exitCode: 0, stdout: '', stderr: '' }),
  setPasswordHash: () => Promise.resolve(),
  updateCaTrust: () => Promise.resolve(),
  fipsEnabled: () => Promise.resolve(false),
  rpmOwned: () => Promise.resolve(false),
  bootId: () => Promise.resolve('boot-1'),
  reboot: () => Promise.resolve(),
};

function failingOs(cleanupFails: boolean): OsDriver & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    bootedImage: () => Promise.resolve('quay.io/os@sha256:1'),
    kernelArguments: () => Promise.resolve([]),
    applyChanges: () => {
      calls.push('apply');
      return Promise.reject(new Error('error running rpm-ostree rebase: exit status 1'));
    },
    cleanupRollback: () => Promise.resolve(),
    cleanupPending: () => {
      calls.push('cleanup -p');
      return cleanupFails
        ? Promise.reject(new Error('error running rpm-ostree cleanup -p: exit status 1'))
        : Promise.resolve();
    },
  };
}

function setup(cleanupFails: boolean): { ctx: DaemonContext; os: ReturnType<typeof failingOs>; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcd-rollback-'));
  dirs.push(dir);
  const os = failingOs(cleanupFails);
  const ctx: DaemonContext = {
    nodeName: 'n1',
    root: new HostRoot(dir),
    host,
    os,
    logger: nullLogger,
    drainTimeouts: DEFAULT_DRAIN_TIMEOUTS,
    signal: new AbortController().signal,
  };
  return { ctx, os, file: join(dir, 'etc/foo') };
}

const oldMc = machineConfig('rendered-a', { files: { '/etc/foo': 'old\n' }, osImageURL: 'quay.io/os@sha256:1' });
const newMc = machineConfig('rendered-b', { files: { '/etc/foo': 'new\n' }, osImageURL: 'quay.io/os@sha256:2' });

describe('update roll-back', () => {
  it('restores the old files after a failed OS update and rethrows the update error', async () => {
    const { ctx, os, file } = setup(false);
    await expect(update(ctx, oldMc, newMc, { firstboot: true })).rejects.toThrow(
      /^error running rpm-ostree rebase: exit status 1$/,
    );
    expect(os.calls).toEqual(['apply', 'cleanup -p']);
    expect(readFileSync(file, 'utf8')).toBe('old\n');
  });

  it('says the disk was not restored when the OS roll-back fails (upstream wording)', async () => {
    const { ctx } = setup(true);
    await expect(update(ctx, oldMc, newMc, { firstboot: true })).rejects.toThrow(
      'error rolling back changes to OS: [error running rpm-ostree cleanup -p: exit status 1, error running rpm-ostree rebase: exit status 1]',
    );
  });
});
