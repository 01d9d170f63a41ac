import { describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });
import { matchLabelRequirements } from '@keelson/api';
import {
  JsonPatchError,
  jsonPatch,
  mergePatch,
  strategicMergePatch,
  parseLabelSelector,
  matchLabels,
  ApiError,
} from '../src/index.js';

const lists = (p: string): { mergeKey?: string; set?: boolean } | undefined =>
  (
    ({
      'spec.containers': { mergeKey: 'name' },
      'spec.containers[].env': { mergeKey: 'name' },
      'metadata.finalizers': { set: true },
      'status.conditions': { mergeKey: 'type' },
    }) as Record<string, { mergeKey?: string; set?: boolean }>
  )[p];

describe('patch formats', () => {
  it('merge patch (RFC 7386) deletes with null and replaces lists', () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { b: { c: null, e: 4 }, l: [3] })).toEqual({
      a: 1,
      b: { d: 3, e: 4 },
      l: [3],
    });
  });
  it('json patch (RFC 6902) applies ops in order and fails on missing paths', () => {
    const doc = { a: { b: [1, 2] } };
    expect(
      jsonPatch(doc, [
        { op: 'add', path: '/a/b/-', value: 3 },
        { op: 'move', from: '/a/b', path: '/c' },
        { op: 'test', path: '/c/2', value: 3 },
      ]),
    ).toEqual({ a: {}, c: [1, 2, 3] });
    expect(() => jsonPatch(doc, [{ op: 'remove', path: '/a/x' }])).toThrow(ApiError);
    expect(() => jsonPatch(doc, [{ op: 'test', path: '/a/b/0', value: 9 }])).toThrow(
      expect.objectContaining({ operationError: 'testing value /a/b/0 failed: test failed', httpCode: 422 }),
    );
    expect(() => jsonPatch(doc, [{ op: 'test', path: '/a/b/0', value: 9 }])).toThrow(JsonPatchError);
    expect(doc).toEqual({ a: { b: [1, 2] } });
  });
  it('strategic merge patch merges keyed lists and honours directives', () => {
    const base = {
      metadata: { finalizers: ['a'] },
      spec: {
        containers: [
          { name: 'x', image: '1', env: [{ name: 'A', value: '1' }] },
          { name: 'y', image: '1' },
        ],
      },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    };
    const out = strategicMergePatch(
      base,
      {
        metadata: { finalizers: ['b'] },
        spec: {
          containers: [
            { name: 'x', env: [{ name: 'B', value: '2' }] },
            { name: 'y', $patch: 'delete' },
            { name: 'z', image: '3' },
          ],
        },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
      lists,
    );
    expect(out).toEqual({
      metadata: { finalizers: ['a', 'b'] },
      spec: {
        containers: [
          {
            name: 'x',
            image: '1',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
          { name: 'z', image: '3' },
        ],
      },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect(
      strategicMergePatch(base, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, lists),
    ).toMatchObject({ metadata: { finalizers: [] } });
    expect(strategicMergePatch(base, { spec: { $patch: 'replace', containers: [] } }, lists)).toMatchObject({
      spec: { containers: [] },
    });
  });
});

describe('label selectors', () => {
  it('parses equality, set and existence requirements', () => {
    const r = parseLabelSelector('a=1,b!=2,c in (x, y),d notin (z),e,!f');
    expect(matchLabelRequirements(r, { a: '1', b: '3', c: 'y', d: 'w', e: '' })).toBe(true);
    expect(matchLabelRequirements(r, { a: '1', b: '3', c: 'y', d: 'w', e: '', f: 'no' })).toBe(false);
    expect(matchLabelRequirements(r, { a: '1', b: '2', c: 'y', e: '' })).toBe(false);
    expect(() => parseLabelSelector('a==,=b')).toThrow(ApiError);
    expect(() => parseLabelSelector('a>x')).toThrow(/must be an integer/);
  });
  it('keeps the deprecated matchLabels export working (same implementation as @keelson/api)', () => {
    const r = parseLabelSelector('a in (1,2),!b');
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the compatibility export is what this test checks
    expect([matchLabels(r, { a: '2' }), matchLabels(r, { a: '2', b: '' }), matchLabels(r, undefined)]).toEqual([
      true,
      false,
      false,
    ]);
  });
});

describe('lists keyed by several fields (x-kubernetes-list-map-keys)', () => {
  it('merges items only when every key matches', () => {
    const lookup = (p: string): { mergeKey?: string; mergeKeys?: string[] } | undefined =>
      p === 'rules' ? { mergeKey: 'resource', mergeKeys: ['resource', 'apiGroup'] } : undefined;
    const out = strategicMergePatch(
      {
        rules: [
          { resource: 'pods', apiGroup: '', verbs: ['get'] },
          { resource: 'pods', apiGroup: 'metrics', verbs: ['get'] },
        ],
      },
      { rules: [{ resource: 'pods', apiGroup: 'metrics', verbs: ['list'] }] },
      lookup,
    );
    expect(out).toEqual({
      rules: [
        { resource: 'pods', apiGroup: '', verbs: ['get'] },
        { resource: 'pods', apiGroup: 'metrics', verbs: ['list'] },
      ],
    });
  });
});
