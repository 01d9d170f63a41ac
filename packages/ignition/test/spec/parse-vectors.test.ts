import { describe, expect, it } from 'vitest';
import {
  IgnitionParseError,
  parseConfig,
  type ParseOptions,
  type SpecVersion,
  type Spec3Version,
} from '../../src/spec/index.js';
import { ignitionVectors, prune } from './vectors.js';

const parseVectors = ignitionVectors.filter((v) => v.name.startsWith('parse/') || v.kind === 'translate');

type Expected = { error: { message: string; name: string } | null; config: unknown };
type Entry = { kind: string; message: string; path: (string | number)[]; line?: number; column?: number };

describe('ignition-vectors Parse / ParseCompatibleVersion', () => {
  it('has the vectors', () => {
    expect(parseVectors.length).toBe(243);
  });
  for (const v of parseVectors) {
    it(v.name, () => {
      const { raw } = v.input as { raw: string };
      const expected = v.expected as unknown as Expected;
      const opts: ParseOptions =
        v.kind === 'translate'
          ? { compatibleWith: v.spec as Spec3Version, experimental: true }
          : { version: v.spec as SpecVersion, experimental: true };
      let error: unknown = null;
      let result: ReturnType<typeof parseConfig> | null = null;
      try {
        result = parseConfig(raw, opts);
      } catch (e) {
        error = e;
      }
      if (expected.error) {
        expect(error).toBeInstanceOf(IgnitionParseError);
        const pe = error as IgnitionParseError;
        expect(pe.upstreamName).toBe(expected.error.name);
        expect(pe.message.startsWith(expected.error.message)).toBe(true);
        // semantic reports must match upstream's (syntax error texts differ between Go and JS)
        const full = (v.full_report ?? []) as Entry[];
        if (full.length > 0 && full.every((e) => e.path.length > 0)) {
          expect(pe.report.map((e) => ({ kind: e.kind, message: e.message, path: e.path }))).toEqual(
            full.map((e) => ({ kind: e.kind, message: e.message, path: e.path })),
          );
          // upstream's line/column (vcontext markers) where the vector has them
          full.forEach((e, i) => {
            if (e.line) expect([pe.report[i]?.line, pe.report[i]?.column]).toEqual([e.line, e.column]);
          });
        }
      } else {
        expect(error).toBeNull();
        expect(prune(result!.config)).toEqual(prune(expected.config));
        expect(result!.report.map((e) => ({ kind: e.kind, message: e.message, path: e.path }))).toEqual(
          ((v.full_report ?? []) as Entry[]).map((e) => ({ kind: e.kind, message: e.message, path: e.path })),
        );
      }
    });
  }
});
