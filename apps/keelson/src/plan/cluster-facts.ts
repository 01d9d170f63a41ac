/**
 * Pure decisions over a live cluster's objects: the ClusterVersion the CVO would judge the update with, the pools to
 * plan and the MachineConfigs that are the cluster's own (neither rendered nor shipped by a release).
 */
import type { ClusterOperator, ClusterVersion, MachineConfigPool } from '@keelson/api';
import type { MachineConfig } from '@keelson/machineconfig';
import { computeUpgradeable, type AdminAckInput } from '@keelson/cluster-version';
import { featureGateState, type ClusterFacts, type FeatureGateObject } from '@keelson/release-payload';
import type { PoolInput } from './pools.js';

/**
 * What the cluster's CVO filters a release's manifests with (upstream `Manifest.Include` as called from
 * cluster-version-operator `pkg/cvo/sync_worker.go`): the feature set of FeatureGate `cluster` and the gates its status
 * enables for the version the cluster runs, the capabilities of ClusterVersion's status (known and enabled) and the
 * overrides of its spec (a manifest marked unmanaged is not applied).
 */
export function liveManifestFacts(cv: ClusterVersion, featureGate: FeatureGateObject | undefined): ClusterFacts {
  const version = cv.status?.desired.version ?? '';
  const gates = featureGateState(featureGate, version);
  const caps = cv.status?.capabilities;
  return {
    featureSet: gates.featureSet,
    enabledFeatureGates: gates.enabledGates,
    ...(caps !== undefined
      ? { capabilities: { known: caps.knownCapabilities ?? [], enabled: caps.enabledCapabilities ?? [] } }
      : {}),
    ...(cv.spec.overrides !== undefined && cv.spec.overrides.length > 0
      ? {
          overrides: cv.spec.overrides.map((o) => ({
            group: o.group,
            kind: o.kind,
            namespace: o.namespace,
            name: o.name,
            unmanaged: o.unmanaged,
          })),
        }
      : {}),
  };
}

/**
 * The ClusterVersion with `Upgradeable` as the CVO computes it on its next sync from the ClusterOperators and the
 * overrides (the function the CVO app calls). When that gives nothing but the cluster reports Upgradeable=False (for
 * example deletions in progress, which only the CVO knows), the cluster's condition stands.
 */
export function computeJudgedClusterVersion(
  cv: ClusterVersion,
  operators: readonly ClusterOperator[],
  adminAcks?: AdminAckInput,
): ClusterVersion {
  const status = cv.status;
  if (status === undefined) return cv;
  const computed = computeUpgradeable(operators, cv.spec.overrides, [], adminAcks !== undefined ? { adminAcks } : {});
  const live = (status.conditions ?? []).find((c) => c.type === 'Upgradeable');
  if (computed === null && live?.status === 'False') return cv;
  const others = (status.conditions ?? []).filter((c) => c.type !== 'Upgradeable');
  const conditions =
    computed === null ? others : [...others, { ...computed, lastTransitionTime: live?.lastTransitionTime ?? '' }];
  return { ...cv, status: { ...status, conditions } };
}

/** ClusterOperators reporting Upgradeable=False, by name. */
export function notUpgradeableOperators(
  operators: readonly ClusterOperator[],
): { name: string; reason: string; message: string }[] {
  return operators
    .flatMap((co) => {
      const c = (co.status?.conditions ?? []).find((x) => x.type === 'Upgradeable');
      return c?.status === 'False'
        ? [{ name: co.metadata.name ?? '', reason: c.reason ?? '', message: c.message ?? '' }]
        : [];
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The cluster's pools as plan input: size `status.machineCount`, the rendered config it targets, its progress. */
export function computeClusterPools(pools: readonly MachineConfigPool[]): PoolInput[] {
  return pools
    .map((p) => {
      const current = p.spec.configuration?.name ?? p.status?.configuration?.name;
      return {
        name: p.metadata.name ?? '',
        nodes: p.status?.machineCount ?? 0,
        ...(p.spec.maxUnavailable !== undefined ? { maxUnavailable: p.spec.maxUnavailable } : {}),
        ...(p.spec.paused === true ? { paused: true } : {}),
        ...(p.spec.machineConfigSelector !== undefined ? { machineConfigSelector: p.spec.machineConfigSelector } : {}),
        ...(current !== undefined && current !== '' ? { current } : {}),
        machines: {
          updated: p.status?.updatedMachineCount ?? 0,
          ready: p.status?.readyMachineCount ?? 0,
          unavailable: p.status?.unavailableMachineCount ?? 0,
          degraded: p.status?.degradedMachineCount ?? 0,
        },
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The cluster's own MachineConfigs: not rendered (`rendered-<pool>-<hash>`, owned by a pool) and not shipped by either
 * release (those come from the payloads on each side). They apply on both sides of the update.
 */
export function computeClusterMachineConfigs(
  live: readonly MachineConfig[],
  shipped: ReadonlySet<string>,
): MachineConfig[] {
  return live.filter((mc) => {
    const name = mc.metadata.name;
    if (name === undefined || shipped.has(name)) return false;
    const ownedByPool =
      (mc.metadata as { ownerReferences?: { kind?: string }[] }).ownerReferences?.some(
        (o) => o.kind === 'MachineConfigPool',
      ) === true;
    return !(name.startsWith('rendered-') || ownedByPool);
  });
}
