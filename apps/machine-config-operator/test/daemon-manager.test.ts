/**
 * The daemon on its process Manager (the bin's runManaged): its Node, MachineConfigNode and ControllerConfig
 * informers are the Manager's shared ones (`mgr.informer()`: the same instances another caller gets), started by the
 * daemon before the Manager starts; the daemon's stop leaves them to the Manager, which stops them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerConfigs, Manager, MachineConfigNodes, nullLogger } from '@keelson/kube';
import type { Host } from '../src/daemon/host.js';
import type { OsDriver } from '../src/daemon/os.js';
import { Nodes } from '../src/daemon/cluster.js';
import { startMachineConfigDaemon } from '../src/daemon/start.js';
import { startEnv, type TestEnv } from './daemon-helpers.js';
import { waitFor } from './helpers/cluster.js';

const host: Host = {
  systemctl: () => Promise.resolve({ exitCode: 0, stdout: '', stderr: '' }),
  setPasswordHash: () => Promise.resolve(),
  updateCaTrust: () => Promise.resolve(),
  fipsEnabled: () => Promise.resolve(false),
  rpmOwned: () => Promise.resolve(false),
  bootId: () => Promise.resolve('boot-1'),
  reboot: () => Promise.resolve(),
};
const os: OsDriver = {
  bootedImage: () => Promise.resolve('quay.io/os@sha256:1'),
  kernelArguments: () => Promise.resolve([]),
  applyChanges: () => Promise.resolve([]),
  cleanupRollback: () => Promise.resolve(),
  cleanupPending: () => Promise.resolve(),
};

describe('daemon informers from the Manager', { timeout: 60_000 }, () => {
  let env: TestEnv | undefined;
  let root: string | undefined;
  afterEach(async () => {
    await env?.stop();
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    env = root = undefined;
  });

  it('takes Node, MCN and ControllerConfig informers from the shared cache and leaves them to the Manager', async () => {
    env = await startEnv();
    root = mkdtempSync(join(tmpdir(), 'mcd-manager-'));
    await env.client.resource(Nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const mgr = new Manager({ client: env.client, logger: nullLogger, health: false });
    const d = await startMachineConfigDaemon({
      nodeName: 'n1',
      client: env.client,
      manager: mgr,
      rootMount: root,
      host,
      os,
      logger: nullLogger,
      metrics: false,
    });
    const byName = { fieldSelector: 'metadata.name=n1' };
    // the Manager has not started: a synced informer here is the one the daemon took from its cache and started
    const nodes = mgr.informer(Nodes, byName);
    expect(nodes.hasSynced()).toBe(true);
    expect(nodes.store.get('n1')?.metadata.name).toBe('n1');
    const ccs = mgr.informer(ControllerConfigs, { fieldSelector: 'metadata.name=machine-config-controller' });
    await waitFor('ControllerConfig informer synced', () => (ccs.hasSynced() ? true : undefined));
    expect(ccs.store.get('machine-config-controller')).toBeDefined();
    const mcns = mgr.informer(MachineConfigNodes, byName);
    await waitFor('MCN informer synced', () => (mcns.hasSynced() ? true : undefined));
    await mgr.start();
    await d.stop();
    // the daemon's stop left the shared informers running (the Manager's to stop)
    await env.client.resource(Nodes).patch('n1', { metadata: { labels: { seen: 'after-stop' } } }, { type: 'merge' });
    await waitFor('shared Node informer still watching', () =>
      nodes.store.get('n1')?.metadata.labels?.['seen'] === 'after-stop' ? true : undefined,
    );
    await mgr.stop();
  });
});
