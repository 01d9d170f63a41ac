/** kubelet.conf as upstream's DecodeKubeletConfig/EncodeKubeletConfig write it (`src/controller/kubelet/kubelet-conf.ts`). */
import { describe, expect, it } from 'vitest';
import { decodeKubeletConfig, encodeKubeletConfig, goDurationString, KubeletConfigError } from '../../../src/index.js';

describe('kubelet.conf as DecodeKubeletConfig/EncodeKubeletConfig write it', () => {
  it('Go Duration.String()', () => {
    expect(goDurationString(0)).toBe('0s');
    expect(goDurationString(10_000)).toBe('10s');
    expect(goDurationString(300_000)).toBe('5m0s');
    expect(goDurationString(3_600_000)).toBe('1h0m0s');
    expect(goDurationString(1_500)).toBe('1.5s');
    expect(goDurationString(100)).toBe('100ms');
    expect(goDurationString(-90_000)).toBe('-1m30s');
  });

  it('drops unknown keys and zero omitempty values; refuses bad durations', () => {
    const c = decodeKubeletConfig(
      'bogus: 1\nmaxPods: 0\nrotateCertificates: false\nenableServer: false\nsyncFrequency: 90s\n',
    );
    expect(c).not.toHaveProperty('bogus');
    expect(c).not.toHaveProperty('maxPods');
    expect(c).not.toHaveProperty('rotateCertificates');
    expect(c['enableServer']).toBe(false);
    expect(encodeKubeletConfig(c)).toContain('\nsyncFrequency: 1m30s\n');
    expect(() => decodeKubeletConfig('syncFrequency: 5x\n')).toThrow(KubeletConfigError);
    expect(() => decodeKubeletConfig('- a\n')).toThrow('could not deserialize the Kubelet source: not a mapping');
  });
});
