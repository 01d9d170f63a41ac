/**
 * Property-based fuzzing of the public parse entry points (issue 24 §3): whatever the input, they answer or throw
 * this package's typed errors only — never the YAML library's ReferenceError / Error (unresolved alias, merge of a
 * non-map, alias bomb), never a RangeError of a deep document. One nesting limit (100 levels) for JSON and YAML
 * manifests, `release-metadata` and `image-references`. Bounded runs (a few seconds in CI).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  loadPayloadFromFiles,
  MAX_DOCUMENT_DEPTH,
  parseImageReferences,
  parseManifestFile,
  parseReleaseMetadata,
  PayloadError,
  type PayloadIssue,
} from '../../src/index.js';

const RUNS = { numRuns: Number(process.env['FUZZ_RUNS'] ?? 300) };

/** Lines of YAML built from the constructs that broke the parser: anchors, aliases, merge keys, tags, flow nesting. */
const yamlLine = fc.oneof(
  fc.constantFrom(
    'a: *x',
    '<<: 1',
    '<<: *x',
    '<<: [*x, 1]',
    'x: &x {k: v}',
    'x: &x [1, 2]',
    'b: &b [*x, *x, *x, *x, *x, *x, *x, *x]',
    'c: [*b, *b, *b, *b, *b, *b, *b, *b]',
    'd: !!binary aGk=',
    'e: !!set {a, b}',
    'f: !!omap [a: 1]',
    '? [a]\n: 1',
    'kind: ImageStream',
    'apiVersion: image.openshift.io/v1',
    'spec: {tags: [{name: a, from: {kind: DockerImage, name: q}}]}',
    'metadata: {name: 1.0.0}',
    '---',
    '%YAML 1.1',
    'g: !unknown 1',
  ),
  fc.string({ maxLength: 20 }).map((s) => `k: ${s}`),
  fc.integer({ min: 0, max: 400 }).map((n) => `deep: ${'['.repeat(n)}${']'.repeat(n)}`),
);
const yamlText = fc.array(yamlLine, { maxLength: 8 }).map((l) => `${l.join('\n')}\n`);

/** JSON with nesting anywhere from shallow to far beyond any limit. */
const nested = (depth: number, leaf: string): string => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
const deepJson = fc
  .tuple(fc.integer({ min: 0, max: 20_000 }), fc.constantFrom('1', '[]', '"s"', 'null'))
  .map(([d, leaf]) => nested(d, leaf));

function typedOnly(f: () => unknown): void {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PayloadError);
  }
}

describe('public parsers throw only PayloadError', () => {
  it('parseImageReferences: hostile YAML (aliases, merge keys, alias bombs, tags, deep flow)', () => {
    fc.assert(
      fc.property(yamlText, (t) => {
        typedOnly(() => parseImageReferences(t));
      }),
      RUNS,
    );
    for (const t of ['a: *x\n', '<<: 1\n']) expect(() => parseImageReferences(t)).toThrow(PayloadError);
  });

  it('parseReleaseMetadata: deep and random JSON', () => {
    const md = deepJson.map((v) => `{"kind":"cincinnati-metadata-v0","version":"1.0.0","metadata":${v}}`);
    fc.assert(
      fc.property(fc.oneof(md, fc.json(), fc.string()), (t) => {
        typedOnly(() => parseReleaseMetadata(t));
      }),
      RUNS,
    );
    expect(() =>
      parseReleaseMetadata(`{"kind":"cincinnati-metadata-v0","version":"1.0.0","metadata":${nested(100_000, '1')}}`),
    ).toThrow(/nesting exceeded maxDepth \(100\)/);
  });

  it('parseManifestFile: one depth limit for JSON and YAML manifests, reported as an issue, never thrown', () => {
    const cm = (body: string): string => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"x":${body}}`;
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 95, max: 105 }), fc.integer({ min: 0, max: 3000 })),
        fc.boolean(),
        (d, json) => {
          const issues: PayloadIssue[] = [];
          // the same document as JSON or as YAML flow style: the top-level object plus d levels
          const text = json
            ? cm(nested(d, '1'))
            : `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nx: ${nested(d, '1')}\n`;
          const out = parseManifestFile(text, 'f.yaml', 'manifests', issues);
          const levels = d + 1;
          if (levels > MAX_DOCUMENT_DEPTH) {
            expect(out).toEqual([]);
            expect(issues[0]?.message).toMatch(/nesting exceeded maxDepth \(100\)/);
          } else if (json || levels < MAX_DOCUMENT_DEPTH) expect(out).toHaveLength(1); // js-yaml counts maps one level early
        },
      ),
      { numRuns: 150 },
    );
    fc.assert(
      fc.property(yamlText, (t) => {
        parseManifestFile(t, 'f.yaml', 'manifests', []);
      }),
      RUNS,
    );
  });

  it('loadPayloadFromFiles: fuzzed release-metadata and image-references', () => {
    const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
    const md = fc.oneof(
      deepJson.map((v) => `{"kind":"cincinnati-metadata-v0","version":"1.0.0","metadata":${v}}`),
      fc.constant('{"kind":"cincinnati-metadata-v0","version":"1.0.0"}'),
    );
    fc.assert(
      fc.property(md, yamlText, (m, ir) => {
        const files = {
          manifests: new Map<string, Uint8Array>(),
          releaseManifests: new Map([
            ['release-metadata', enc(m)],
            ['image-references', enc(ir)],
          ]),
        };
        typedOnly(() => loadPayloadFromFiles(files, 'fuzz'));
      }),
      { numRuns: 200 },
    );
  });
});
