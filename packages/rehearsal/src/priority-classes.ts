/**
 * The PriorityClass every OpenShift cluster has besides kube-apiserver's own system classes:
 * `openshift-user-critical` (the highest user-definable priority, 1000000000). The CVO's `version-<v>-<rand>` payload
 * Pod names it (openshift/cluster-version-operator pkg/cvo/updatepayload.go `fetchUpdatePayloadToDir`), and a real
 * kube-apiserver's Priority admission plugin refuses a Pod whose priorityClassName does not exist, so the rehearsal
 * bootstrap creates it as the cluster's installer-provided configuration would be.
 */
import { isAlreadyExists, type KubeClient } from '@keelson/kube';

/** `openshift-user-critical` as OpenShift clusters serve it. */
export const OPENSHIFT_USER_CRITICAL = {
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name: 'openshift-user-critical' },
  value: 1_000_000_000,
  globalDefault: false,
  preemptionPolicy: 'PreemptLowerPriority',
  description:
    'Used for user critical pods that must run in the cluster, but can be moved to another node if necessary.',
} as const;

/** What {@link bootstrapPriorityClasses} may create (for the cleanup of a rehearsal against an existing server). */
export function priorityClassObjects(): { apiVersion: string; kind: string; metadata: { name: string } }[] {
  return [OPENSHIFT_USER_CRITICAL];
}

/** Creates `openshift-user-critical` unless it exists (an OpenShift cluster, or a rehearsal kept with `--keep`). */
export async function bootstrapPriorityClasses(client: KubeClient): Promise<void> {
  for (const body of priorityClassObjects())
    try {
      await client.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
}
