import { describe, expect, it } from 'vitest';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  KubeError,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from '../src/index.js';
import { ManualClock } from './manual-clock.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles per failure from 5 ms and caps at 1000 s, per item', () => {
    const l = new ItemExponentialFailureRateLimiter();
    expect([l.when('a'), l.when('a'), l.when('a'), l.when('a')]).toEqual([5, 10, 20, 40]);
    expect(l.when('b')).toBe(5);
    expect(l.numRequeues('a')).toBe(4);
    for (let i = 0; i < 40; i++) l.when('a');
    expect(l.when('a')).toBe(1_000_000);
    expect(l.numRequeues('a')).toBe(45);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
    expect(l.when('a')).toBe(5);
  });
  it('stays at the cap for huge failure counts (no Infinity/NaN)', () => {
    const l = new ItemExponentialFailureRateLimiter(1, 100);
    for (let i = 0; i < 2000; i++) l.when('x');
    expect(l.when('x')).toBe(100);
  });
  it('refuses invalid bounds with a typed error', () => {
    expect(() => new ItemExponentialFailureRateLimiter(10, 5)).toThrow(KubeError);
    expect(() => new ItemExponentialFailureRateLimiter(0, 5)).toThrow(/baseDelayMs/);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces reservations by 1/qps', () => {
    const clock = new ManualClock();
    const l = new BucketRateLimiter(10, 3, clock);
    expect([l.when('a'), l.when('b'), l.when('c')]).toEqual([0, 0, 0]);
    expect(l.when('d')).toBeCloseTo(100, 6);
    expect(l.when('e')).toBeCloseTo(200, 6);
    clock.advance(1000); // refills 10 tokens, capped at burst 3 after paying the 2 owed
    expect(l.when('f')).toBe(0);
    expect(l.numRequeues('f')).toBe(0);
  });
});

describe('MaxOfRateLimiter / default controller limiter', () => {
  it('takes the largest delay and the largest requeue count', () => {
    const clock = new ManualClock();
    const l = new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(5, 1000), new BucketRateLimiter(1, 1, clock));
    expect(l.when('a')).toBe(5); // bucket has a token
    expect(l.when('a')).toBeCloseTo(1000, 6); // bucket now owes 1 s
    expect(l.numRequeues('a')).toBe(2);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
    expect(() => new MaxOfRateLimiter()).toThrow(KubeError);
  });
  it('default limiter starts at 5 ms backoff', () => {
    const l = defaultControllerRateLimiter(new ManualClock());
    expect(l.when('k')).toBe(5);
    expect(l.when('k')).toBe(10);
  });
});
