/**
 * The virtual host's systemd state: kept in its root (a process started again finds it), read from disk once per
 * host rather than on every systemctl call (thousands of virtual nodes call it for every unit of every update).
 */
import { mkdtempSync, promises as fs, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { HostRoot } from '../src/daemon/root.js';
import { VIRTUAL_STATE_DIR, VirtualHost } from '../src/virtual/host.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('keeps unit enablement and passwords in its root, reading the state file once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vhost-'));
  dirs.push(dir);
  const root = new HostRoot(dir);
  const host = new VirtualHost(root, { onReboot: () => undefined });
  expect((await host.systemctl(['enable', 'a.service', 'b.service'])).exitCode).toBe(0);
  await host.systemctl(['disable', 'b.service']);
  await host.setPasswordHash('core', '$6$x');
  const reads = vi.spyOn(fs, 'readFile');
  expect((await host.systemctl(['is-enabled', 'a.service'])).stdout).toBe('enabled\n');
  expect((await host.systemctl(['is-enabled', 'b.service'])).stdout).toBe('disabled\n');
  expect(await host.passwordHash('core')).toBe('$6$x');
  expect(reads.mock.calls.filter((c) => typeof c[0] === 'string' && c[0].endsWith('systemd.json'))).toHaveLength(0);
  const onDisk = JSON.parse(readFileSync(root.resolve(`${VIRTUAL_STATE_DIR}/systemd.json`), 'utf8')) as unknown;
  expect(onDisk).toEqual({ enabled: { 'a.service': true, 'b.service': false }, passwords: { core: '$6$x' } });
  // a new process (a new host on the same root) finds the state
  const again = new VirtualHost(root, { onReboot: () => undefined });
  expect((await again.systemctl(['is-enabled', 'a.service'])).stdout).toBe('enabled\n');
  expect(await again.passwordHash('core')).toBe('$6$x');
});
