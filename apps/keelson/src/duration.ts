import { parseGoDuration } from '@keelson/kube/duration';
import { CliError } from './errors.js';

/** Parses a flag duration as Go's `time.ParseDuration` (@keelson/kube `parseGoDuration`) into milliseconds; bad input, including a bare number, is a usage error. */
export function parseDuration(v: string, flag: string): number {
  try {
    return parseGoDuration(v.trim());
  } catch (e) {
    throw new CliError(`${flag} must be a duration such as 500ms, 2s or 1m30s, got "${v}": ${(e as Error).message}`, 2);
  }
}
