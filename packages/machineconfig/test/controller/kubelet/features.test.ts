/** The kubelet-config controller's feature handler (`src/controller/kubelet/features.ts`): the FeatureGate map of the running release. */
import { describe, expect, it } from 'vitest';
import { featureGateMap } from '../../../src/index.js';

describe('featureGateMap', () => {
  it('feature gates of the running release only (enabled true, disabled false)', () => {
    const status = {
      featureGates: [
        { version: '4.19.0', enabled: [{ name: 'Old' }] },
        { version: '4.99.0', enabled: [{ name: 'A' }], disabled: [{ name: 'B' }] },
      ],
    };
    expect(featureGateMap(status, '4.99.0')).toEqual({ A: true, B: false });
    expect(featureGateMap(status, '4.21.0')).toBeUndefined();
  });
});
