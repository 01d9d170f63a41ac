import type { Registry } from 'prom-client';
import { realClock, type Clock } from './clock.js';
import { counter, gauge, histogram } from './metrics.js';
import { defaultControllerRateLimiter, type RateLimiter } from './ratelimit.js';

/** Result of {@link WorkQueue.get}: either an item to process or the shutdown signal. */
export type QueueGetResult<T> = { shutdown: false; item: T } | { shutdown: true };

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions<T = string> {
  /** Queue name (the `name` label of the `workqueue_*` metrics). */
  name?: string;
  /** Registry for client-go style `workqueue_*` metrics; none are recorded when absent. */
  registry?: Registry;
  /** Limiter used by `addRateLimited` (default {@link defaultControllerRateLimiter}). */
  rateLimiter?: RateLimiter<T>;
  /** Clock (tests). */
  clock?: Clock;
}

interface Waiting<T> {
  at: number;
  item: T;
}

class Metrics {
  constructor(
    readonly depth: (d: number) => void,
    readonly add: () => void,
    readonly retry: () => void,
    readonly queued: (s: number) => void,
    readonly work: (s: number) => void,
  ) {}
  static of(registry: Registry | undefined, name: string): Metrics | undefined {
    if (registry === undefined) return undefined;
    const l = ['name'] as const;
    const depth = gauge(registry, 'workqueue_depth', 'Current depth of workqueue', l);
    const adds = counter(registry, 'workqueue_adds_total', 'Total number of adds handled by workqueue', l);
    const retries = counter(registry, 'workqueue_retries_total', 'Total number of retries handled by workqueue', l);
    const qd = histogram(
      registry,
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      l,
    );
    const wd = histogram(
      registry,
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes',
      l,
    );
    return new Metrics(
      (d) => {
        depth.set({ name }, d);
      },
      () => {
        adds.inc({ name });
      },
      () => {
        retries.inc({ name });
      },
      (s) => {
        qd.observe({ name }, s);
      },
      (s) => {
        wd.observe({ name }, s);
      },
    );
  }
}

/**
 * A rate-limited, delaying work queue with client-go semantics:
 * - an item queued twice before it is taken is processed once (dirty set);
 * - an item being processed is never handed to a second worker; if it is added meanwhile,
 *   it is queued again when `done()` is called (processing set);
 * - `addAfter` delays an item (the earliest of several pending delays wins);
 * - `addRateLimited` delays by the rate limiter (per-item exponential backoff and a token bucket);
 *   `forget` resets the item's backoff;
 * - `shutDown` makes `get()` return `{ shutdown: true }` once drained of queued items it already took,
 *   `shutDownWithDrain` also waits for in-flight items to be `done()`.
 */
export class WorkQueue<T = string> {
  /** Queue name. */
  readonly name: string;
  private buf: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly addedAt = new Map<T, number>();
  private readonly startedAt = new Map<T, number>();
  private readonly getters: Array<(r: QueueGetResult<T>) => void> = [];
  private shutting = false;
  private drainWaiters: Array<() => void> = [];
  private readonly limiter: RateLimiter<T>;
  private readonly clock: Clock;
  private readonly metrics: Metrics | undefined;
  // delaying part: min-heap by time, plus item -> ready time for dedupe
  private readonly heap: Waiting<T>[] = [];
  private readonly waitingAt = new Map<T, number>();
  private cancelTimer: (() => void) | undefined;
  private timerAt = Infinity;

  constructor(options: WorkQueueOptions<T> = {}) {
    this.name = options.name ?? 'default';
    this.clock = options.clock ?? realClock;
    this.limiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
    this.metrics = Metrics.of(options.registry, this.name);
  }

  /** Number of items waiting to be taken (not counting delayed or in-flight items). */
  len(): number {
    return this.buf.length - this.head;
  }

  /** Number of items currently being processed. */
  processingCount(): number {
    return this.processing.size;
  }

  /** Number of items waiting for a delay (`addAfter`/`addRateLimited`). */
  waitingCount(): number {
    return this.waitingAt.size;
  }

  /** True once `shutDown` was called. */
  shuttingDown(): boolean {
    return this.shutting;
  }

  /** Queue `item` now (ignored after shutdown or when already queued). */
  add(item: T): void {
    if (this.shutting) return;
    if (this.dirty.has(item)) return;
    this.metrics?.add();
    this.dirty.add(item);
    if (this.metrics !== undefined) this.addedAt.set(item, this.clock.now());
    if (this.processing.has(item)) return;
    this.push(item);
  }

  private push(item: T): void {
    const g = this.getters.shift();
    if (g !== undefined) {
      this.take(item);
      g({ shutdown: false, item });
      return;
    }
    this.buf.push(item);
    this.metrics?.depth(this.len());
  }

  private take(item: T): void {
    this.dirty.delete(item);
    this.processing.add(item);
    if (this.metrics !== undefined) {
      const now = this.clock.now();
      const at = this.addedAt.get(item);
      if (at !== undefined) this.metrics.queued((now - at) / 1000);
      this.addedAt.delete(item);
      this.startedAt.set(item, now);
      this.metrics.depth(this.len());
    }
  }

  /**
   * Wait for the next item. The caller must call `done(item)` when finished with it.
   * Resolves `{ shutdown: true }` once the queue is shut down and empty.
   */
  get(): Promise<QueueGetResult<T>> {
    if (this.len() > 0) {
      const item = this.buf[this.head] as T;
      this.buf[this.head] = undefined as T;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.buf.length) {
        this.buf = this.buf.slice(this.head);
        this.head = 0;
      }
      this.take(item);
      return Promise.resolve({ shutdown: false, item });
    }
    if (this.shutting) return Promise.resolve({ shutdown: true });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Mark `item` finished; if it was re-added while processing, it is queued again. */
  done(item: T): void {
    if (!this.processing.delete(item)) return;
    if (this.metrics !== undefined) {
      const at = this.startedAt.get(item);
      if (at !== undefined) this.metrics.work((this.clock.now() - at) / 1000);
      this.startedAt.delete(item);
    }
    if (this.dirty.has(item)) {
      if (this.shutting) this.dirty.delete(item);
      else this.push(item);
    }
    if (this.processing.size === 0 && this.shutting) {
      const ws = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of ws) w();
    }
  }

  /** Queue `item` after `delayMs` (immediately when <= 0). A sooner pending delay for the same item wins. */
  addAfter(item: T, delayMs: number): void {
    if (this.shutting) return;
    this.metrics?.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const at = this.clock.now() + delayMs;
    const prev = this.waitingAt.get(item);
    if (prev !== undefined && prev <= at) return;
    this.waitingAt.set(item, at);
    this.heapPush({ at, item });
    this.arm();
  }

  /** Queue `item` after the rate limiter's delay (one more failure for its backoff). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.limiter.when(item));
  }

  /** Reset the rate limiter's failure count of `item`. */
  forget(item: T): void {
    this.limiter.forget(item);
  }

  /** Times `item` was requeued through `addRateLimited` since it was last forgotten. */
  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }

  /** Stop accepting items; waiting `get()` calls resolve `{ shutdown: true }`; delayed items are dropped. */
  shutDown(): void {
    if (this.shutting) return;
    this.shutting = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.heap.length = 0;
    this.waitingAt.clear();
    const gs = this.getters.splice(0);
    for (const g of gs) g({ shutdown: true });
    if (this.processing.size === 0) {
      const ws = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of ws) w();
    }
  }

  /** Shut down and resolve once every in-flight item has been marked `done()`. */
  shutDownWithDrain(): Promise<void> {
    const p = new Promise<void>((resolve) => {
      if (this.processing.size === 0) resolve();
      else this.drainWaiters.push(resolve);
    });
    this.shutDown();
    return p;
  }

  private arm(): void {
    const top = this.heap[0];
    if (top === undefined) return;
    if (top.at >= this.timerAt && this.cancelTimer !== undefined) return;
    this.cancelTimer?.();
    this.timerAt = top.at;
    this.cancelTimer = this.clock.setTimer(() => {
      this.cancelTimer = undefined;
      this.timerAt = Infinity;
      this.fire();
    }, top.at - this.clock.now());
  }

  private fire(): void {
    const now = this.clock.now();
    for (;;) {
      const top = this.heap[0];
      if (top === undefined || top.at > now + 0.5) break;
      this.heapPop();
      if (this.waitingAt.get(top.item) !== top.at) continue; // superseded by a sooner entry
      this.waitingAt.delete(top.item);
      this.add(top.item);
    }
    this.arm();
  }

  private heapPush(w: Waiting<T>): void {
    const h = this.heap;
    h.push(w);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((h[p] as Waiting<T>).at <= w.at) break;
      h[i] = h[p] as Waiting<T>;
      i = p;
    }
    h[i] = w;
  }

  private heapPop(): void {
    const h = this.heap;
    const last = h.pop();
    if (last === undefined || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && (h[r] as Waiting<T>).at < (h[l] as Waiting<T>).at ? r : l;
      if ((h[c] as Waiting<T>).at >= last.at) break;
      h[i] = h[c] as Waiting<T>;
      i = c;
    }
    h[i] = last;
  }
}
