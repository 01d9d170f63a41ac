import { startSandbox } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, test } from 'vitest';
import { ConfigMaps, Controller, Informer, KubeClient } from '../src/index.js';

const N = 5000;
const keys = Array.from({ length: N }, (_, i) => `default/cm-${i}`);

test('Controller reconcile throughput (no-op reconcile)', async ({ bench }) => {
  const drain = async (workers: number): Promise<void> => {
    let left = N;
    let release: () => void = () => undefined;
    const done = new Promise<void>((r) => (release = r));
    const c = new Controller({
      name: `bench-${workers}`,
      workers,
      reconcile: () => {
        if (--left === 0) release();
        return Promise.resolve(undefined);
      },
    });
    const running = c.run();
    for (const k of keys) c.enqueue(k);
    await done;
    await c.stop();
    await running;
  };
  await bench.compare(
    bench(`${N} keys, 1 worker`, () => drain(1)),
    bench(`${N} keys, 8 workers`, () => drain(8)),
    { time: 1500 },
  );
});

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let client: KubeClient;
const OBJECTS = 2000;
beforeAll(async () => {
  sandbox = await startSandbox();
  client = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
  const t = sandbox.cluster.findType('', 'v1', 'configmaps');
  if (t === undefined) throw new Error('no configmaps type');
  for (let i = 0; i < OBJECTS; i++)
    sandbox.cluster.create(t, 'default', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `bench-${i}`, namespace: 'default', labels: { i: String(i % 10) } },
      data: { v: '0' },
    });
});
afterAll(async () => {
  await client.close();
  await sandbox.stop();
});

test('Informer over real HTTP (sandbox on 127.0.0.1)', async ({ bench }) => {
  const t = sandbox.cluster.findType('', 'v1', 'configmaps');
  if (t === undefined) throw new Error('no configmaps type');
  let round = 0;
  await bench.compare(
    bench(`initial list of ${OBJECTS} ConfigMaps (pages of 500) into the cache`, async () => {
      const inf = new Informer(client, ConfigMaps, { namespace: 'default' });
      inf.start();
      await inf.waitForSync();
      await inf.stop();
    }),
    bench(`list + ${OBJECTS} watch updates delivered to the cache`, async () => {
      const inf = new Informer(client, ConfigMaps, { namespace: 'default' });
      round++;
      let updates = 0;
      let release: () => void = () => undefined;
      const all = new Promise<void>((r) => (release = r));
      inf.addHandlers({
        update: () => {
          if (++updates === OBJECTS) release();
        },
      });
      inf.start();
      await inf.waitForSync();
      for (let i = 0; i < OBJECTS; i++) {
        const cur = sandbox.cluster.peek(t, 'default', `bench-${i}`);
        if (cur !== undefined)
          sandbox.cluster.update(t, 'default', `bench-${i}`, { ...cur, data: { v: String(round) } });
      }
      await all;
      await inf.stop();
    }),
    { time: 3000 },
  );
});
