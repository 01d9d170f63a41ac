/** Parsing of flag values shared by commands (durations like `oc --request-timeout`). */
import { usageError } from './output.js';

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration flag in milliseconds: Go-style `30s`, `1m30s`, `500ms`, `2h`, or a bare number of seconds (as
 * `oc --request-timeout`). Zero or negative values and other spellings are usage errors (exit 2).
 */
export function parseDuration(flag: string, value: string): number {
  const v = value.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(v)) ms = Number(v) * 1000;
  else if (/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(v)) {
    ms = 0;
    for (const [, n, unit] of v.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) ms += Number(n) * (UNITS[unit ?? 's'] ?? 1000);
  } else ms = NaN;
  if (!Number.isFinite(ms) || ms <= 0) throw usageError(`${flag}: expected a positive duration such as 30s, 2m or 500ms (a bare number is seconds), got ${JSON.stringify(value)}`);
  return Math.round(ms);
}
