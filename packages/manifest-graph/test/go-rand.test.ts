import { describe, expect, it } from 'vitest';
import { GoRand, ManifestGraphError } from '../src/index.js';
import { GO_RNG_COOKED } from '../src/go-rand-table.js';

describe('GoRand (Go math/rand compatible)', () => {
  it('carries the 607-entry cooked table, all 63-bit values', () => {
    expect(GO_RNG_COOKED).toHaveLength(607);
    for (const v of GO_RNG_COOKED) {
      expect(/^\d+$/.test(v)).toBe(true);
      expect(BigInt(v) < 1n << 63n).toBe(true);
    }
  });

  it('reproduces the well-known Go stream for seed 1 (Int63)', () => {
    const r = new GoRand(1);
    expect(r.int63()).toBe(5577006791947779410n);
    expect(r.int63()).toBe(8674665223082153551n);
  });

  it('reproduces Go rand.New(rand.NewSource(1)).Intn(100) x10', () => {
    const r = new GoRand(1);
    expect(Array.from({ length: 10 }, () => r.intn(100))).toEqual([81, 87, 47, 59, 81, 18, 25, 40, 56, 0]);
  });

  it('treats seeds equal modulo 2^31-1 (and 0 vs 89482311) alike', () => {
    const a = new GoRand(5);
    const b = new GoRand(5 + 2147483647);
    const c = new GoRand(0);
    const d = new GoRand(89482311);
    const e = new GoRand(-2147483642n); // -M + 5 ≡ 5
    for (let i = 0; i < 5; i++) {
      const va = a.int63();
      expect(b.int63()).toBe(va);
      expect(e.int63()).toBe(va);
      expect(c.int63()).toBe(d.int63());
    }
  });

  it('perm and shuffle are permutations and deterministic per seed', () => {
    const p1 = new GoRand(42).perm(50);
    const p2 = new GoRand(42).perm(50);
    expect(p1).toEqual(p2);
    expect([...p1].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const arr = Array.from({ length: 30 }, (_, i) => i);
    new GoRand(7).shuffle(arr.length, (i, j) => {
      [arr[i], arr[j]] = [arr[j] ?? 0, arr[i] ?? 0];
    });
    expect([...arr].sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(arr).not.toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('refuses invalid bounds with a typed error', () => {
    const r = new GoRand(1);
    expect(() => r.intn(0)).toThrow(ManifestGraphError);
    expect(() => r.shuffle(-1, () => undefined)).toThrow(/shuffle: n must be/);
    expect(() => new GoRand(2 ** 60)).toThrow(/safe integer/);
  });
});
