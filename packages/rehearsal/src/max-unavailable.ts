/**
 * A pool's `spec.maxUnavailable` for the rehearsal: `--max-unavailable POOL=N|N%` parsed into the IntOrString an admin
 * would patch onto the pool, and the value scaled to a node count as the machine-config-controller scales it.
 */

/** The IntOrString of `spec.maxUnavailable`: a count, or a percentage string like `"10%"`. */
export type IntOrPercent = number | `${number}%`;

/** A `--max-unavailable` value the MCO would refuse, or a pool the rehearsal does not have. */
export class MaxUnavailableSpecError extends Error {
  constructor(
    readonly code:
      'REHEARSAL_MAX_UNAVAILABLE_SYNTAX' | 'REHEARSAL_MAX_UNAVAILABLE_POOL' | 'REHEARSAL_MAX_UNAVAILABLE_DUPLICATE',
    /** The offending flag value. */
    readonly spec: string,
    message: string,
  ) {
    super(message);
    this.name = 'MaxUnavailableSpecError';
  }
}

// at most 7 digits: bounds hostile input while allowing any count a cluster can have
const SPEC_RE = /^([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)=(\d{1,7})(%?)$/;

/**
 * Parses `--max-unavailable` values (`POOL=N` or `POOL=N%`, repeatable, comma-separated allowed) for the pools the
 * rehearsal has. A count must be a non-negative integer and a percentage `<digits>%`: the forms the MCO scales (it
 * refuses any other string, e.g. `"10 %"` or `"10"`, and stops updating the pool). 0 and `0%` are accepted and mean 1,
 * as in the MCO.
 * @throws MaxUnavailableSpecError on bad syntax, an unknown pool or a pool given twice.
 */
export function parseMaxUnavailable(list: readonly string[], pools: readonly string[]): Record<string, IntOrPercent> {
  const out: Record<string, IntOrPercent> = {};
  for (const spec of list.flatMap((x) => x.split(','))) {
    const m = SPEC_RE.exec(spec);
    if (m === null) {
      throw new MaxUnavailableSpecError(
        'REHEARSAL_MAX_UNAVAILABLE_SYNTAX',
        spec,
        `--max-unavailable ${spec}: expected POOL=N or POOL=N% (a non-negative integer count or percentage of the pool's nodes, e.g. worker=10%)`,
      );
    }
    const pool = m[1] ?? '';
    if (!pools.includes(pool)) {
      throw new MaxUnavailableSpecError(
        'REHEARSAL_MAX_UNAVAILABLE_POOL',
        spec,
        `--max-unavailable ${spec}: the rehearsal has no pool ${pool} (pools: ${pools.join(', ')}; add custom pools with --pools ${pool}=N)`,
      );
    }
    if (Object.hasOwn(out, pool))
      throw new MaxUnavailableSpecError(
        'REHEARSAL_MAX_UNAVAILABLE_DUPLICATE',
        spec,
        `--max-unavailable ${spec}: pool ${pool} given twice`,
      );
    const n = Number(m[2]);
    out[pool] = m[3] === '%' ? `${n}%` : n;
  }
  return out;
}

/**
 * The node count a pool's `spec.maxUnavailable` allows, as the machine-config-controller computes it (upstream
 * `maxUnavailable()` with `intstr.GetScaledValueFromIntOrPercent(v, nodes, roundUp=false)`): absent → 1; an integer
 * as is (not capped by the pool size); `"<digits>%"` → ⌊pct × nodes ÷ 100⌋; a result of 0 → 1; pool `arbiter` → 1.
 * Any other string is an error for the MCO, which then updates no node of the pool: the limit in effect is 0.
 * A negative integer (the API accepts one) leaves the MCO no capacity either: 0.
 */
export function scaledMaxUnavailable(value: unknown, nodes: number, pool = ''): number {
  if (pool === 'arbiter') return 1;
  let n: number;
  if (value === undefined || value === null) n = 1;
  else if (typeof value === 'number' && Number.isFinite(value)) n = Math.trunc(value);
  else if (typeof value === 'string' && /^\d+%$/.test(value))
    n = Math.floor((Number(value.slice(0, -1)) * nodes) / 100);
  else return 0;
  return n === 0 ? 1 : Math.max(0, n);
}
