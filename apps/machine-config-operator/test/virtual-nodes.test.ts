/**
 * The virtual-node harness against the embedded API server: progress events, the Node's Ready condition dropping
 * for the reboot duration and coming back, and the injected faults (a file edited by hand after provisioning,
 * a machine that never comes back from its reboot).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ANNOTATIONS, type Node } from '@keelson/api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ControllerConfigs, Events, Informer } from '@keelson/kube';
import { CONTROLLER_CONFIG_RV_ANNOTATION, KUBELET_CA_PATH } from '../src/daemon/certificate-writer.js';
import { Nodes } from '../src/daemon/cluster.js';
import type { DaemonEvent } from '../src/daemon/events.js';
import { startVirtualNodes, type VirtualNodes } from '../src/virtual/harness.js';
import {
  DrainResponder,
  annotation,
  createMc,
  createPool,
  machineConfig,
  setDesired,
  startEnv,
  until,
  untilDone,
  type TestEnv,
} from './daemon-helpers.js';

const ready = (n: Node | undefined): string | undefined =>
  n?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

describe('virtual nodes', () => {
  let env: TestEnv;
  let drains: DrainResponder;
  let vn: VirtualNodes;
  let nodes: Informer<Node>;
  const events: DaemonEvent[] = [];
  const readiness = new Map<string, string[]>();

  beforeAll(async () => {
    env = await startEnv();
    drains = await new DrainResponder(env.client).start();
    nodes = new Informer(env.client, Nodes);
    const record = (n: Node): void => {
      const name = n.metadata.name ?? '';
      const r = ready(n) ?? 'none';
      const seen = readiness.get(name) ?? [];
      if (seen.at(-1) !== r) seen.push(r);
      readiness.set(name, seen);
    };
    nodes.addHandlers({ add: record, update: (_o, n) => record(n) });
    nodes.start();
    await nodes.waitForSync();
    await createMc(env.client, machineConfig('rendered-worker-1', { files: { '/etc/foo': 'foo\n' } }));
    await createPool(env.client, 'worker', 'rendered-worker-1');
    vn = await startVirtualNodes({
      client: env.client,
      nodes: [
        { name: 'ok-0', zone: 'a' },
        { name: 'drift-0', zone: 'b' },
        { name: 'dead-0', zone: 'c', labels: { 'node-role.kubernetes.io/infra': '' } },
      ],
      rootDir: env.dir,
      rebootDurationMs: 400,
      syncBackoff: { initialMs: 50, maxMs: 400 },
      faults: { onDiskDrift: [{ node: 'drift-0', path: '/etc/foo' }], failBootOn: ['dead-0'] },
      onEvent: (e) => events.push(e),
    });
  }, 60_000);

  afterAll(async () => {
    await vn.stop();
    await nodes.stop();
    await drains.stop();
    await env.stop();
  });

  it('registers Nodes with role, zone and extra labels', async () => {
    // the informer sees the Node a moment after startVirtualNodes registered it
    await until(() => ready(nodes.store.get('dead-0')) === 'True', 20_000, 'dead-0 Ready in the informer');
    const dead = nodes.store.get('dead-0');
    expect(dead?.metadata.labels).toMatchObject({
      'node-role.kubernetes.io/worker': '',
      'node-role.kubernetes.io/infra': '',
      'topology.kubernetes.io/zone': 'c',
      'kubernetes.io/hostname': 'dead-0',
    });
    expect(ready(dead)).toBe('True');
  });

  it('each node runs the certificate writer: ControllerConfig CAs on its root, the synced resourceVersion annotated', async () => {
    const cc = await env.client.resource(ControllerConfigs).get('machine-config-controller');
    await until(
      async () =>
        (await annotation(env.client, 'ok-0', CONTROLLER_CONFIG_RV_ANNOTATION)) === cc.metadata.resourceVersion,
      20_000,
      'ok-0 certificates synced',
    );
    const ca = Buffer.from(cc.spec.kubeAPIServerServingCAData ?? '', 'base64').toString();
    expect(readFileSync(join(env.dir, 'ok-0', KUBELET_CA_PATH), 'utf8').trim()).toBe(ca.trim());
    // a rotated CA reaches the node without a MachineConfig
    const next = await env.client.resource(ControllerConfigs).update({
      ...cc,
      spec: { ...cc.spec, kubeAPIServerServingCAData: Buffer.from('ROTATED\n').toString('base64') },
    });
    await until(
      async () =>
        (await annotation(env.client, 'ok-0', CONTROLLER_CONFIG_RV_ANNOTATION)) === next.metadata.resourceVersion,
      20_000,
      'ok-0 rotated CA synced',
    );
    expect(readFileSync(join(env.dir, 'ok-0', KUBELET_CA_PATH), 'utf8')).toBe('ROTATED\n');
  });

  it('a file edited by hand after provisioning degrades that node at boot with the upstream message', async () => {
    await until(
      async () => (await annotation(env.client, 'drift-0', NODE_ANNOTATIONS.state)) === 'Degraded',
      20_000,
      'drift-0 Degraded',
    );
    expect(await annotation(env.client, 'drift-0', NODE_ANNOTATIONS.reason)).toBe(
      'unexpected on-disk state validating against rendered-worker-1: content mismatch for file "/etc/foo"',
    );
    expect(events.some((e) => e.node === 'drift-0' && e.phase === 'degraded')).toBe(true);
  });

  it('a reboot drops Ready for the reboot duration; the update completes with the phases reported', async () => {
    await until(
      async () => (await annotation(env.client, 'ok-0', NODE_ANNOTATIONS.reason)) === '',
      20_000,
      'ok-0 first boot validated',
    );
    await createMc(
      env.client,
      machineConfig('rendered-worker-2', { files: { '/etc/foo': 'foo\n' }, kernelArguments: ['quiet'] }),
    );
    readiness.set('ok-0', ['True']);
    // the machine says it is in a reboot while it is in one (the rehearsal does not call such a node stuck)
    let sawRebooting = false;
    const probe = setInterval(() => {
      if (vn.machines.get('ok-0')?.rebooting === true) sawRebooting = true;
    }, 10);
    const t0 = Date.now();
    await setDesired(env.client, 'ok-0', 'rendered-worker-2');
    await untilDone(env.client, 'ok-0', 'rendered-worker-2');
    clearInterval(probe);
    expect(sawRebooting).toBe(true);
    expect(vn.machines.get('ok-0')?.rebooting).toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
    // Ready dropped during the reboot and came back (the informer may coalesce a state seen before the reset above)
    const seen = readiness.get('ok-0') ?? [];
    expect(seen).toContain('False');
    expect(seen.at(-1)).toBe('True');
    // the daemon reports its last phase just after it wrote state Done: wait for it rather than race it
    const phasesOf = () =>
      events.filter((e) => e.node === 'ok-0' && e.config === 'rendered-worker-2').map((e) => e.phase);
    await until(() => phasesOf().includes('done'), 20_000, 'ok-0 done event');
    const phases = phasesOf();
    expect(phases).toEqual(expect.arrayContaining(['updating', 'draining', 'applying', 'rebooting', 'done']));
    expect(phases.indexOf('draining')).toBeLessThan(phases.indexOf('rebooting'));
    expect(phases.at(-1)).toBe('done');
    // upstream's events of the update: drift monitor stopped before it, uncordon and drift monitor started after it
    await until(
      async () =>
        (await env.client.resource(Events).list({ namespace: 'default' })).items.some(
          (e) =>
            e.involvedObject.name === 'ok-0' &&
            e.reason === 'ConfigDriftMonitorStarted' &&
            e.message?.endsWith('rendered-worker-2') === true,
        ),
      20_000,
      'ok-0 drift monitor started event',
    );
    const seenEvents = (await env.client.resource(Events).list({ namespace: 'default' })).items
      .filter((e) => e.involvedObject.name === 'ok-0')
      .map((e) => `${e.reason ?? ''}: ${e.message ?? ''}`);
    expect(seenEvents).toEqual(
      expect.arrayContaining([
        'ConfigDriftMonitorStopped: Config Drift Monitor stopped',
        'Uncordon: Update completed for config rendered-worker-2 and node has been uncordoned',
        'ConfigDriftMonitorStarted: Config Drift Monitor started, watching against rendered-worker-2',
      ]),
    );
  });

  it('failBootOn: the machine never comes back from its reboot (Ready stays False)', async () => {
    await until(
      async () => (await annotation(env.client, 'dead-0', NODE_ANNOTATIONS.reason)) === '',
      20_000,
      'dead-0 first boot validated',
    );
    await setDesired(env.client, 'dead-0', 'rendered-worker-2');
    await until(() => events.some((e) => e.node === 'dead-0' && e.phase === 'degraded'), 20_000, 'dead-0 boot failure');
    await new Promise((r) => setTimeout(r, 300));
    expect(ready(await env.client.resource(Nodes).get('dead-0'))).toBe('False');
    // its reboot is over (it failed): a NotReady node that is not rebooting is a stuck one
    expect(vn.machines.get('dead-0')?.rebooting).toBe(false);
    expect(await annotation(env.client, 'dead-0', NODE_ANNOTATIONS.postConfigAction)).toBe('Rebooting');
    expect(await annotation(env.client, 'dead-0', NODE_ANNOTATIONS.currentConfig)).toBe('rendered-worker-1');
  });
});
