/** Small flag helpers shared by the daemon and server entry points. */
import { parseGoDuration } from '@keelson/kube';

/** Invalid command line. */
export class UsageError extends Error {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Parses a duration as Go's `time.ParseDuration` (@keelson/kube `parseGoDuration`); a bare number is a usage error. */
export function parseDuration(flag: string, v: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(v.trim());
  } catch (e) {
    throw new UsageError(
      `--${flag}: invalid duration ${JSON.stringify(v)}: ${(e as Error).message} (use e.g. 500ms, 30s, 2m)`,
    );
  }
  if (ms < 0) throw new UsageError(`--${flag}: invalid duration ${JSON.stringify(v)}: must not be negative`);
  return ms;
}

/** Parses a non-negative integer flag. */
export function parseCount(flag: string, v: string): number {
  if (!/^\d+$/.test(v)) throw new UsageError(`--${flag}: expected a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}
