import { describe, expect, it } from 'vitest';
import { merge, mergeWithTranscript, type IgnitionConfigV3 } from '../../src/spec/index.js';
import { ignitionVectors, prune } from './vectors.js';

const mergeVectors = ignitionVectors.filter((v) => v.kind === 'merge');

describe('merge vectors (coreos/ignition config/merge)', () => {
  it('has the vectors', () => {
    expect(mergeVectors.length).toBe(25);
  });
  for (const v of mergeVectors) {
    it(v.name, () => {
      const { parent, child } = v.input as { parent: IgnitionConfigV3; child: IgnitionConfigV3 };
      const got = merge(parent, child);
      expect(prune(got)).toEqual(prune(v.expected['result']));
      if (v.expected['transcript'] !== undefined) {
        const { transcript } = mergeWithTranscript(parent, child);
        expect(transcript).toEqual(v.expected['transcript']);
      }
    });
  }
});
