/** Parsing of flag values shared by commands (durations like `oc --request-timeout`): `@keelson/kube/flags`. */
import { parseDurationFlag, UsageError } from '@keelson/kube/flags';
import { usageError } from './output.js';

/**
 * A duration flag in milliseconds, as Go's `time.ParseDuration` (`30s`, `1m30s`, `500ms`, `2h`; @keelson/kube
 * `parseDurationFlag`). A bare number, zero or a negative value is a usage error (exit 2).
 */
export function parseDuration(flag: string, value: string): number {
  try {
    return parseDurationFlag(flag, value, 'positive');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const hint = `${flag}: expected a positive duration such as 30s, 1m30s or 500ms`;
    throw usageError(
      e.reason === 'must be a positive duration' ? `${hint}, got ${JSON.stringify(value)}` : `${hint}: ${e.reason}`,
    );
  }
}
