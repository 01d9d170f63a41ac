/** Small flag helpers shared by the daemon and server entry points. */

/** Invalid command line. */
export class UsageError extends Error {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Parses a Go-style duration (`500ms`, `30s`, `2m`, `1h`, or plain milliseconds). */
export function parseDuration(flag: string, v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new UsageError(`--${flag}: invalid duration ${JSON.stringify(v)} (use e.g. 500ms, 30s, 2m)`);
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  return Math.round(n * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1));
}

/** Parses a non-negative integer flag. */
export function parseCount(flag: string, v: string): number {
  if (!/^\d+$/.test(v)) throw new UsageError(`--${flag}: expected a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}
