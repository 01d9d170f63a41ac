/**
 * Go's `time.Duration` arithmetic and printing as `oc adm upgrade status` uses them (durations in milliseconds):
 * `String()`, `Round`, `Truncate`, oc's `shortDuration` (openshift/oc pkg/cli/admin/upgrade/status/health.go) and
 * `%.0f` (round half to even).
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

function fraction(v: number, digits: number): string {
  const whole = Math.floor(v / 10 ** digits);
  const frac = v - whole * 10 ** digits;
  return frac === 0 ? `${whole}` : `${whole}.${String(frac).padStart(digits, '0').replace(/0+$/, '')}`;
}

/**
 * Go `time.Duration.String()` of a duration given in (possibly fractional) milliseconds, at nanosecond precision:
 * `1h2m3s`, `4m0s`, `1.5s`, `250ms`, `368.975µs`, `0s`.
 */
export function goDurationString(ms: number): string {
  const ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let u = Math.abs(ns);
  if (u < 1e3) return `${sign}${u}ns`;
  if (u < 1e6) return `${sign}${fraction(u, 3)}µs`;
  if (u < 1e9) return `${sign}${fraction(u, 6)}ms`;
  const h = Math.floor(u / 3.6e12);
  u -= h * 3.6e12;
  const m = Math.floor(u / 6e10);
  u -= m * 6e10;
  const secs = fraction(u, 9);
  if (h > 0) return `${sign}${h}h${m}m${secs}s`;
  if (m > 0) return `${sign}${m}m${secs}s`;
  return `${sign}${secs}s`;
}

/** Go `Duration.Round(unit)`: halfway values round away from zero. */
export function goRound(ms: number, unit: number): number {
  const r = Math.round(Math.abs(ms) / unit) * unit;
  return ms < 0 ? -r : r;
}

/** Go `Duration.Truncate(unit)`: towards zero. */
export function goTruncate(ms: number, unit: number): number {
  return Math.trunc(ms / unit) * unit;
}

/**
 * oc's `shortDuration`: `now` for zero, trailing zero units dropped (`1h`, `45m`, `1h12m`); a fraction is cut by
 * re-reading the text before the dot as seconds, as oc does (so 368.975µs prints as `6m8s`, like oc).
 */
export function ocShortDuration(ms: number): string {
  const orig = goDurationString(ms);
  if (orig === '0s') return 'now';
  if (orig.endsWith('h0m0s')) return orig.slice(0, -4);
  if (orig.endsWith('m0s')) return orig.slice(0, -2);
  const dot = orig.indexOf('.');
  if (dot >= 0) {
    const m = /^(-?)(?:(\d+)h)?(?:(\d+)m)?(\d+)s$/.exec(`${orig.slice(0, dot)}s`);
    if (m === null) return orig;
    const v = (Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4])) * 1000;
    return ocShortDuration(m[1] === '-' ? -v : v);
  }
  return orig;
}

/** Go `fmt.Sprintf("%.0f", x)`: round half to even. */
export function goPercent0(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf';
  const f = Math.floor(x);
  const diff = x - f;
  const r = diff > 0.5 ? f + 1 : diff < 0.5 ? f : f % 2 === 0 ? f : f + 1;
  return String(r === 0 ? 0 : r);
}

export const DURATION = { SECOND, MINUTE, HOUR } as const;
