/**
 * Per-node update overhead of the daemon with simulated reboot 0: one virtual node moves through a file change
 * that needs drain + reboot (desiredConfig set → Done), and ten nodes do it at once. The drain controller is the
 * test double of test/daemon-helpers.ts. Prints the API requests the daemons made per node update.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import { join } from 'node:path';
import { startVirtualNodes, type VirtualNodes } from '../src/virtual/harness.js';
import {
  DrainResponder,
  createMc,
  createPool,
  machineConfig,
  setDesired,
  setPollInterval,
  startEnv,
  untilDone,
  type TestEnv,
} from '../test/daemon-helpers.js';

let env: TestEnv;
let drains: DrainResponder;
let one: VirtualNodes;
let ten: VirtualNodes;
let version = 0;
let updates = 0;

async function roll(vn: VirtualNodes, names: string[]): Promise<void> {
  version++;
  const name = `rendered-worker-v${version}`;
  await createMc(env.client, machineConfig(name, { files: { '/etc/bench.conf': `v${version}\n` } }));
  await Promise.all(names.map((n) => setDesired(env.client, n, name)));
  await Promise.all(names.map((n) => untilDone(env.client, n, name, 60_000)));
  updates += names.length;
  if (vn.machines.size !== names.length) throw new Error('wrong node set');
}

describe('virtual node update (reboot 0)', () => {
  beforeAll(async () => {
    setPollInterval(5);
    env = await startEnv();
    drains = await new DrainResponder(env.client).start();
    await createMc(env.client, machineConfig('rendered-worker-v0', { files: { '/etc/bench.conf': 'v0\n' } }));
    await createPool(env.client, 'worker', 'rendered-worker-v0');
    one = await startVirtualNodes({ client: env.client, nodes: [{ name: 'solo' }], rootDir: join(env.dir, 'one') });
    ten = await startVirtualNodes({
      client: env.client,
      nodes: Array.from({ length: 10 }, (_, i) => ({ name: `w${i}` })),
      rootDir: join(env.dir, 'ten'),
    });
    await untilDone(env.client, 'solo', 'rendered-worker-v0');
  }, 60_000);

  afterAll(async () => {
    const requests = one.apiRequests() + ten.apiRequests();
    const mcn = one.mcnRequests() + ten.mcnRequests();
    const per = (n: number): string => (n / (updates + 11)).toFixed(2);
    console.log(
      `daemon API requests (MachineConfig GETs + Node patches + Events + MachineConfigNode writes) per node update, incl. first boots: ${per(requests)}; of which MachineConfigNode: ${per(mcn)} (+${((100 * mcn) / Math.max(1, requests - mcn)).toFixed(1)}% over the rest)`,
    );
    await one.stop();
    await ten.stop();
    await drains.stop();
    await env.stop();
  });

  test('update of a file needing drain + reboot(0), desiredConfig → Done', async ({ bench }) => {
    await bench.compare(
      bench('one node', () => roll(one, ['solo'])),
      bench('ten nodes at once', () =>
        roll(
          ten,
          Array.from({ length: 10 }, (_, i) => `w${i}`),
        ),
      ),
      { time: 3000 },
    );
  }, 300_000);
});
