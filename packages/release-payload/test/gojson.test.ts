import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJsonMarshal } from '../src/gojson.js';

/** Reference: the straightforward Go-style encoder (sorted keys by bytes, HTML escapes) written independently here. */
function reference(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string')
    return JSON.stringify(v).replace(
      /[<>&\u2028\u2029]/g,
      (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
    );
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return `{${keys.map((k) => `${reference(k)}:${reference(o[k])}`).join(',')}}`;
}

describe('goJsonMarshal', () => {
  it('sorts keys by bytes (numeric-looking keys too) and escapes like Go', () => {
    expect(goJsonMarshal({ b: 1, a: ['<x>', '&'], '10': true, '9': null })).toBe(
      '{"10":true,"9":null,"a":["\\u003cx\\u003e","\\u0026"],"b":1}',
    );
    expect(goJsonMarshal({ s: 'tab\there\u0001\u2028' })).toBe('{"s":"tab\\there\\u0001\\u2028"}');
  });
  it('agrees with a reference encoder on 2 000 random JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const clean = JSON.parse(JSON.stringify(v)) as unknown; // drop -0 and undefined
        expect(goJsonMarshal(clean)).toBe(reference(clean));
      }),
      { numRuns: 2000, seed: 5 },
    );
  });
});
