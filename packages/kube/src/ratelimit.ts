import { KubeError } from './errors.js';
import { realClock, type Clock } from './clock.js';

/** Decides how long an item waits before it is queued again (client-go `workqueue.TypedRateLimiter`). */
export interface RateLimiter<T = string> {
  /** Delay in milliseconds before `item` may be processed again; counts as one more failure. */
  when(item: T): number;
  /** Stop tracking `item` (call after a successful reconcile). */
  forget(item: T): void;
  /** How many times `item` has been requeued since it was last forgotten. */
  numRequeues(item: T): number;
}

/**
 * Per-item exponential backoff: `base * 2^failures`, capped at `max` (client-go's
 * `ItemExponentialFailureRateLimiter`). Defaults: 5 ms .. 1000 s.
 */
export class ItemExponentialFailureRateLimiter<T = string> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  constructor(baseDelayMs = 5, maxDelayMs = 1_000_000) {
    if (!(baseDelayMs > 0) || !(maxDelayMs >= baseDelayMs)) {
      throw new KubeError(
        'KUBE_INVALID_ARGUMENT',
        `ItemExponentialFailureRateLimiter: need 0 < baseDelayMs <= maxDelayMs, got ${baseDelayMs}, ${maxDelayMs}`,
      );
    }
    this.baseDelayMs = baseDelayMs;
    this.maxDelayMs = maxDelayMs;
  }
  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * Math.pow(2, exp);
    return Number.isFinite(backoff) && backoff < this.maxDelayMs ? backoff : this.maxDelayMs;
  }
  forget(item: T): void {
    this.failures.delete(item);
  }
  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * Overall token bucket (client-go's `BucketRateLimiter` over `rate.Limiter`): `qps` tokens per second,
 * at most `burst` saved. Each `when()` reserves one token and returns the wait until it is available.
 * Defaults: 10 qps, burst 100.
 */
export class BucketRateLimiter<T = string> implements RateLimiter<T> {
  private tokens: number;
  private last: number;
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  constructor(qps = 10, burst = 100, clock: Clock = realClock) {
    if (!(qps > 0) || !(burst >= 1)) {
      throw new KubeError(
        'KUBE_INVALID_ARGUMENT',
        `BucketRateLimiter: need qps > 0 and burst >= 1, got ${qps}, ${burst}`,
      );
    }
    this.qps = qps;
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.now();
  }
  when(_item: T): number {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed / 1000) * this.qps);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
  forget(_item: T): void {}
  numRequeues(_item: T): number {
    return 0;
  }
}

/** Combines limiters: the delay is the largest of them, requeues the largest count. */
export class MaxOfRateLimiter<T = string> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];
  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0)
      throw new KubeError('KUBE_INVALID_ARGUMENT', 'MaxOfRateLimiter needs at least one limiter');
    this.limiters = limiters;
  }
  when(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }
  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }
  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/** client-go's `DefaultControllerRateLimiter`: max of per-item 5 ms..1000 s backoff and a 10 qps/100 burst bucket. */
export function defaultControllerRateLimiter<T = string>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
