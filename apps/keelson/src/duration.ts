import { CliError } from './errors.js';

/** Parses a flag duration (`500`, `500ms`, `2s`, `1.5m`, `1h`) into milliseconds; bad input is a usage error. */
export function parseDuration(v: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new CliError(`${flag} must be a duration such as 500ms, 2s or 1m, got "${v}"`, 2);
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  const factor = unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1;
  return Math.round(n * factor);
}
