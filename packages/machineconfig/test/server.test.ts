import { describe, expect, it } from 'vitest';
import { AcceptHeaderError, negotiateIgnitionVersion, parseAcceptHeader } from '../src/server.js';
import { vectorsFor } from './vectors.js';

describe('machine-config-server Accept negotiation: server.* vectors', () => {
  const vs = vectorsFor('server.');
  it('has the 15 vectors', () => expect(vs.length).toBe(15));
  for (const v of vs) {
    it(v.name, () => {
      const header = v.input['accept'] as string;
      if ('parsed' in v.expected) {
        const parsed = parseAcceptHeader(header);
        expect(parsed.length === 0 ? null : parsed).toEqual(v.expected['parsed']);
      }
      if (typeof v.expected['error'] === 'string') {
        expect(() => negotiateIgnitionVersion(header)).toThrow(AcceptHeaderError);
        expect(() => negotiateIgnitionVersion(header)).toThrow(v.expected['error']);
      } else {
        expect(negotiateIgnitionVersion(header)).toBe(v.expected['version']);
      }
    });
  }
  it('serves 2.2.0 without an Accept header', () => {
    expect(negotiateIgnitionVersion(undefined)).toBe('2.2.0');
    expect(negotiateIgnitionVersion('')).toBe('2.2.0');
  });
});
