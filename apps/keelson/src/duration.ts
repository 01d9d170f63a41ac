import { parseDurationFlag, UsageError } from '@keelson/kube/flags';
import { CliError } from './errors.js';

/** Parses a flag duration as Go's `time.ParseDuration` (@keelson/kube `parseDurationFlag`) into milliseconds; bad input, including a bare number, is a usage error. */
export function parseDuration(v: string, flag: string): number {
  try {
    return parseDurationFlag(flag, v, 'any');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new CliError(`${flag} must be a duration such as 500ms, 2s or 1m30s, got "${v}": ${e.reason}`, 2);
  }
}
