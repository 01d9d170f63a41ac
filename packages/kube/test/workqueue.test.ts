import { describe, expect, it } from 'vitest';
import { ItemExponentialFailureRateLimiter, Registry, WorkQueue } from '../src/index.js';
import { ManualClock } from './manual-clock.js';

async function take<T>(q: WorkQueue<T>): Promise<T> {
  const r = await q.get();
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.item;
}

describe('WorkQueue', () => {
  it('dedupes queued keys and keeps FIFO order', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await take(q)).toBe('a');
    expect(await take(q)).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('never hands an item being processed to a second worker; re-adds are queued at done()', async () => {
    const q = new WorkQueue<string>();
    q.add('x');
    const first = await take(q);
    q.add('x');
    q.add('x');
    expect(q.len()).toBe(0);
    expect(q.processingCount()).toBe(1);
    let second: string | undefined;
    const p = take(q).then((v) => (second = v));
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done(first);
    await p;
    expect(second).toBe('x');
    q.done('x');
    expect(q.len()).toBe(0);
  });

  it('wakes waiting getters in order and returns shutdown after shutDown()', async () => {
    const q = new WorkQueue<number>();
    const a = q.get();
    const b = q.get();
    q.add(1);
    expect(await a).toEqual({ shutdown: false, item: 1 });
    q.shutDown();
    expect(await b).toEqual({ shutdown: true });
    q.add(2);
    expect(q.len()).toBe(0);
    expect(await q.get()).toEqual({ shutdown: true });
  });

  it('hands out already-queued items after shutDown, then reports shutdown', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.shutDown();
    expect(await q.get()).toEqual({ shutdown: false, item: 'a' });
    expect(await q.get()).toEqual({ shutdown: true });
  });

  it('shutDownWithDrain waits for in-flight items', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const item = await take(q);
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    q.done(item);
    await p;
    expect(drained).toBe(true);
  });

  it('addAfter delays items; the sooner of two delays wins; duplicates collapse', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter('a', 100);
    q.addAfter('b', 50);
    q.addAfter('a', 30);
    q.addAfter('a', 500);
    expect(q.waitingCount()).toBe(2);
    clock.advance(29);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(await take(q)).toBe('a');
    clock.advance(20);
    expect(await take(q)).toBe('b');
    clock.advance(1000);
    expect(q.len()).toBe(0);
    expect(q.waitingCount()).toBe(0);
    q.addAfter('c', 0);
    expect(q.len()).toBe(1);
  });

  it('addRateLimited backs off exponentially per item; forget resets it', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000) });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = clock.now();
      q.addRateLimited('k');
      for (let guard = 0; q.len() === 0 && guard < 10_000; guard++) clock.advance(1);
      delays.push(clock.now() - start);
      q.done(await take(q));
    }
    expect(delays).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues('k')).toBe(4);
    q.forget('k');
    expect(q.numRequeues('k')).toBe(0);
  });

  it('shutDown drops delayed items and cancels the timer', () => {
    const clock = new ManualClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter('a', 10);
    expect(clock.pending()).toBe(1);
    q.shutDown();
    expect(clock.pending()).toBe(0);
    clock.advance(100);
    expect(q.len()).toBe(0);
  });

  it('records client-go workqueue metrics', async () => {
    const registry = new Registry();
    const q = new WorkQueue<string>({ name: 'pools', registry });
    const q2 = new WorkQueue<string>({ name: 'nodes', registry }); // same registry: no duplicate registration
    q.add('a');
    q.add('b');
    q2.add('z');
    const item = await take(q);
    q.done(item);
    q.addAfter('c', 0);
    const text = await registry.metrics();
    expect(text).toMatch(/workqueue_adds_total\{name="pools"\} 3/);
    expect(text).toMatch(/workqueue_adds_total\{name="nodes"\} 1/);
    expect(text).toMatch(/workqueue_depth\{name="pools"\} 2/);
    expect(text).toMatch(/workqueue_retries_total\{name="pools"\} 1/);
    expect(text).toMatch(/workqueue_work_duration_seconds_count\{name="pools"\} 1/);
  });

  it('keeps order across internal buffer compaction', async () => {
    const q = new WorkQueue<number>();
    const n = 5000;
    for (let i = 0; i < n; i++) q.add(i);
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i === 3000) for (let j = n; j < n + 10; j++) q.add(j);
      const v = await take(q);
      out.push(v);
      q.done(v);
    }
    for (let i = 0; i < 10; i++) out.push(await take(q));
    expect(out).toEqual(Array.from({ length: n + 10 }, (_, i) => i));
  });
});
