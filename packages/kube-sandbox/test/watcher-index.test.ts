/**
 * Watch fan-out indexed by resource and pinned name: a change is matched only against the watches that can want it
 * (its resource's unpinned watches and those whose `metadata.name=` selector names it), and a watch resumed from a
 * resourceVersion starts its replay at the first later event.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { Cluster, type Watcher, type WatchEventType } from '../src/cluster.js';
import type { FieldRequirement } from '../src/selectors.js';
import { firstAfter, pinnedName } from '../src/watcher-index.js';
import type { KubeObject } from '../src/types.js';

const byName = (value: string, negate = false): FieldRequirement => ({
  field: 'metadata.name',
  path: 'metadata.name',
  value,
  negate,
});

describe('watch fan-out by resource and pinned name', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await startSandbox({ historySize: 1000 });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await sb.stop();
  });

  function watch(
    plural: string,
    fields: FieldRequirement[],
    rv?: string,
  ): { got: Array<[WatchEventType, string]>; stop: () => void } {
    const t = sb.cluster.findType('', 'v1', plural);
    if (t === undefined) throw new Error(plural);
    const got: Array<[WatchEventType, string]> = [];
    const w: Omit<Watcher, 'gr'> = {
      labels: [],
      fields,
      send: (type: WatchEventType, o: KubeObject) => got.push([type, o.metadata?.name ?? '']),
    };
    return { got, stop: sb.cluster.watch(t, w, rv) };
  }

  it('delivers a Node change to its pinned watch and the unpinned ones, matching no other watch', () => {
    for (let i = 0; i < 50; i++) sb.setNodeReady(`n${i}`, true);
    const pinned = Array.from({ length: 50 }, (_, i) => watch('nodes', [byName(`n${i}`)]));
    const notN0 = watch('nodes', [byName('n0', true)]);
    const cms = watch('configmaps', []);
    for (const [i, p] of pinned.entries()) expect(p.got).toEqual([['ADDED', `n${i}`]]);
    expect(notN0.got).toHaveLength(49);
    const cmsAtStart = cms.got.length;
    const matches = vi.spyOn(Cluster.prototype as unknown as { matches: () => boolean }, 'matches');
    sb.setNodeReady('n7', false);
    expect(pinned[7]?.got.at(-1)).toEqual(['MODIFIED', 'n7']);
    for (const [i, p] of pinned.entries()) if (i !== 7) expect(p.got).toHaveLength(1);
    expect(notN0.got.at(-1)).toEqual(['MODIFIED', 'n7']);
    expect(cms.got).toHaveLength(cmsAtStart);
    // the object and its previous state, against n7's watch and the unpinned one: 4 (a scan of every watch: 102)
    expect(matches).toHaveBeenCalledTimes(4);
    pinned[7]?.stop();
    pinned[7]?.stop();
    sb.setNodeReady('n7', true);
    expect(pinned[7]?.got).toHaveLength(2);
    expect(sb.cluster.watcherCount()).toBe(51 + 1 - 1);
  });

  it('a watch from a resourceVersion replays exactly the later events of its resource', () => {
    sb.setNodeReady('a', true);
    const rv = sb.setNodeReady('b', true).metadata?.resourceVersion ?? '';
    sb.setNodeReady('a', false);
    const cmType = sb.cluster.findType('', 'v1', 'configmaps');
    if (cmType === undefined) throw new Error('configmaps');
    sb.cluster.create(cmType, 'default', { metadata: { name: 'c' } });
    sb.setNodeReady('c', true);
    expect(watch('nodes', [], rv).got).toEqual([
      ['MODIFIED', 'a'],
      ['ADDED', 'c'],
    ]);
    expect(watch('nodes', [byName('c')], rv).got).toEqual([['ADDED', 'c']]);
  });
});

describe('watcher index helpers', () => {
  it('firstAfter finds the first later event, also among equal resourceVersions and from a start', () => {
    const h = [1, 2, 2, 5, 9].map((rv) => ({ rv }));
    expect(firstAfter(h, 0, 0)).toBe(0);
    expect(firstAfter(h, 0, 2)).toBe(3);
    expect(firstAfter(h, 0, 4)).toBe(3);
    expect(firstAfter(h, 0, 9)).toBe(5);
    expect(firstAfter(h, 4, 1)).toBe(4);
    expect(firstAfter([], 0, 3)).toBe(0);
  });

  it('pinnedName: an equality on metadata.name pins, an inequality does not', () => {
    expect(pinnedName({ fields: [byName('x')] })).toBe('x');
    expect(pinnedName({ fields: [byName('x', true)] })).toBeUndefined();
    expect(pinnedName({ fields: [] })).toBeUndefined();
  });
});
