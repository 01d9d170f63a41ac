import { describe, expect, it } from 'vitest';
import {
  isUsageError,
  levelFromVerbosity,
  parseCountFlag,
  parseDurationFlag,
  parseGoBool,
  parseLeaderElectionFlags,
  parseListenFlag,
  parseVerbosityFlag,
  UsageError,
} from '../src/index.js';
import * as flagsEntry from '../src/flags.js';

describe('shared flags', () => {
  it('parses durations as Go time.ParseDuration, with bounds, naming the flag', () => {
    expect(parseDurationFlag('reboot-duration', '1m30s')).toBe(90_000);
    expect(parseDurationFlag('--x', ' 250ms ')).toBe(250);
    expect(parseDurationFlag('x', '0s')).toBe(0);
    expect(parseDurationFlag('x', '-1s', 'any')).toBe(-1000);
    expect(() => parseDurationFlag('lease', '137')).toThrow(
      '--lease: invalid duration "137": time: missing unit in duration "137" (use e.g. 500ms, 30s, 1m30s, 1h)',
    );
    expect(() => parseDurationFlag('x', '-1s')).toThrow(/must not be negative/);
    expect(() => parseDurationFlag('x', '0s', 'positive')).toThrow(/must be a positive duration/);
    try {
      parseDurationFlag('--status-interval', '5 minutes');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      expect(e).toMatchObject({
        code: 'USAGE',
        exitCode: 2,
        flag: '--status-interval',
        reason: 'time: unknown unit " minutes" in duration "5 minutes"',
      });
    }
  });

  it('parses HOST:PORT with IPv6 brackets and a default host', () => {
    expect(parseListenFlag('listen', '0.0.0.0:9099', '')).toEqual({ host: '0.0.0.0', port: 9099 });
    expect(parseListenFlag('listen', ':9099', '')).toEqual({ host: '', port: 9099 });
    expect(parseListenFlag('m', ':8797', '127.0.0.1')).toEqual({ host: '127.0.0.1', port: 8797 });
    expect(parseListenFlag('m', '[::1]:0', '')).toEqual({ host: '::1', port: 0 });
    for (const bad of ['9099', 'host:', 'h:70000', 'h:-1', 'a:b:1'])
      expect(() => parseListenFlag('metrics-listen-address', bad, '')).toThrow(
        `--metrics-listen-address: expected HOST:PORT, got ${JSON.stringify(bad)}`,
      );
  });

  it('parses counts, --v, Go booleans and the leader-election trio as client-go validates it', () => {
    expect(parseCountFlag('first-index', '12')).toBe(12);
    expect(() => parseCountFlag('first-index', '1.5')).toThrow('--first-index: expected a non-negative integer');
    expect(parseVerbosityFlag('4')).toBe(4);
    expect(() => parseVerbosityFlag('loud')).toThrow('--v: expected a non-negative integer, got "loud"');
    expect([levelFromVerbosity(2), levelFromVerbosity(4)]).toEqual(['info', 'debug']);
    expect(['T', 'true', '1', 'F', '0', 'no'].map(parseGoBool)).toEqual([true, true, true, false, false, undefined]);
    expect(parseLeaderElectionFlags({ leaseDuration: '137s', renewDeadline: '107s', retryPeriod: '26s' })).toEqual({
      leaseDurationMs: 137_000,
      renewDeadlineMs: 107_000,
      retryPeriodMs: 26_000,
    });
    expect(() => parseLeaderElectionFlags({ leaseDuration: '10s', renewDeadline: '10s', retryPeriod: '1s' })).toThrow(
      '--leader-elect-lease-duration (10s) must be greater than --leader-elect-renew-deadline (10s)',
    );
    expect(() => parseLeaderElectionFlags({ leaseDuration: '20s', renewDeadline: '10s', retryPeriod: '9s' })).toThrow(
      /renew-deadline \(10s\) must be greater than 1\.2/,
    );
    expect(() => parseLeaderElectionFlags({ leaseDuration: '0s', renewDeadline: '10s', retryPeriod: '1s' })).toThrow(
      /must be a positive duration/,
    );
  });

  it('recognises a UsageError of another copy of the module by its code', () => {
    const other = new (class extends Error {
      readonly code = 'USAGE';
    })('x');
    expect(isUsageError(other)).toBe(true);
    expect(isUsageError(new Error('x'))).toBe(false);
    expect(flagsEntry.UsageError).toBe(UsageError);
  });
});
