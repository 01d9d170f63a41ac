/** How an update compares with the stored object: no-op detection and whether `generation` moves. */
import type { KubeObject, ResourceType } from './types.js';
import { deepEqual } from './util.js';

/** The object without what every write changes (resourceVersion, generation, managed-fields times). */
export function stripVolatile(o: KubeObject): KubeObject {
  const c = { ...o, metadata: { ...(o.metadata ?? {}) } };
  delete c.metadata.resourceVersion;
  delete c.metadata.generation;
  if (c.metadata.managedFields) c.metadata.managedFields = c.metadata.managedFields.map((e) => ({ ...e, time: '' }));
  return c;
}

/** Whether anything other than metadata (and status, when it is a subresource) changed. */
export function specChanged(t: ResourceType, a: KubeObject, b: KubeObject): boolean {
  const skipStatus = t.crd ? t.crd.statusSubresource : t.subresources.includes('status');
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind') continue;
    if (k === 'status' && skipStatus) continue;
    if (!deepEqual(a[k], b[k])) return true;
  }
  return false;
}
