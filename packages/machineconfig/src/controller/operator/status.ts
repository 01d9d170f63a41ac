/**
 * The `machine-config` ClusterOperator status as the MCO operator reports it (pkg/operator/status.go), pure:
 * Available, Progressing, Degraded, Upgradeable, versions, extension.
 */
import { MACHINE_CONFIG_POOL_CONDITIONS } from '@keelson/api';
import type {
  ClusterOperator,
  ClusterOperatorStatusCondition,
  Condition,
  MachineConfig,
  MachineConfigPool,
} from '@keelson/api';
import { Labels, McAnnotations } from '../constants.js';

/** One entry of ClusterOperator status.versions. */
export interface OperandVersion {
  name: string;
  version: string;
}

/** A failed sync task (upstream `syncError`). */
export interface SyncError {
  task: string;
  message: string;
}

const condTrue = (conds: readonly Condition[] | undefined, type: string): boolean =>
  conds?.some((c) => c.type === type && c.status === 'True') ?? false;

/** Go's %v of []OperandVersion: `[{operator 4.16.0}]`. */
export function formatVersions(v: readonly OperandVersion[] | undefined): string {
  return `[${(v ?? []).map((x) => `{${x.name} ${x.version}}`).join(' ')}]`;
}

function versionsEqual(a: readonly OperandVersion[] | undefined, b: readonly OperandVersion[]): boolean {
  const m = new Map((a ?? []).map((x) => [x.name, x.version]));
  return (a ?? []).length === b.length && b.every((x) => m.get(x.name) === x.version);
}

/** library-go SetStatusCondition: lastTransitionTime moves only when status changes. */
function setCO(
  conds: ClusterOperatorStatusCondition[],
  next: Condition,
  now: string,
): ClusterOperatorStatusCondition[] {
  const prev = conds.find((c) => c.type === next.type);
  const lastTransitionTime = prev && prev.status === next.status ? prev.lastTransitionTime : now;
  const out: ClusterOperatorStatusCondition = { type: next.type, status: next.status, lastTransitionTime };
  if (next.reason !== undefined && next.reason !== '') out.reason = next.reason;
  if (next.message !== undefined && next.message !== '') out.message = next.message;
  return prev ? conds.map((c) => (c.type === next.type ? out : c)) : [...conds, out];
}

/**
 * Upgradeable as release-4.20's syncUpgradeableStatus: the first pool (in order) that is Degraded (False/DegradedPool)
 * or has an interrupted build (False/InterruptedBuild) decides; otherwise True/AsExpected. An updating pool does not
 * block (the retired PoolUpdating reason is gone upstream). The ConflictingClusterImagePolicy check is not made.
 */
export function upgradeableCondition(pools: readonly MachineConfigPool[]): Condition {
  for (const p of pools) {
    const conds = p.status?.conditions;
    if (condTrue(conds, MACHINE_CONFIG_POOL_CONDITIONS.Degraded)) {
      return {
        type: 'Upgradeable',
        status: 'False',
        reason: 'DegradedPool',
        message:
          'One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading',
      };
    }
    if (condTrue(conds, MACHINE_CONFIG_POOL_CONDITIONS.BuildInterrupted)) {
      return {
        type: 'Upgradeable',
        status: 'False',
        reason: 'InterruptedBuild',
        message:
          "One or more machine config pools' builds have been interrupted, please see `oc get mcp` for further details and resolve before upgrading",
      };
    }
  }
  return { type: 'Upgradeable', status: 'True', reason: 'AsExpected' };
}

const condOf = (p: MachineConfigPool, type: string): { reason?: string; message?: string } | undefined =>
  p.status?.conditions?.find((c) => c.type === type && c.status === 'True');

/** machineConfigPoolStatus: a pool's line in the extension (render/node degradation with its reason and message). */
export function machineConfigPoolStatus(p: MachineConfigPool): string {
  const s = p.status ?? {};
  const render = condOf(p, MACHINE_CONFIG_POOL_CONDITIONS.RenderDegraded);
  if (render)
    return `pool is degraded because rendering fails with ${JSON.stringify(render.reason ?? '')}: ${JSON.stringify(render.message ?? '')}`;
  const node = condOf(p, MACHINE_CONFIG_POOL_CONDITIONS.NodeDegraded);
  if (node)
    return `pool is degraded because nodes fail with ${JSON.stringify(node.reason ?? '')}: ${JSON.stringify(node.message ?? '')}`;
  if (condOf(p, MACHINE_CONFIG_POOL_CONDITIONS.Updated))
    return `all ${String(s.machineCount ?? 0)} nodes are at latest configuration ${s.configuration?.name ?? ''}`;
  if (condOf(p, MACHINE_CONFIG_POOL_CONDITIONS.Updating))
    return `${String(s.updatedMachineCount ?? 0)} (ready ${String(s.readyMachineCount ?? 0)}) out of ${String(s.machineCount ?? 0)} nodes are updating to latest configuration ${p.spec.configuration?.name ?? ''}`;
  return '<unknown>';
}

/** The `extension` block (setOperatorStatusExtension): one line per pool, plus lastSyncError. */
export function statusExtension(
  pools: readonly MachineConfigPool[],
  err: SyncError | undefined,
): Record<string, string> {
  const ext: Record<string, string> = {};
  for (const p of pools) ext[p.metadata.name ?? ''] = machineConfigPoolStatus(p);
  if (err) ext['lastSyncError'] = err.message;
  return ext;
}

/** Result of {@link computeClusterOperatorStatus}. */
export interface ClusterOperatorStatusDecision {
  status: NonNullable<ClusterOperator['status']>;
  /** Events to record (reason, message, type). */
  events: Array<{ type: 'Normal' | 'Warning'; reason: string; message: string }>;
}

/**
 * New ClusterOperator status after a sync pass. Versions move to `wanted` only when the pass succeeded.
 */
export function computeClusterOperatorStatus(input: {
  previous: ClusterOperator['status'] | undefined;
  wanted: OperandVersion[];
  syncError: SyncError | undefined;
  /** The pass has not finished (a task still waits, e.g. for the required pools): versions do not move. */
  pending?: string;
  pools: readonly MachineConfigPool[];
  now: Date;
}): ClusterOperatorStatusDecision {
  const now = input.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const prev = input.previous ?? {};
  const events: ClusterOperatorStatusDecision['events'] = [];
  const optrVersion = input.wanted.find((v) => v.name === 'operator')?.version ?? '';
  let conds: ClusterOperatorStatusCondition[] = [...(prev.conditions ?? [])];
  const wasProgressing = condTrue(conds, 'Progressing');
  const prevVersions = (prev.versions ?? []) as OperandVersion[];
  const err = input.syncError;
  let versions = prevVersions;
  if (err === undefined && input.pending === undefined) {
    if (!versionsEqual(prevVersions, input.wanted)) {
      events.push({
        type: 'Normal',
        reason: 'OperatorVersionChanged',
        message: `clusteroperator/machine-config-operator version changed from ${formatVersions(prevVersions)} to ${formatVersions(input.wanted)}`,
      });
    }
    versions = input.wanted;
  }
  const atWanted = versionsEqual(versions, input.wanted);
  if (err !== undefined) {
    const message = atWanted
      ? `Failed to resync ${optrVersion} because: ${err.message}`
      : `Unable to apply ${optrVersion}: ${err.message}`;
    conds = setCO(conds, { type: 'Degraded', status: 'True', reason: `${err.task}Failed`, message }, now);
    events.push({ type: 'Warning', reason: `OperatorDegraded: ${err.task}Failed`, message });
    conds = setCO(
      conds,
      wasProgressing
        ? { type: 'Progressing', status: 'True', message: `Unable to apply ${optrVersion}` }
        : { type: 'Progressing', status: 'False', message: `Error while reconciling ${optrVersion}` },
      now,
    );
  } else {
    conds = setCO(conds, { type: 'Degraded', status: 'False' }, now);
    conds = setCO(
      conds,
      atWanted
        ? { type: 'Progressing', status: 'False', message: `Cluster version is ${optrVersion}` }
        : { type: 'Progressing', status: 'True', message: `Working towards ${optrVersion}` },
      now,
    );
  }
  // syncAvailableStatus: always True/AsExpected — MCO failures are Degraded, never a "midnight page" (OCPBUGS-9108)
  conds = setCO(
    conds,
    {
      type: 'Available',
      status: 'True',
      reason: 'AsExpected',
      message: `Cluster has deployed ${formatVersions(versions)}`,
    },
    now,
  );
  conds = setCO(conds, upgradeableCondition(input.pools), now);
  return {
    status: {
      ...prev,
      conditions: conds,
      versions,
      relatedObjects: RELATED_OBJECTS,
      extension: statusExtension(
        input.pools,
        err ?? (input.pending !== undefined ? { task: '', message: input.pending } : undefined),
      ),
    },
    events,
  };
}

/** relatedObjects reported (consumed by must-gather). */
export const RELATED_OBJECTS = [
  { group: '', resource: 'namespaces', name: 'openshift-machine-config-operator' },
  { group: 'machineconfiguration.openshift.io', resource: 'machineconfigpools', name: '' },
  { group: 'machineconfiguration.openshift.io', resource: 'controllerconfigs', name: '' },
  { group: 'machineconfiguration.openshift.io', resource: 'kubeletconfigs', name: '' },
  { group: 'machineconfiguration.openshift.io', resource: 'containerruntimeconfigs', name: '' },
  { group: 'machineconfiguration.openshift.io', resource: 'machineconfigs', name: '' },
  { group: '', resource: 'nodes', name: '' },
];

/**
 * Checks the pools for the RequiredPools task: any degraded pool is an error; a pool labelled required-for-upgrade
 * must run (status.configuration) a rendered config of this release and controller, and be Updated.
 * Returns the error text, `paused` when a required pool is paused (a hard error), or undefined when all is well.
 */
export function checkRequiredPools(
  pools: readonly MachineConfigPool[],
  mcs: (name: string) => MachineConfig | undefined,
  releaseVersion: string,
  controllerVersion: string,
): { message: string; hard: boolean } | undefined {
  for (const p of pools) {
    const s = p.status ?? {};
    const name = p.metadata.name ?? '';
    const degraded = condTrue(s.conditions, MACHINE_CONFIG_POOL_CONDITIONS.Degraded);
    if (degraded) {
      return {
        hard: false,
        message: `error MachineConfigPool ${name} is not ready, retrying. Status: (pool degraded: true total: ${String(s.machineCount ?? 0)}, ready ${String(s.readyMachineCount ?? 0)}, updated: ${String(s.updatedMachineCount ?? 0)}, unavailable: ${String(s.unavailableMachineCount ?? 0)})`,
      };
    }
    if (!Object.hasOwn(p.metadata.labels ?? {}, Labels.requiredForUpgrade)) continue;
    const invalid = poolConfigurationInvalid(p, mcs, releaseVersion, controllerVersion);
    if (invalid !== undefined)
      return {
        hard: false,
        message: `MachineConfigPool ${name} has not progressed to latest configuration: ${invalid}, retrying`,
      };
    if (
      (p.metadata.generation ?? 0) <= (s.observedGeneration ?? 0) &&
      condTrue(s.conditions, MACHINE_CONFIG_POOL_CONDITIONS.Updated)
    )
      continue;
    if (p.spec.paused === true) {
      return {
        hard: true,
        message: condTrue(s.conditions, MACHINE_CONFIG_POOL_CONDITIONS.Updated)
          ? `the required MachineConfigPool ${name} was paused with no pending updates; no further syncing will occur until it is unpaused`
          : `error required MachineConfigPool ${name} is paused and cannot sync until it is unpaused`,
      };
    }
    return {
      hard: false,
      message: `error required MachineConfigPool ${name} is not ready, retrying. Status: (total: ${String(s.machineCount ?? 0)}, ready ${String(s.readyMachineCount ?? 0)}, updated: ${String(s.updatedMachineCount ?? 0)}, unavailable: ${String(s.unavailableMachineCount ?? 0)}, degraded: ${String(s.degradedMachineCount ?? 0)})`,
    };
  }
  return undefined;
}

function poolConfigurationInvalid(
  p: MachineConfigPool,
  mcs: (name: string) => MachineConfig | undefined,
  releaseVersion: string,
  controllerVersion: string,
): string | undefined {
  const target = p.status?.configuration?.name ?? '';
  if (target === '') return `configuration status for pool ${p.metadata.name ?? ''} is empty`;
  const mc = mcs(target);
  if (mc === undefined) return `machineconfig.machineconfiguration.openshift.io "${target}" not found`;
  const a = mc.metadata.annotations ?? {};
  const gen = a[McAnnotations.generatedByControllerVersion] ?? '';
  if (gen !== controllerVersion)
    return `controller version mismatch for ${target} expected ${controllerVersion} has ${gen}`;
  const rel = a[McAnnotations.releaseImageVersion] ?? '';
  if (rel !== releaseVersion)
    return `release image version mismatch for ${p.metadata.name ?? ''} in ${target} expected: ${releaseVersion} got: ${rel}`;
  return undefined;
}
