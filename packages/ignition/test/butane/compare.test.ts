import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compareReport, normalizeConfig } from './compare.js';

describe('butane vector comparison rules', () => {
  const e = { kind: 'error' as const, message: 'm', path: '$.a' };
  it('matches reports order-insensitively and reports missing and extra entries', () => {
    const a = { kind: 'warning', message: 'w', path: '$.b' };
    expect(compareReport([e, { kind: 'warning', message: 'w' }], [a, e], 'exact')).toEqual({
      missing: [],
      unexpected: [],
    });
    expect(compareReport([e], [a, e], 'exact')).toEqual({ missing: [], unexpected: [a] });
    expect(compareReport([e], [a, e], 'contains')).toEqual({ missing: [], unexpected: [] });
    expect(compareReport([e], [{ ...e, path: '$.c' }], 'contains').missing).toEqual([e]);
    expect(compareReport([{ ...e, line: 3 }], [{ ...e, line: 4 }], 'exact').missing).toHaveLength(1);
  });
  it('counts each actual entry once', () => {
    expect(compareReport([e, e], [e], 'exact').missing).toEqual([e]);
  });
  it('compares gzip data URLs by payload and everything else literally', () => {
    const url = (level: number) =>
      `data:;base64,${gzipSync(Buffer.from('hello hello hello'), { level }).toString('base64')}`;
    expect(url(1)).not.toBe(url(9));
    expect(normalizeConfig({ f: [{ source: url(1), compression: 'gzip' }] })).toEqual(
      normalizeConfig({ f: [{ source: url(9), compression: 'gzip' }] }),
    );
    expect(normalizeConfig({ source: 'data:,a', compression: '' })).toEqual({ source: 'data:,a', compression: '' });
    expect(normalizeConfig({ f: [{ source: url(9), compression: 'gzip' }] })).not.toEqual(
      normalizeConfig({
        f: [{ source: `data:;base64,${gzipSync(Buffer.from('other')).toString('base64')}`, compression: 'gzip' }],
      }),
    );
  });
});
