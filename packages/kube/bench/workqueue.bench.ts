import { test } from 'vitest';
import {
  Indexer,
  ItemExponentialFailureRateLimiter,
  WorkQueue,
  defaultControllerRateLimiter,
  labelIndex,
  namespaceIndex,
  type KubeObject,
} from '../src/index.js';

const N = 10_000;
const keys = Array.from({ length: N }, (_, i) => `ns-${i % 50}/obj-${i}`);

test('WorkQueue', async ({ bench }) => {
  await bench.compare(
    bench(`add + get + done, ${N} distinct keys (items/s = ops × ${N})`, async () => {
      const q = new WorkQueue<string>();
      for (const k of keys) q.add(k);
      for (let i = 0; i < N; i++) {
        const r = await q.get();
        if (!r.shutdown) q.done(r.item);
      }
    }),
    bench(`add with 10× duplicates (dedupe), ${N} keys`, () => {
      const q = new WorkQueue<string>();
      for (let j = 0; j < 10; j++) for (const k of keys) q.add(k);
      if (q.len() !== N) throw new Error('dedupe broken');
    }),
    bench(`4 concurrent workers draining ${N} keys`, async () => {
      const q = new WorkQueue<string>();
      for (const k of keys) q.add(k);
      q.shutDown();
      const worker = async (): Promise<void> => {
        for (;;) {
          const r = await q.get();
          if (r.shutdown) return;
          q.done(r.item);
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
    }),
    bench(`addAfter ${N} keys (delay heap)`, () => {
      const q = new WorkQueue<string>();
      for (let i = 0; i < N; i++) q.addAfter(keys[i] as string, 60_000 + ((i * 7919) % 10_000));
      q.shutDown();
    }),
    { time: 1500 },
  );
});

test('rate limiters', async ({ bench }) => {
  await bench.compare(
    bench(`default controller limiter when() × ${N}`, () => {
      const l = defaultControllerRateLimiter();
      for (const k of keys) l.when(k);
    }),
    bench(`item exponential when() + forget() × ${N}`, () => {
      const l = new ItemExponentialFailureRateLimiter<string>();
      for (const k of keys) l.when(k);
      for (const k of keys) l.forget(k);
    }),
    { time: 1500 },
  );
});

test('Indexer', async ({ bench }) => {
  const objs: KubeObject[] = keys.map((k, i) => {
    const [ns, name] = k.split('/') as [string, string];
    return {
      metadata: { name, namespace: ns, resourceVersion: String(i), labels: { role: i % 2 ? 'worker' : 'master' } },
    };
  });
  const filled = new Indexer<KubeObject>({ namespace: namespaceIndex });
  for (const o of objs) filled.upsert(o);
  await bench.compare(
    bench(`upsert ${N} objects with 2 indexes`, () => {
      const s = new Indexer<KubeObject>({ namespace: namespaceIndex, role: labelIndex('role') });
      for (const o of objs) s.upsert(o);
    }),
    bench(`byIndex('namespace') lookups × 50 over ${N} objects`, () => {
      for (let i = 0; i < 50; i++)
        if (filled.byIndex('namespace', `ns-${i}`).length !== N / 50) throw new Error('index broken');
    }),
    { time: 1500 },
  );
});
