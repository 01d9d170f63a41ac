/**
 * The sandbox's hot-path helpers: the JSON clone that replaced structuredClone, and the decision of which changes
 * wake the garbage collector (it used to run over every object on any write of an owned object).
 */
import { describe, expect, it } from 'vitest';
import { gcRelevant, nodeChangeMatters } from '../src/controllers.js';
import type { KubeObject } from '../src/types.js';
import { clone } from '../src/util.js';

describe('clone', () => {
  it('deep-copies JSON data as structuredClone does', () => {
    const o = { a: [1, { b: 'x', c: null }], d: { e: true, f: undefined }, g: 1.5 };
    const c = clone(o);
    expect(c).toEqual(structuredClone(o));
    expect(Object.keys(c.d)).toEqual(['e', 'f']);
    c.a.push(2);
    (c.a[1] as { b: string }).b = 'y';
    expect(o.a).toHaveLength(2);
    expect((o.a[1] as { b: string }).b).toBe('x');
  });

  it('keeps a JSON "__proto__" key as data, never as the prototype', () => {
    const o = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const c = clone(o);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect((c as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.hasOwn(c, '__proto__')).toBe(true);
    expect(JSON.stringify(c)).toBe(JSON.stringify(o));
  });

  it('hands non-JSON values to structuredClone', () => {
    const d = new Date(0);
    const c = clone({ d });
    expect(c.d).toBeInstanceOf(Date);
    expect(c.d).not.toBe(d);
    expect(c.d.getTime()).toBe(0);
  });
});

describe('gcRelevant', () => {
  const owned = (uid: string): KubeObject => ({
    metadata: { name: 'p', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid }] },
  });
  const refs = (o: KubeObject) => o.metadata?.ownerReferences;

  it('a status write of an owned object does not wake the collector', () => {
    expect(gcRelevant({ type: 'MODIFIED', previous: owned('u1') }, refs(owned('u1')), [])).toBe(false);
  });

  it('deletions, new owned objects, changed owners and orphan/foreground finalizers do', () => {
    expect(gcRelevant({ type: 'DELETED' }, undefined, [])).toBe(true);
    expect(gcRelevant({ type: 'ADDED' }, refs(owned('u1')), [])).toBe(true);
    expect(gcRelevant({ type: 'MODIFIED', previous: owned('u1') }, refs(owned('u2')), [])).toBe(true);
    expect(gcRelevant({ type: 'MODIFIED', previous: owned('u1') }, undefined, [])).toBe(true);
    expect(gcRelevant({ type: 'MODIFIED', previous: { metadata: { name: 'x' } } }, undefined, ['orphan'])).toBe(true);
    expect(
      gcRelevant({ type: 'MODIFIED', previous: { metadata: { name: 'x' } } }, undefined, ['foregroundDeletion']),
    ).toBe(true);
  });

  it('objects without owners are none of its business', () => {
    expect(gcRelevant({ type: 'ADDED' }, undefined, [])).toBe(false);
    expect(gcRelevant({ type: 'MODIFIED', previous: { metadata: { name: 'x' } } }, [], ['kubernetes'])).toBe(false);
  });
});

describe('nodeChangeMatters', () => {
  const node = (o: { ready?: boolean; labels?: Record<string, string>; ann?: string; spec?: object }): KubeObject => ({
    metadata: { name: 'n', labels: o.labels ?? { a: '1' }, annotations: { x: o.ann ?? '' } },
    spec: o.spec ?? {},
    status: { conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  });

  it("an annotation write (the daemons' state) does not wake the workload controllers", () => {
    expect(nodeChangeMatters({ type: 'MODIFIED', previous: node({}), object: node({ ann: 'Working' }) })).toBe(false);
  });

  it('readiness, labels, spec (cordon, taints), new and deleted nodes do', () => {
    expect(nodeChangeMatters({ type: 'MODIFIED', previous: node({}), object: node({ ready: false }) })).toBe(true);
    expect(nodeChangeMatters({ type: 'MODIFIED', previous: node({}), object: node({ labels: { a: '2' } }) })).toBe(
      true,
    );
    expect(
      nodeChangeMatters({ type: 'MODIFIED', previous: node({}), object: node({ spec: { unschedulable: true } }) }),
    ).toBe(true);
    expect(nodeChangeMatters({ type: 'ADDED', object: node({}) })).toBe(true);
    expect(nodeChangeMatters({ type: 'DELETED', object: node({}) })).toBe(true);
  });
});
