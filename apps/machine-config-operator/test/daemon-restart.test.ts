/**
 * A virtual machine powered off and on again in the middle of an update (`keelson rehearse --kill daemon@…`):
 * the new daemon must resume the update and finish it, whether the drain was still pending when the machine
 * stopped or the drain controller answered it while the machine was down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ANNOTATIONS, type Node } from '@keelson/api';
import { Informer } from '@keelson/kube';
import { Nodes } from '../src/daemon/cluster.js';
import type { DaemonEvent } from '../src/daemon/events.js';
import { startVirtualNodes, type VirtualNodes } from '../src/virtual/harness.js';
import {
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

/**
 * TEST DOUBLE of the drain controller (as DrainResponder in daemon-helpers.ts) that answers uncordon requests at
 * once but holds drain requests until {@link GatedDrains.open} (the drain "takes long").
 */
class GatedDrains {
  readonly #informer: Informer<Node>;
  readonly #client: TestEnv['client'];
  #open = false;
  constructor(client: TestEnv['client']) {
    this.#client = client;
    this.#informer = new Informer(client, Nodes);
    const handle = (n: Node): void => {
      void this.#answer(n).catch(() => undefined); // retried on the next Node event
    };
    this.#informer.addHandlers({
      add: handle,
      update: (_o, n) => {
        handle(n);
      },
    });
  }
  async start(): Promise<this> {
    this.#informer.start();
    await this.#informer.waitForSync();
    return this;
  }
  /** Lets drains through (and answers the pending ones). */
  async open(): Promise<void> {
    this.#open = true;
    await Promise.all(this.#informer.store.list().map((n) => this.#answer(n)));
  }
  close(): void {
    this.#open = false;
  }
  async stop(): Promise<void> {
    await this.#informer.stop();
  }
  async #answer(n: Node): Promise<void> {
    const a = n.metadata.annotations ?? {};
    const want = a[NODE_ANNOTATIONS.desiredDrain] ?? '';
    if (want === '' || want === a[NODE_ANNOTATIONS.lastAppliedDrain]) return;
    const drain = want.startsWith('drain-');
    if (drain && !this.#open) return;
    await this.#client.resource(Nodes).patch(
      n.metadata.name ?? '',
      {
        spec: { unschedulable: drain ? true : null },
        metadata: { annotations: { [NODE_ANNOTATIONS.lastAppliedDrain]: want } },
      },
      { type: 'merge' },
    );
  }
}

describe('daemon restarted during an update', () => {
  let env: TestEnv;
  let vn: VirtualNodes;
  let drains: GatedDrains;
  const events: DaemonEvent[] = [];

  beforeAll(async () => {
    env = await startEnv();
    drains = await new GatedDrains(env.client).start();
    await createMc(env.client, machineConfig('rendered-worker-1', { files: { '/etc/foo': 'foo\n' } }));
    await createMc(
      env.client,
      machineConfig('rendered-worker-2', { files: { '/etc/foo': 'foo\n' }, kernelArguments: ['quiet'] }),
    );
    await createPool(env.client, 'worker', 'rendered-worker-1');
    vn = await startVirtualNodes({
      client: env.client,
      nodes: [{ name: 'pending-0' }, { name: 'answered-0' }],
      rootDir: env.dir,
      rebootDurationMs: 50,
      syncBackoff: { initialMs: 50, maxMs: 400 },
      onEvent: (e) => events.push(e),
    });
  }, 60_000);

  afterAll(async () => {
    await vn.stop();
    await drains.stop();
    await env.stop();
  });

  const restart = async (node: string): Promise<void> => {
    const m = vn.machines.get(node);
    if (!m) throw new Error(`no machine ${node}`);
    await m.stop();
    await m.start();
  };

  it('restarted while its drain is pending: the new daemon requests it again and completes the update', async () => {
    // no drain controller yet: the drain request stays pending
    await until(
      async () => (await annotation(env.client, 'pending-0', NODE_ANNOTATIONS.state)) === 'Done',
      20_000,
      'pending-0 first boot',
    );
    await setDesired(env.client, 'pending-0', 'rendered-worker-2');
    await until(
      async () =>
        (await annotation(env.client, 'pending-0', NODE_ANNOTATIONS.desiredDrain)) === 'drain-rendered-worker-2',
      20_000,
      'pending-0 drain request',
    );
    const before = vn.machines.get('pending-0')?.daemon;
    await restart('pending-0');
    const after = vn.machines.get('pending-0')?.daemon;
    expect(after).toBeDefined();
    expect(after).not.toBe(before); // a new daemon process, not the stopped one
    await drains.open();
    await untilDone(env.client, 'pending-0', 'rendered-worker-2');
    expect(
      events.filter((e) => e.node === 'pending-0' && e.config === 'rendered-worker-2').map((e) => e.phase),
    ).toEqual(expect.arrayContaining(['draining', 'applying', 'rebooting']));
  }, 30_000);

  it('restarted after the drain controller answered: the new daemon goes on to apply the update', async () => {
    drains.close();
    await until(
      async () => (await annotation(env.client, 'answered-0', NODE_ANNOTATIONS.state)) === 'Done',
      20_000,
      'answered-0 first boot',
    );
    await setDesired(env.client, 'answered-0', 'rendered-worker-2');
    await until(
      async () =>
        (await annotation(env.client, 'answered-0', NODE_ANNOTATIONS.desiredDrain)) === 'drain-rendered-worker-2',
      20_000,
      'answered-0 drain request',
    );
    const m = vn.machines.get('answered-0');
    await m?.stop();
    // the drain controller completes the drain while the machine is down
    await env.client.resource(Nodes).patch(
      'answered-0',
      {
        spec: { unschedulable: true },
        metadata: { annotations: { [NODE_ANNOTATIONS.lastAppliedDrain]: 'drain-rendered-worker-2' } },
      },
      { type: 'merge' },
    );
    await m?.start();
    await untilDone(env.client, 'answered-0', 'rendered-worker-2');
  }, 30_000);
});
