/** When a ClusterVersion event wakes the sync loop (upstream: the sync worker restarts only when the desired work changed). */
import type { ClusterOperator, ClusterVersion } from '../api-types.js';

/**
 * Whether an update event changed what the operator was asked to do (spec or generation). An event that only changed
 * `status` (the operator's own status writes) does not start a pass: without this, every status write would start the
 * next pass at once, and the operator would re-apply the whole payload back to back instead of waiting its interval.
 */
export function specChanged(oldCv: ClusterVersion, newCv: ClusterVersion): boolean {
  if (oldCv.metadata.generation !== newCv.metadata.generation) return true;
  return JSON.stringify(oldCv.spec) !== JSON.stringify(newCv.spec);
}

function operatorVersion(co: ClusterOperator): string {
  return co.status?.versions?.find((v) => v.name === 'operator')?.version ?? '';
}

function conditionStatus(co: ClusterOperator, type: string): string {
  return co.status?.conditions?.find((c) => c.type === type)?.status ?? '';
}

/**
 * Upstream's ClusterOperator event handler (`NotifyAboutManagedResourceActivity`): a change of the `operator` version,
 * or of the Available or Degraded status, wakes the sync worker from its backoff, so the next run level starts when an
 * operator reaches the new version instead of after the retry interval. Returns the upstream message, or undefined.
 */
export function clusterOperatorActivity(oldCo: ClusterOperator, newCo: ClusterOperator): string | undefined {
  const name = newCo.metadata.name ?? '';
  const ov = operatorVersion(oldCo);
  const nv = operatorVersion(newCo);
  if (ov !== nv) return `Cluster operator ${name} changed versions[name="operator"] from "${ov}" to "${nv}"`;
  for (const type of ['Available', 'Degraded']) {
    const os = conditionStatus(oldCo, type);
    const ns = conditionStatus(newCo, type);
    if (os !== ns) return `Cluster operator ${name} changed ${type} from "${os}" to "${ns}"`;
  }
  return undefined;
}
