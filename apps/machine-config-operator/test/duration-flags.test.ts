/** Duration flags of the MCO processes parse as Go's time.ParseDuration (issue 22 §5): a bare number is a usage error. */
import { describe, expect, it } from 'vitest';
import { parseDuration as daemonDuration } from '../src/bin/args.js';
import { parseDuration as commonDuration } from '../src/common/cli.js';

describe('MCO duration flags', () => {
  for (const [name, parse] of [
    ['daemon', daemonDuration],
    ['operator/controller', commonDuration],
  ] as const) {
    it(`${name}: Go durations; bare numbers and negative values refused`, () => {
      expect(parse('leader-elect-lease-duration', '137s')).toBe(137_000);
      expect(parse('leader-elect-lease-duration', '1m30s')).toBe(90_000);
      expect(parse('reboot-duration', '0s')).toBe(0);
      expect(() => parse('leader-elect-lease-duration', '137')).toThrow(/time: missing unit in duration "137"/);
      expect(() => parse('reboot-duration', '-1s')).toThrow(/must not be negative/);
    });
  }
});
