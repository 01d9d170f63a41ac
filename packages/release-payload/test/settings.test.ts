import { describe, expect, it } from 'vitest';
import { checkClusterSettings } from '../src/index.js';

describe('checkClusterSettings', () => {
  it('accepts known values', () => {
    expect(
      checkClusterSettings({
        capabilities: ['Console', 'baremetal', 'openshift-samples'],
        featureSet: 'TechPreviewNoUpgrade',
        profile: 'hypershift',
      }),
    ).toEqual([]);
    expect(checkClusterSettings({ featureSet: '' })).toEqual([]);
  });

  it('names the known value that differs only in case', () => {
    const [w] = checkClusterSettings({ capabilities: ['console'] });
    expect(w?.field).toBe('capabilities');
    expect(w?.suggestion).toBe('Console');
    expect(w?.message).toMatch(
      /^unknown capability "console"; names are case-sensitive: did you mean "Console"\? known capabilities: baremetal, Console, Insights, /,
    );
  });

  it('lists the known values of unknown capabilities, feature sets and profiles', () => {
    const ws = checkClusterSettings({
      capabilities: ['Foo', 'Foo'],
      featureSet: 'TechPreview',
      profile: 'single-node',
    });
    expect(ws.map((w) => [w.field, w.value, w.suggestion])).toEqual([
      ['capabilities', 'Foo', undefined],
      ['featureSet', 'TechPreview', undefined],
      ['profile', 'single-node', undefined],
    ]);
    expect(ws[1]?.message).toBe(
      'unknown feature set "TechPreview"; known feature sets: Default, TechPreviewNoUpgrade, DevPreviewNoUpgrade, CustomNoUpgrade, OKD',
    );
    expect(ws[2]?.message).toBe(
      'unknown cluster profile "single-node"; known cluster profiles: self-managed-high-availability, single-node-developer, ibm-cloud-managed, hypershift',
    );
    expect(checkClusterSettings({ featureSet: 'techpreviewnoupgrade' })[0]?.suggestion).toBe('TechPreviewNoUpgrade');
  });
});
