/** Go `time.ParseDuration` vectors (golang.org/src/time/time_test.go parseDurationTests) and its errors. */
import { describe, expect, it } from 'vitest';
import { DurationError, parseGoDuration } from '../src/core/duration.js';

describe('parseGoDuration', () => {
  const ok: [string, number][] = [
    ['0', 0],
    ['5s', 5000],
    ['30s', 30_000],
    ['1478s', 1_478_000],
    ['-5s', -5000],
    ['+5s', 5000],
    ['-0', 0],
    ['+0', 0],
    ['5.0s', 5000],
    ['5.6s', 5600],
    ['5.s', 5000],
    ['.5s', 500],
    ['1.0s', 1000],
    ['1.00s', 1000],
    ['1.004s', 1004],
    ['100.00100s', 100_001],
    ['10ns', 1e-5],
    ['11us', 0.011],
    ['12µs', 0.012],
    ['12μs', 0.012],
    ['13ms', 13],
    ['14s', 14_000],
    ['15m', 900_000],
    ['16h', 57_600_000],
    ['3h30m', 12_600_000],
    ['10.5s4m', 250_500],
    ['-2m3.4s', -123_400],
    ['1h2m3s4ms5us6ns', 3_723_004.005006],
    ['39h9m14.425s', 140_954_425],
    ['137s', 137_000],
    ['1m30s', 90_000],
  ];
  for (const [s, ms] of ok)
    it(`${s} = ${ms} ms`, () => {
      expect(parseGoDuration(s)).toBeCloseTo(ms, 6);
    });
  const bad: [string, string][] = [
    ['', 'time: invalid duration ""'],
    ['3', 'time: missing unit in duration "3"'],
    ['137', 'time: missing unit in duration "137"'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.', 'time: invalid duration "."'],
    ['-.', 'time: invalid duration "-."'],
    ['.s', 'time: invalid duration ".s"'],
    ['+.s', 'time: invalid duration "+.s"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
  ];
  for (const [s, msg] of bad)
    it(`refuses ${JSON.stringify(s)}`, () => {
      expect(() => parseGoDuration(s)).toThrow(new DurationError(msg));
    });
});
