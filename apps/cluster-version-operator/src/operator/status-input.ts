/**
 * The ClusterVersion status of the worker's current state (openshift/cluster-version-operator pkg/cvo/status.go
 * `updateClusterVersionStatus`, with pkg/cvo/upgradeable.go `setUpgradeableConditions` over the listers' caches).
 */
import type { Condition, ConfigMap } from '@keelson/kube';
import {
  computeStatus,
  computeUpgradeableConditions,
  type StatusInput,
  type WorkerState,
} from '@keelson/cluster-version';
import type { ClusterOperator, ClusterVersion, ClusterVersionStatus } from '../api-types.js';
import type { UpdatesResult } from '../updates/poll.js';

/** What the status is computed from, read when it is written. */
export interface StatusSources {
  worker: WorkerState | undefined;
  releaseAccepted: Condition | undefined;
  updates: UpdatesResult | undefined;
  /** Capabilities with and without the implicitly enabled ones. */
  caps: { enabled: string[]; known: string[] };
  baseEnabled: readonly string[];
  invalid: readonly string[];
  /** The informers' caches. */
  operators: readonly ClusterOperator[];
  deletesInProgress: readonly string[];
  adminGates: ConfigMap | undefined;
  adminAcks: ConfigMap | undefined;
}

/**
 * The status over `cv`. Upgradeable is computed against the Progressing condition of this same status, so it never
 * lags one write behind.
 */
export function statusFor(cv: ClusterVersion, s: StatusSources): ClusterVersionStatus {
  const implicit = s.caps.enabled.filter((c) => !s.baseEnabled.includes(c));
  const input: StatusInput = {
    cv,
    now: new Date(),
    worker: s.worker,
    ...(s.releaseAccepted ? { releaseAccepted: s.releaseAccepted } : {}),
    ...(s.updates
      ? {
          retrievedUpdates: s.updates.retrievedUpdates,
          availableUpdates: s.updates.availableUpdates,
          conditionalUpdates: s.updates.conditionalUpdates,
        }
      : {}),
    capabilities: { enabled: s.caps.enabled, known: s.caps.known, implicit },
    invalid: [...s.invalid],
  };
  const draft = computeStatus(input);
  return computeStatus({ ...input, upgradeableConditions: upgradeableConditions({ ...cv, status: draft }, s) });
}

/** upstream `setUpgradeableConditions` over the informers' caches. */
function upgradeableConditions(cv: ClusterVersion, s: StatusSources): Condition[] {
  const data = (cm: ConfigMap | undefined): Record<string, string> | null => (cm ? { ...(cm.data ?? {}) } : null);
  return computeUpgradeableConditions({
    operators: [...s.operators],
    overrides: cv.spec.overrides,
    deletesInProgress: [...s.deletesInProgress],
    adminAcks: { history: cv.status?.history, gates: data(s.adminGates), acks: data(s.adminAcks) },
    updateInProgress: (cv.status?.conditions ?? []).some((c) => c.type === 'Progressing' && c.status === 'True'),
  });
}

/**
 * The ClusterVersion from the informer (upstream reads it through its lister, `cvLister.Get`), or `own`, the object of
 * this operator's last status write, when that is newer than the informer's copy (its watch event is still on the
 * way). Resource versions are compared as numbers when both are, as this server's are; otherwise the informer's copy
 * wins.
 */
export function newestCv(
  fromStore: ClusterVersion | undefined,
  own: ClusterVersion | undefined,
): ClusterVersion | undefined {
  if (!fromStore || !own || own.metadata.uid !== fromStore.metadata.uid) return fromStore;
  const a = Number(own.metadata.resourceVersion ?? '');
  const b = Number(fromStore.metadata.resourceVersion ?? '');
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) && a > b ? own : fromStore;
}
