/**
 * `--fault admin-ack-required[=never]`: a minor update that needs an administrator's acknowledgement. A carries an
 * admin-ack gate for its minor (`openshift-config-managed/admin-gates`, as a release before an API removal does), so
 * the CVO reports Upgradeable=False AdminAckRequired and refuses B (ReleaseAccepted=False PreconditionChecks,
 * precondition `ClusterVersionUpgradeable`) until the gate's key is `"true"` in `openshift-config/admin-acks`. The
 * rehearsal then acts as the admin would (`oc patch`), or, with `=never`, leaves it refused.
 */
import { isNotFound, type KubeClient } from '@keelson/kube';
import type { ReleasePayload } from '@keelson/release-payload';
import { adminAckPatchCommand, pendingAdminAcks, type PendingAdminAck } from '@keelson/cluster-version';
import { FaultSpecError } from './faults.js';
import { cond } from './verdict.js';

/** The gate the generated A ships (the real 4.18 → 4.19 gate's key; the text is the rehearsal's own). */
export const REHEARSAL_ADMIN_GATE = 'ack-4.18-kube-1.32-api-removals-in-4.19';
const REHEARSAL_GATE_TEXT =
  'Kubernetes 1.32 and therefore OpenShift 4.19 remove APIs this cluster may still use: check the API request counts ' +
  '(oc get apirequestcounts) and move clients to the replacement APIs before acknowledging.';

/** Generated releases for the fault: A at 4.18.7 with the gate, B at 4.19.0 (a minor update). */
export const ADMIN_ACK_RELEASES = {
  fromVersion: '4.18.7',
  toVersion: '4.19.0',
  adminGates: { [REHEARSAL_ADMIN_GATE]: REHEARSAL_GATE_TEXT },
} as const;

const GATES = { namespace: 'openshift-config-managed', name: 'admin-gates' };
const ACKS = { namespace: 'openshift-config', name: 'admin-acks' };

/** `data` of A's `admin-gates` ConfigMap manifest ({} when A has none). */
export function adminGatesOf(payload: ReleasePayload): Record<string, string> {
  const m = payload.manifests.find(
    (x) => x.gvk.kind === 'ConfigMap' && x.namespace === GATES.namespace && x.name === GATES.name,
  );
  const data = (m?.object as { data?: Record<string, unknown> } | undefined)?.data ?? {};
  return Object.fromEntries(Object.entries(data).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function minorOf(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/**
 * With the user's releases, the fault needs what it shows (else a {@link FaultSpecError} before anything starts): a
 * minor update, and a gate of A's minor in A's admin-gates.
 */
export function checkAdminAckReleases(a: ReleasePayload, b: ReleasePayload): void {
  const flag = '--fault admin-ack-required';
  const from = a.metadata.version;
  const to = b.metadata.version;
  if (minorOf(from) === minorOf(to))
    throw new FaultSpecError(`${from} -> ${to} is not a minor update: admin acks only gate minor updates`, flag);
  const pending = pendingAdminAcks({
    history: [{ state: 'Completed', version: from }],
    gates: adminGatesOf(a),
    acks: {},
  });
  if (pending.length === 0)
    throw new FaultSpecError(
      `${from} ships no admin-ack gate for ${minorOf(from)} in openshift-config-managed/admin-gates (keys ack-${minorOf(from)}-…)`,
      flag,
    );
}

/**
 * The CVO refused the target on the admin ack: ReleaseAccepted=False PreconditionChecks, its precondition failing
 * because of `AdminAckRequired` (the Upgradeable condition alone only warns: the refusal is what an admin meets).
 */
export function blockedOnAdminAck(clusterVersion: unknown): boolean {
  const accepted = cond(clusterVersion, 'ReleaseAccepted');
  return (
    accepted?.status === 'False' &&
    accepted.reason === 'PreconditionChecks' &&
    /"AdminAckRequired"|AdminAckRequired/.test(accepted.message ?? '')
  );
}

async function configMapData(client: KubeClient, ns: string, name: string): Promise<Record<string, string> | null> {
  try {
    const cm = await client.request<{ data?: Record<string, string> }>(
      'GET',
      `/api/v1/namespaces/${ns}/configmaps/${name}`,
    );
    return cm.data ?? {};
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
}

/** What an admin does: read the gates the cluster's version still needs, then `oc patch` admin-acks with them. */
export async function giveAdminAcks(
  client: KubeClient,
  history: readonly { state?: string; version?: string }[] | undefined,
): Promise<{ acked: PendingAdminAck[]; command: string }> {
  const pending = pendingAdminAcks({
    history,
    gates: await configMapData(client, GATES.namespace, GATES.name),
    acks: await configMapData(client, ACKS.namespace, ACKS.name),
  });
  if (pending.length === 0) return { acked: [], command: '' };
  const data = Object.fromEntries(pending.map((p) => [p.gate, 'true']));
  await client.request('PATCH', `/api/v1/namespaces/${ACKS.namespace}/configmaps/${ACKS.name}`, {
    body: { data },
    contentType: 'application/merge-patch+json',
  });
  return { acked: pending, command: adminAckPatchCommand(pending.map((p) => p.gate)) };
}
