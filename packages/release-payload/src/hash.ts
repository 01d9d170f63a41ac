/**
 * FNV-1 (not FNV-1a) 64-bit hash, computed with four 16-bit limbs so no BigInt is needed per byte.
 */
export class Fnv1Hash64 {
  // offset basis 0xcbf29ce484222325, little-endian 16-bit limbs
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  /** Feeds bytes into the hash. */
  update(data: Uint8Array): this {
    let h0 = this.h0;
    let h1 = this.h1;
    let h2 = this.h2;
    let h3 = this.h3;
    for (let i = 0; i < data.length; i++) {
      // multiply by the FNV prime 2^40 + 0x1b3
      const t0 = h0 * 0x1b3;
      let t1 = h1 * 0x1b3;
      let t2 = h2 * 0x1b3 + (h0 << 8);
      let t3 = h3 * 0x1b3 + (h1 << 8);
      t1 += t0 >>> 16;
      t2 += t1 >>> 16;
      t3 += t2 >>> 16;
      h0 = (t0 & 0xffff) ^ (data[i] ?? 0);
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
      h3 = t3 & 0xffff;
    }
    this.h0 = h0;
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    return this;
  }

  /** The 8-byte big-endian digest. */
  digest(): Uint8Array {
    return Uint8Array.of(
      this.h3 >> 8,
      this.h3 & 0xff,
      this.h2 >> 8,
      this.h2 & 0xff,
      this.h1 >> 8,
      this.h1 & 0xff,
      this.h0 >> 8,
      this.h0 & 0xff,
    );
  }
}

/** Base64 URL encoding *with* padding, as Go's `base64.URLEncoding`. */
export function base64UrlPadded(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * The CVO's manifest hash (`status.versionHash`): base64url-with-padding of FNV-1 64 over the raw bytes of the given
 * manifests, in order.
 */
export function versionHash(raws: Iterable<Uint8Array>): string {
  const h = new Fnv1Hash64();
  for (const r of raws) h.update(r);
  return base64UrlPadded(h.digest());
}
