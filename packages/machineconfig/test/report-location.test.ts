/**
 * Report positions of MachineConfig Ignition errors come from one index of the raw text (issue 24 §2): positions
 * as before (first character of the value, first occurrence of a duplicated key), at most MAX_REPORT_ENTRIES entries
 * printed, the rest counted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MachineConfigRenderError, renderMachineConfigs, type MachineConfig } from '../src/index.js';
import { MAX_REPORT_ENTRIES } from '../src/ignition-adapter.js';
import { indexJsonPositions } from '../src/json-index.js';

const mc = (config: unknown): MachineConfig => ({
  metadata: { name: '99-x', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
  spec: { config: config as never },
});

function renderError(config: unknown): MachineConfigRenderError {
  try {
    renderMachineConfigs({ pool: 'worker', configs: [mc(config)] });
  } catch (e) {
    if (e instanceof MachineConfigRenderError) return e;
    throw e;
  }
  throw new Error('render succeeded');
}

describe('MachineConfig report positions', () => {
  it('caps the report at the first entries and counts the rest', () => {
    const units = Array.from({ length: 4000 }, () => ({ name: 'a.service', enabled: true }));
    const e = renderError({ ignition: { version: '3.4.0' }, systemd: { units } });
    const lines = e.message
      .split('\n')
      .map((l) => l.replace(/^Report: /, ''))
      .filter((l) => l.startsWith('error at '));
    expect(lines).toHaveLength(MAX_REPORT_ENTRIES);
    expect(lines[0]).toBe('error at $.systemd.units.1, line 1 col 89: duplicate entry defined');
    expect(lines[1]).toBe('error at $.systemd.units.2, line 1 col 125: duplicate entry defined');
    expect(e.message).toContain(`... and ${3999 - MAX_REPORT_ENTRIES} more report entries not shown\n`);
  });

  it('keeps every entry of a small report with its position', () => {
    const e = renderError({
      ignition: { version: '3.4.0' },
      storage: { files: [{ path: 'rel', contents: { source: 'data:,x' } }] },
    });
    expect(e.message).toBe(
      'parsing Ignition config spec v3 failed with error: config is not valid\nReport: error at $.storage.files.0.path, line 1 col 93: path not absolute\n',
    );
  });

  it('indexes multi-line text: values, containers at their bracket, first of duplicate keys, missing paths', () => {
    const raw = '{\n  "a": [1, {"b": "x\\"y"}],\n  "a": 2,\n  "c": {}\n}';
    const idx = indexJsonPositions(raw);
    expect(idx.locate([])).toEqual({ line: 1, col: 1 });
    expect(idx.locate(['a'])).toEqual({ line: 2, col: 8 });
    expect(idx.locate(['a', 1, 'b'])).toEqual({ line: 2, col: 18 });
    expect(idx.locate(['c'])).toEqual({ line: 4, col: 8 });
    expect(idx.locate(['a', 2])).toBeUndefined();
    expect(idx.locate(['d'])).toBeUndefined();
  });

  it('places every path of a random document at the text of its value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.boolean(), (v, pretty) => {
        const raw = JSON.stringify(v, null, pretty ? 2 : undefined);
        const idx = indexJsonPositions(raw);
        const lineStarts = [0];
        for (let k = 0; k < raw.length; k++) if (raw[k] === '\n') lineStarts.push(k + 1);
        const walk = (x: unknown, path: (string | number)[]): void => {
          const pos = idx.locate(path);
          expect(pos).toBeDefined();
          if (!pos) return;
          const off = (lineStarts[pos.line - 1] ?? 0) + pos.col - 1;
          const expected = JSON.stringify(x);
          if (x === null || typeof x !== 'object') expect(raw.startsWith(expected, off)).toBe(true);
          else expect(raw[off]).toBe(Array.isArray(x) ? '[' : '{');
          if (Array.isArray(x))
            x.forEach((c, i) => {
              walk(c, [...path, i]);
            });
          else if (x !== null && typeof x === 'object') for (const [k, c] of Object.entries(x)) walk(c, [...path, k]);
        };
        walk(v, []);
      }),
      { numRuns: 200 },
    );
  });
});
