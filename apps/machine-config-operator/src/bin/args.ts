/** Small flag helpers of the daemon and server entry points: `@keelson/kube`'s one flags module. */
import { parseCountFlag, parseDurationFlag, UsageError } from '@keelson/kube';

/** Invalid command line (`@keelson/kube`'s one `UsageError`, exit 2). */
export { UsageError };

/** Parses a duration as Go's `time.ParseDuration` (@keelson/kube `parseDurationFlag`); a bare number is a usage error. */
export function parseDuration(flag: string, v: string): number {
  return parseDurationFlag(flag, v, 'nonNegative');
}

/** Parses a non-negative integer flag. */
export function parseCount(flag: string, v: string): number {
  return parseCountFlag(flag, v);
}
