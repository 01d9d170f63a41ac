import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { validate } from '../../src/index.js';
import { ButaneVectorShapeError, loadButaneVectors, parseVectorFile } from './upstream-vectors.js';

// Checks the transcribed upstream Butane vectors themselves (no Butane translation involved): every file has the
// documented shape, every input is YAML declaring the vector's variant and version, names are unique, and every
// expected Ignition config is valid Ignition of its spec version according to this package's own validator.

const files = loadButaneVectors();

function ignitionOf(config: Record<string, unknown>): Record<string, unknown> {
  if (config.kind === 'MachineConfig') {
    const spec = config.spec as Record<string, unknown>;
    return spec.config as Record<string, unknown>;
  }
  return config;
}

describe('upstream butane vectors: shape', () => {
  it('loads the vector files', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it('has unique vector names', () => {
    const names = files.flatMap((f) => f.vectors.map((v) => v.name));
    expect(names.length).toBe(new Set(names).size);
  });

  it('rejects a malformed vector file with a typed error', () => {
    const bad = JSON.stringify({
      upstream: { repo: 'coreos/butane', revision: 'a'.repeat(40), file: 'x', license: 'Apache-2.0' },
      vectors: [
        {
          name: 'n',
          source: { file: 'x', test: 't' },
          variant: 'rhcos',
          version: '1.0.0',
          input: '',
          options: {},
          expected: { report: [], reportMatch: 'exact' },
        },
      ],
    });
    expect(() => parseVectorFile('bad.json', bad)).toThrow(ButaneVectorShapeError);
    expect(() => parseVectorFile('bad.json', bad)).toThrow(/variant/);
  });

  for (const file of files) {
    describe(file.fileName, () => {
      for (const v of file.vectors) {
        it(`${v.name}: input declares its variant and version`, () => {
          const doc = parseYaml(v.input) as Record<string, unknown>;
          expect(doc.variant).toBe(v.variant);
          expect(doc.version).toBe(v.version);
          expect(v.source.file).toBe(file.upstream.file);
          // experimental versions are only translated on request
          expect(v.options.experimental === true).toBe(v.version.endsWith('-experimental'));
        });
        const config = v.expected.config;
        if (config !== undefined) {
          it(`${v.name}: expected config is valid Ignition`, () => {
            const res = validate(ignitionOf(config), { experimental: v.version.endsWith('-experimental') });
            expect(res.entries.filter((e) => e.kind === 'error')).toEqual([]);
            expect(res.valid).toBe(true);
            if (v.expected.reportMatch === 'exact') {
              // an exact report must already hold every warning Ignition validation gives on the output
              const expectedWarnings = new Set(
                v.expected.report.filter((e) => e.kind === 'warning').map((e) => e.message),
              );
              const unexpected = res.entries.filter((e) => e.kind === 'warning' && !expectedWarnings.has(e.message));
              expect(unexpected).toEqual([]);
            }
          });
        }
      }
    });
  }
});
