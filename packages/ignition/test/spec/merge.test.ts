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

describe('where upstream merge is not associative', () => {
  it('a path changing kind makes the grouping matter', () => {
    const a: IgnitionConfigV3 = { ignition: { version: '3.5.0' }, storage: { files: [{ path: '/x', mode: 420 }] } };
    const b: IgnitionConfigV3 = { ignition: { version: '3.5.0' }, storage: { directories: [{ path: '/x' }] } };
    const c: IgnitionConfigV3 = {
      ignition: { version: '3.5.0' },
      storage: { files: [{ path: '/x', overwrite: false }] },
    };
    // (a+b)+c: the directory replaced a's file, then c's file replaces the directory
    expect(merge(merge(a, b), c).storage).toEqual({ files: [{ path: '/x', overwrite: false }] });
    // a+(b+c): c's file replaced b's directory, then merges field-wise with a's file
    expect(merge(a, merge(b, c)).storage).toEqual({ files: [{ path: '/x', mode: 420, overwrite: false }] });
  });
});
