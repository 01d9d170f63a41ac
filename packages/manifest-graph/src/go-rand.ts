import { GO_RNG_COOKED } from './go-rand-table.js';
import { ManifestGraphError } from './errors.js';

const LEN = 607;
const TAP = 273;
const M = 2147483647; // 2^31 - 1
const A = 48271;
const Q = 44488;
const R = 3399;
const MASK63 = (1n << 63n) - 1n;
const MASK32 = 0xffffffffn;

let cooked: BigUint64Array | undefined;
function cookedTable(): BigUint64Array {
  if (cooked === undefined) {
    if (GO_RNG_COOKED.length !== LEN) {
      throw new ManifestGraphError(
        'INVALID_ARGUMENT',
        `Go rng table has ${GO_RNG_COOKED.length} entries, expected ${LEN}`,
      );
    }
    cooked = BigUint64Array.from(GO_RNG_COOKED, (v) => BigInt(v));
  }
  return cooked;
}

/** x[n+1] = 48271 * x[n] mod (2^31 - 1), with Schrage's method exactly as Go computes it. */
function seedrand(x: number): number {
  const hi = Math.trunc(x / Q);
  const lo = x % Q;
  let next = A * lo - R * hi;
  if (next < 0) next += M;
  return next;
}

/**
 * A port of Go's `math/rand` generator: `rand.New(rand.NewSource(seed))` (the additive lagged
 * Fibonacci source, seeded through `seedrand`) with the value-stream-compatible `Int63`, `Uint32`,
 * `Int31`, `Int31n`, `Intn`, `Perm` and `Shuffle`. A given seed yields exactly Go's sequence, so
 * permutations match the CVO's `PermuteOrder(..., rand.New(rand.NewSource(seed)))`.
 */
export class GoRand {
  private tap = 0;
  private feed = LEN - TAP;
  private readonly vec = new BigUint64Array(LEN);

  /** Seeds like `rand.NewSource(seed)`; seeds equal modulo 2^31-1 give the same stream. */
  constructor(seed: number | bigint) {
    this.seed(seed);
  }

  /** Re-seeds the generator (Go's `Source.Seed`). */
  seed(seed: number | bigint): void {
    if (typeof seed === 'number' && !Number.isSafeInteger(seed)) {
      throw new ManifestGraphError(
        'INVALID_ARGUMENT',
        `GoRand seed ${seed} is not a safe integer; pass a bigint for 64-bit seeds`,
      );
    }
    const table = cookedTable();
    this.tap = 0;
    this.feed = LEN - TAP;
    let s = BigInt.asIntN(64, BigInt(seed)) % BigInt(M);
    if (s < 0n) s += BigInt(M);
    if (s === 0n) s = 89482311n;
    let x = Number(s);
    for (let i = -20; i < LEN; i++) {
      x = seedrand(x);
      if (i >= 0) {
        let u = BigInt(x) << 40n;
        x = seedrand(x);
        u ^= BigInt(x) << 20n;
        x = seedrand(x);
        u ^= BigInt(x);
        u ^= table[i] ?? 0n;
        this.vec[i] = BigInt.asUintN(64, u);
      }
    }
  }

  /** Go's `Int63`: a non-negative 63-bit value as a bigint. */
  int63(): bigint {
    this.tap -= 1;
    if (this.tap < 0) this.tap += LEN;
    this.feed -= 1;
    if (this.feed < 0) this.feed += LEN;
    const x = BigInt.asUintN(64, (this.vec[this.feed] ?? 0n) + (this.vec[this.tap] ?? 0n));
    this.vec[this.feed] = x;
    return x & MASK63;
  }

  /** Go's `Uint32`: `uint32(Int63() >> 31)`. */
  uint32(): number {
    return Number((this.int63() >> 31n) & MASK32);
  }

  /** Go's `Int31`: `int32(Int63() >> 32)`. */
  int31(): number {
    return Number(this.int63() >> 32n);
  }

  /** Go's exported `Int31n` (modulo with rejection), used by `Intn` and `Perm`. */
  int31n(n: number): number {
    assertBound(n, 'int31n');
    if ((n & (n - 1)) === 0) return this.int31() & (n - 1);
    const max = 2147483647 - (2147483648 % n);
    let v = this.int31();
    while (v > max) v = this.int31();
    return v % n;
  }

  /** Go's `Intn` for n < 2^31. */
  intn(n: number): number {
    return this.int31n(n);
  }

  /** Go's unexported `int31n` (Lemire's multiply-shift), used by `Shuffle`. */
  private int31nFast(n: number): number {
    const bn = BigInt(n);
    let prod = BigInt(this.uint32()) * bn;
    let low = Number(prod & MASK32);
    if (low < n) {
      const thresh = (4294967296 - n) % n;
      while (low < thresh) {
        prod = BigInt(this.uint32()) * bn;
        low = Number(prod & MASK32);
      }
    }
    return Number(prod >> 32n);
  }

  /** Go's `Perm(n)`. */
  perm(n: number): number[] {
    const m = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) {
      const j = this.intn(i + 1);
      m[i] = m[j] ?? 0;
      m[j] = i;
    }
    return m;
  }

  /** Go's `Shuffle(n, swap)`: Fisher–Yates from the end with the fast `int31n`. */
  shuffle(n: number, swap: (i: number, j: number) => void): void {
    if (!Number.isInteger(n) || n < 0 || n > 2147483647) {
      throw new ManifestGraphError('INVALID_ARGUMENT', `shuffle: n must be an integer in [0, 2^31-1], got ${n}`);
    }
    for (let i = n - 1; i > 0; i--) {
      swap(i, this.int31nFast(i + 1));
    }
  }
}

function assertBound(n: number, fn: string): void {
  if (!Number.isInteger(n) || n <= 0 || n > 2147483647) {
    throw new ManifestGraphError('INVALID_ARGUMENT', `${fn}: n must be an integer in [1, 2^31-1], got ${n}`);
  }
}
