/** Parsing of flag values shared by commands (durations like `oc --request-timeout`). */
import { parseGoDuration } from '@keelson/kube/duration';
import { usageError } from './output.js';

/**
 * A duration flag in milliseconds, as Go's `time.ParseDuration` (`30s`, `1m30s`, `500ms`, `2h`; @keelson/kube
 * `parseGoDuration`). A bare number, zero or a negative value is a usage error (exit 2).
 */
export function parseDuration(flag: string, value: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(value.trim());
  } catch (e) {
    throw usageError(`${flag}: expected a positive duration such as 30s, 1m30s or 500ms: ${(e as Error).message}`);
  }
  if (!(ms > 0))
    throw usageError(`${flag}: expected a positive duration such as 30s, 1m30s or 500ms, got ${JSON.stringify(value)}`);
  return ms;
}
