/** When a ClusterVersion event wakes the sync loop (upstream: the sync worker restarts only when the desired work changed). */
import type { ClusterVersion } from '../api-types.js';

/**
 * Whether an update event changed what the operator was asked to do (spec or generation). An event that only changed
 * `status` (the operator's own status writes) does not start a pass: without this, every status write would start the
 * next pass at once, and the operator would re-apply the whole payload back to back instead of waiting its interval.
 */
export function specChanged(oldCv: ClusterVersion, newCv: ClusterVersion): boolean {
  if (oldCv.metadata.generation !== newCv.metadata.generation) return true;
  return JSON.stringify(oldCv.spec) !== JSON.stringify(newCv.spec);
}
