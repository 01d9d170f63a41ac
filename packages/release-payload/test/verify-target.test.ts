/** verifyTargetRelease: the CVO's refusal texts for targets that cannot be verified (signed paths: apps/cluster-version-operator e2e, keelson upgrade plan). */
import { describe, expect, it } from 'vitest';
import { digestOfPullSpec, verifyTargetRelease } from '../src/index.js';

const digest = `sha256:${'a'.repeat(64)}`;

describe('verifyTargetRelease', () => {
  it('refuses by-tag pull specs and payloads without a root of trust with the CVO texts', async () => {
    expect(digestOfPullSpec(`quay.io/r@${digest}`)).toBe(digest);
    expect(digestOfPullSpec('quay.io/r:4.18.8')).toBeUndefined();
    expect(await verifyTargetRelease({ image: 'quay.io/r:4.18.8', current: [] })).toEqual({
      verified: false,
      error: 'The update cannot be verified: release images that are not accessed via digest cannot be verified',
    });
    expect(await verifyTargetRelease({ image: `quay.io/r@${digest}`, current: [] })).toEqual({
      verified: false,
      error: 'The update cannot be verified: verification is not possible',
    });
  });
});
