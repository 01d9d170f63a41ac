/**
 * Go's `time.ParseDuration` (golang.org/src/time/format.go `ParseDuration`): a possibly signed sequence of decimal
 * numbers, each with an optional fraction and a unit (`ns`, `us`/`µs`/`μs`, `ms`, `s`, `m`, `h`), e.g. `137s`,
 * `1m30s`, `1.5h`, `-2m`. `0` alone is valid; any other bare number is an error (`missing unit`), as in Go. The one
 * parser of every duration flag of the CVO, the MCO processes and the CLI.
 */

/** A string Go's `time.ParseDuration` refuses; the message is Go's. */
export class DurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DurationError';
  }
}

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
/** Go's maximum duration (max int64 nanoseconds), in milliseconds. */
const MAX_MS = 9_223_372_036_854.775;

/** Parses `s` as Go's `time.ParseDuration`; returns milliseconds (fractional below 1 ms). */
export function parseGoDuration(s: string): number {
  const quoted = JSON.stringify(s);
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new DurationError(`time: invalid duration ${quoted}`);
  let total = 0;
  while (rest !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = num?.[1] ?? '';
    const frac = num?.[2];
    if (!num || (whole === '' && (frac === undefined || frac === '')))
      throw new DurationError(`time: invalid duration ${quoted}`);
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') throw new DurationError(`time: missing unit in duration ${quoted}`);
    const factor = UNIT_MS[unit];
    if (factor === undefined)
      throw new DurationError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    rest = rest.slice(unit.length);
    total += Number(`${whole === '' ? '0' : whole}.${frac ?? ''}0`) * factor;
    if (total > MAX_MS) throw new DurationError(`time: invalid duration ${quoted}`);
  }
  return sign * total;
}
