/**
 * Admin-ack gates (upstream openshift/cluster-version-operator release-4.20 `pkg/cvo/upgradeable.go`
 * `clusterAdminAcksCompletedUpgradeable`, `checkAdminGate`, `gateApplicableToCurrentVersion`): the ConfigMap
 * `openshift-config-managed/admin-gates` names gates `ack-<major>.<minor>-<description>` whose value explains what to
 * acknowledge; a gate applies while the cluster's current minor is the gate's minor, and is satisfied when
 * `openshift-config/admin-acks` has the same key set to `"true"`.
 */

/** Namespace and name of the gates ConfigMap. */
export const ADMIN_GATES = { namespace: 'openshift-config-managed', name: 'admin-gates' } as const;
/** Namespace and name of the acknowledgements ConfigMap. */
export const ADMIN_ACKS = { namespace: 'openshift-config', name: 'admin-acks' } as const;

/** upstream `adminAckGateFmt`. */
const GATE_PATTERN = /^ack-[4-5][.]([0-9]{1,})-[^-]/;
const GATE_FMT = '^ack-[4-5][.]([0-9]{1,})-[^-]';

/** The condition type of the admin-ack check. */
export const UPGRADEABLE_ADMIN_ACK_REQUIRED = 'UpgradeableAdminAckRequired';

/** One gate the current version still needs acknowledged. */
export interface PendingAdminAck {
  /** The `admin-acks` key to set to `"true"`. */
  gate: string;
  /** The gate's description (its value in `admin-gates`). */
  description: string;
}

/** A failed admin-ack check. */
export interface AdminAckResult {
  reason: string;
  message: string;
}

/** upstream `getEffectiveMinor`: the `y` of `x.y…`, else `''`. */
export function effectiveMinor(version: string): string {
  const parts = version.split('.');
  return parts.length < 2 ? '' : (parts[1] ?? '');
}

/** upstream `clusterversion.GetCurrentVersion`: the newest Completed history entry, else the oldest entry. */
export function currentHistoryVersion(history: readonly { state?: string; version?: string }[] | undefined): string {
  const h = history ?? [];
  const completed = h.find((e) => e.state === 'Completed');
  if (completed) return completed.version ?? '';
  return h.length > 0 ? (h[h.length - 1]?.version ?? '') : '';
}

/** upstream `checkAdminGate`: `[reason, message]` of one gate, or undefined when it does not block. */
function checkGate(
  gate: string,
  value: string,
  currentVersion: string,
  acks: Readonly<Record<string, string>>,
): AdminAckResult | undefined {
  const m = GATE_PATTERN.exec(gate);
  if (!m)
    return {
      reason: 'AdminAckConfigMapGateNameError',
      message: `${ADMIN_GATES.name} configmap gate name ${gate} has invalid format; must comply with ${JSON.stringify(GATE_FMT)}.`,
    };
  const ackMinor = effectiveMinor(m[0].split('-')[1] ?? '');
  if (ackMinor !== effectiveMinor(currentVersion)) return undefined;
  if (value === '')
    return {
      reason: 'AdminAckConfigMapGateValueError',
      message: `${ADMIN_GATES.name} configmap gate ${gate} must contain a non-empty value.`,
    };
  if (acks[gate] !== 'true') return { reason: 'AdminAckRequired', message: value };
  return undefined;
}

/** Inputs of {@link checkAdminAcks}. */
export interface AdminAckInput {
  /** ClusterVersion `status.history`. */
  history: readonly { state?: string; version?: string }[] | undefined;
  /** `data` of `admin-gates`, or null when the ConfigMap does not exist. */
  gates: Readonly<Record<string, string>> | null;
  /** `data` of `admin-acks`, or null when the ConfigMap does not exist. */
  acks: Readonly<Record<string, string>> | null;
}

/** upstream `clusterAdminAcksCompletedUpgradeable.Check`: undefined when every applicable gate is acknowledged. */
export function checkAdminAcks(input: AdminAckInput): AdminAckResult | undefined {
  const current = currentHistoryVersion(input.history);
  if (current === '') return undefined;
  if (input.gates === null)
    return { reason: 'UnableToAccessAdminGatesConfigMap', message: `${ADMIN_GATES.name} configmap not found.` };
  if (input.acks === null)
    return { reason: 'UnableToAccessAdminAcksConfigMap', message: `${ADMIN_ACKS.name} configmap not found.` };
  const byReason = new Map<string, string[]>();
  for (const [gate, value] of Object.entries(input.gates)) {
    const r = checkGate(gate, value, current, input.acks);
    if (r) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r.message]);
  }
  const messages = [...byReason.values()].map((v) => [...v].sort().join(' '));
  const [first] = byReason.keys();
  if (first === undefined) return undefined;
  if (byReason.size === 1) return { reason: first, message: messages[0] ?? '' };
  return { reason: 'MultipleReasons', message: messages.sort().join(' ') };
}

/** The gates the current version still needs acknowledged (for `keelson upgrade plan`), sorted by gate. */
export function pendingAdminAcks(input: AdminAckInput): PendingAdminAck[] {
  const current = currentHistoryVersion(input.history);
  if (current === '' || input.gates === null) return [];
  const acks = input.acks ?? {};
  return Object.entries(input.gates)
    .filter(([gate, value]) => checkGate(gate, value, current, acks)?.reason === 'AdminAckRequired')
    .map(([gate, description]) => ({ gate, description }))
    .sort((a, b) => (a.gate < b.gate ? -1 : a.gate > b.gate ? 1 : 0));
}

/** The `oc patch` that acknowledges `gates` (JSON merge patch of `admin-acks`). */
export function adminAckPatchCommand(gates: readonly string[]): string {
  const data = Object.fromEntries(gates.map((g) => [g, 'true']));
  return `oc -n ${ADMIN_ACKS.namespace} patch cm ${ADMIN_ACKS.name} --patch '${JSON.stringify({ data })}' --type=merge`;
}
