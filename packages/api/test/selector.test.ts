import { describe, expect, it } from 'vitest';
import {
  LabelSelectorError,
  MAX_LABEL_SELECTOR_LENGTH,
  compileLabelSelector,
  isEmptyLabelSelector,
  labelRequirementsString,
  labelSelectorMatches,
  labelSelectorRequirements,
  matchLabelRequirements,
  parseLabelSelectorString,
  type LabelSelector,
} from '../src/index.js';

const labels = { a: '1', b: '2', n: '5' };

/** The LabelSelectorError `fn` throws (fails the test when it throws nothing or something else). */
function selectorError(fn: () => unknown): LabelSelectorError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(LabelSelectorError);
    return e as LabelSelectorError;
  }
  throw new Error('expected a LabelSelectorError');
}

describe('selector objects (metav1.LabelSelector)', () => {
  it.each<[LabelSelector | null, boolean]>([
    [{ matchLabels: { a: '1' } }, true],
    [{ matchLabels: { a: '2' } }, false],
    [{ matchLabels: { c: '' } }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['0', '1'] }] }, true],
    [{ matchExpressions: [{ key: 'c', operator: 'In', values: ['1'] }] }, false],
    [{ matchExpressions: [{ key: 'c', operator: 'NotIn', values: ['x'] }] }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, false],
    [{ matchExpressions: [{ key: 'b', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'b', operator: 'DoesNotExist' }] }, false],
    [{ matchExpressions: [{ key: 'z', operator: 'DoesNotExist' }] }, true],
    [{ matchLabels: { a: '1' }, matchExpressions: [{ key: 'z', operator: 'Exists' }] }, false],
    [{}, true],
    [null, false],
  ])('%j matches %j: %s', (sel, want) => {
    expect(labelSelectorMatches(sel, labels)).toBe(want);
  });

  it('null label sets behave as empty ones', () => {
    expect(labelSelectorMatches({}, null)).toBe(true);
    expect(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, undefined)).toBe(true);
    expect(labelSelectorMatches({ matchLabels: { a: '1' } }, null)).toBe(false);
  });

  it('does not treat inherited properties as labels', () => {
    expect(labelSelectorMatches({ matchExpressions: [{ key: 'toString', operator: 'Exists' }] }, {})).toBe(false);
  });

  it('prints like labels.Selector.String (sorted by key, values sorted)', () => {
    const sel: LabelSelector = {
      matchLabels: { z: 'v' },
      matchExpressions: [
        { key: 'a', operator: 'In', values: ['y', 'x'] },
        { key: 'm', operator: 'DoesNotExist' },
      ],
    };
    expect(compileLabelSelector(sel).toString()).toBe('a in (x,y),!m,z=v');
    expect(compileLabelSelector(null).toString()).toBe('');
    expect(compileLabelSelector(null).matchesNothing).toBe(true);
  });

  it.each([
    [
      { matchExpressions: [{ key: 'a', operator: 'In' as const, values: [] }] },
      ['matchExpressions', 0, 'values'],
      'In requires a non-empty values list for key a',
    ],
    [
      {
        matchExpressions: [
          { key: 'a', operator: 'Exists' as const },
          { key: 'b', operator: 'Exists' as const, values: ['x'] },
        ],
      },
      ['matchExpressions', 1, 'values'],
      'Exists requires an empty values list for key b',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Equals' as unknown as 'In', values: ['x'] }] },
      ['matchExpressions', 0, 'operator'],
      '"Equals" is not a valid label selector operator',
    ],
  ])('rejects %j at %j', (sel, path, message) => {
    const err = selectorError(() => labelSelectorRequirements(sel));
    expect(err.code).toBe('LABEL_SELECTOR_INVALID');
    expect(err.path).toEqual(path);
    expect(err.message).toContain(message);
  });

  it('isEmptyLabelSelector: only {} (and null lists) is empty', () => {
    expect(isEmptyLabelSelector({})).toBe(true);
    expect(isEmptyLabelSelector({ matchLabels: null, matchExpressions: null })).toBe(true);
    expect(isEmptyLabelSelector(null)).toBe(false);
    expect(isEmptyLabelSelector({ matchLabels: { a: '' } })).toBe(false);
  });
});

describe('selector strings (labels.Parse)', () => {
  it('parses every operator and matches like the API server', () => {
    const r = parseLabelSelectorString('a=1,b!=2,c in (x, y),d notin (z),e,!f,n>3,m<9');
    expect(r.map((q) => q.op)).toEqual(['=', '!=', 'in', 'notin', 'exists', '!', 'gt', 'lt']);
    expect(matchLabelRequirements(r, { a: '1', b: '3', c: 'y', d: 'w', e: '', n: '4', m: '8' })).toBe(true);
    expect(matchLabelRequirements(r, { a: '1', b: '3', c: 'y', d: 'w', e: '', f: 'no', n: '4', m: '8' })).toBe(false);
    expect(matchLabelRequirements(r, { a: '1', b: '2', c: 'y', e: '', n: '4', m: '8' })).toBe(false);
    expect(matchLabelRequirements(r, { a: '1', b: '3', c: 'y', e: '', n: 'x', m: '8' })).toBe(false);
    expect(labelRequirementsString(r)).toBe('a=1,b!=2,c in (x,y),d notin (z),e,!f,n>3,m<9');
  });

  it('accepts == and an empty string', () => {
    expect(parseLabelSelectorString('a==b')).toEqual([{ key: 'a', op: '=', values: ['b'] }]);
    expect(parseLabelSelectorString('')).toEqual([]);
    expect(parseLabelSelectorString('example.com/role')).toEqual([
      { key: 'example.com/role', op: 'exists', values: [] },
    ]);
  });

  it.each(['a==,=b', 'a b', '-a', 'a>x', `${'a'.repeat(MAX_LABEL_SELECTOR_LENGTH)}=1`])(
    'rejects %s with LABEL_SELECTOR_PARSE',
    (s) => {
      const err = selectorError(() => parseLabelSelectorString(s));
      expect(err.code).toBe('LABEL_SELECTOR_PARSE');
      expect(err.message).toMatch(/^unable to parse requirement/);
    },
  );
});
