import { describe, expect, it } from 'vitest';
import {
  Indexer,
  KubeError,
  controllerOwnerIndex,
  labelIndex,
  namespaceIndex,
  objectKey,
  splitObjectKey,
  type KubeObject,
} from '../src/index.js';

const obj = (name: string, namespace?: string, labels?: Record<string, string>, owner?: string): KubeObject => {
  const o: KubeObject = { metadata: { name, resourceVersion: '1' } };
  if (namespace !== undefined) o.metadata.namespace = namespace;
  if (labels !== undefined) o.metadata.labels = labels;
  if (owner !== undefined)
    o.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: owner, controller: true }];
  return o;
};

describe('keys', () => {
  it('builds and splits namespace/name keys', () => {
    expect(objectKey(obj('a', 'ns'))).toBe('ns/a');
    expect(objectKey(obj('worker'))).toBe('worker');
    expect(splitObjectKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(splitObjectKey('worker')).toEqual({ name: 'worker' });
    expect(() => splitObjectKey('a/b/c')).toThrow(KubeError);
    expect(() => splitObjectKey('/a')).toThrow(/unexpected cache key/);
    expect(() => objectKey({ metadata: {} })).toThrow(/metadata.name/);
  });
});

describe('Indexer', () => {
  it('maintains indexes across add, update and delete', () => {
    const s = new Indexer<KubeObject>({ namespace: namespaceIndex, role: labelIndex('role') });
    s.upsert(obj('a', 'n1', { role: 'master' }));
    s.upsert(obj('b', 'n1', { role: 'worker' }));
    s.upsert(obj('c', 'n2', { role: 'worker' }));
    expect(s.indexKeys('namespace', 'n1').sort()).toEqual(['n1/a', 'n1/b']);
    expect(s.byIndex('role', 'worker').map(objectKey).sort()).toEqual(['n1/b', 'n2/c']);
    s.upsert(obj('b', 'n1', { role: 'master' }));
    expect(s.indexKeys('role', 'worker')).toEqual(['n2/c']);
    expect(s.indexKeys('role', 'master').sort()).toEqual(['n1/a', 'n1/b']);
    expect(s.deleteKey('n2/c')?.metadata.name).toBe('c');
    expect(s.indexValues('role')).toEqual(['master']);
    expect(s.get('a', 'n1')?.metadata.name).toBe('a');
    expect(s.size()).toBe(2);
    expect(() => s.byIndex('nope', 'x')).toThrow(/no indexer named "nope"/);
  });

  it('indexes existing items when an indexer is added later, and refuses duplicates', () => {
    const s = new Indexer<KubeObject>();
    s.upsert(obj('p1', 'ns', undefined, 'uid-1'));
    s.upsert(obj('p2', 'ns', undefined, 'uid-2'));
    s.addIndexer('owner', controllerOwnerIndex);
    expect(s.indexKeys('owner', 'uid-2')).toEqual(['ns/p2']);
    expect(() => s.addIndexer('owner', controllerOwnerIndex)).toThrow(/already exists/);
  });
});
