/** The seeded PRNG and word list of the synthetic release (see ./synthetic-payload.ts): same seed, same bytes. */

/** Small deterministic PRNG (mulberry32). */
export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(arr: readonly T[]): T {
    const v = arr[this.int(arr.length)];
    if (v === undefined) throw new Error('pick from empty list');
    return v;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  hex(len: number): string {
    let s = '';
    while (s.length < len) s += this.int(0x10000).toString(16).padStart(4, '0');
    return s.slice(0, len);
  }
}

export const WORDS =
  'spec status condition observed generation replicas selector template container image pull policy resources limits requests cpu memory node affinity toleration taint volume mount secret config map service account role binding endpoint port protocol target ingress egress route domain certificate authority rotation expiry lease leader election controller reconcile degraded progressing available upgradeable version operator cluster infrastructure platform network proxy trusted bundle feature gate profile capability manifest payload release channel'.split(
    ' ',
  );

export function sentence(rng: Prng, n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(rng.pick(WORDS));
  const s = parts.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}
