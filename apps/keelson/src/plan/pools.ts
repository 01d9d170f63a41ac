/**
 * Per MachineConfigPool: render the pool's MachineConfigs with release A's and release B's base configs through
 * @keelson/machineconfig (the render controller's merge and rendered-<pool>-<hash> name), decide what the daemon does on each
 * node with the daemon's post-config action logic (`diffMachineConfigs`: node disruption actions, drain required), and
 * estimate the rollout from the pool size, maxUnavailable and a per-node time.
 */
import { MCO_LABELS, compileLabelSelector, type LabelSelector } from '@keelson/api';
import { applyOsChanges, formatPlan as formatOsPlan } from '@keelson/ostree';
import {
  diffMachineConfigs,
  MachineConfigReconcileError,
  MachineConfigRenderError,
  renderMachineConfigs,
  type ControllerConfigInput,
  type MachineConfig,
} from '@keelson/machineconfig';

/** A label selector (matchLabels and the `In` / `NotIn` / `Exists` / `DoesNotExist` expressions). */
export type Selector = LabelSelector;

/** A pool as the plan sees it. */
export interface PoolInput {
  name: string;
  /** Nodes in the pool. */
  nodes: number;
  /** spec.maxUnavailable: a count or a percentage (`"10%"`); default 1. */
  maxUnavailable?: number | string;
  paused?: boolean;
  /** spec.machineConfigSelector (default: role label = pool name). */
  machineConfigSelector?: Selector;
  /** Live clusters: the rendered config the pool targets now (spec.configuration.name). */
  current?: string;
  /** Live clusters: the pool's machine counts. */
  machines?: PoolMachines;
}

/** A live pool's machine counts (MachineConfigPool status). */
export interface PoolMachines {
  updated: number;
  ready: number;
  unavailable: number;
  degraded: number;
}

/** What a live pool runs and whether the plan's render of release A reproduces it. */
export interface PoolClusterState {
  /** The rendered config the pool targets now. */
  current: string;
  /** True when rendering release A (with the cluster's MachineConfigs) gives `current`: the prediction starts from the cluster's real state. */
  fromMatchesCluster: boolean;
  machines?: PoolMachines;
}

/** Per-node durations used for the estimate (seconds). */
export interface NodeTimes {
  drain: number;
  apply: number;
  reboot: number;
}

/** Default per-node durations: a drain of a few pods, writing files, an RHCOS reboot. */
export const DEFAULT_NODE_TIMES: NodeTimes = { drain: 60, apply: 15, reboot: 240 };

/** What the pool's nodes will do. */
export type NodeAction = 'reboot' | 'drain' | 'restart-services' | 'none';

/** The plan for one pool. */
export interface PoolPlan {
  name: string;
  nodes: number;
  maxUnavailable: number;
  paused: boolean;
  /** Rendered config names (null when the pool has no MachineConfigs in that release). */
  from: string | null;
  to: string | null;
  action: NodeAction;
  /** Upstream node-disruption action types, in order (e.g. `Reboot`, `Drain`, `Reload`). */
  disruptionActions: string[];
  drainRequired: boolean;
  /** What changed between the rendered configs. */
  changes: string[];
  /** Kernel-argument changes as `rpm-ostree kargs` arguments. */
  kargs?: string[];
  /** What each node of the pool does, in order (drain, files, rpm-ostree rebase/kargs, reboot, uncordon). */
  steps: string[];
  /** Estimated rollout time, seconds (0 when paused or nothing changes). */
  estimatedSeconds: number;
  batches: number;
  /** Why the render or reconcile failed, when it did. */
  error?: string;
  /** Live clusters only. */
  cluster?: PoolClusterState;
}

/**
 * The MachineConfigs a pool selects.
 * @throws LabelSelectorError (from `@keelson/api`) for an invalid machineConfigSelector.
 */
export function selectMachineConfigs(pool: PoolInput, configs: readonly MachineConfig[]): MachineConfig[] {
  const sel = compileLabelSelector(pool.machineConfigSelector ?? defaultMachineConfigSelector(pool.name));
  return configs.filter((mc) => sel.matches(mc.metadata.labels));
}

/**
 * A pool's machineConfigSelector when none is given: master and worker select their role; a custom pool selects the
 * worker configs and its own role, as OpenShift's documentation defines a custom pool (`machineconfiguration.openshift.io/role
 * In [worker, <pool>]`), so it inherits every worker MachineConfig.
 */
export function defaultMachineConfigSelector(pool: string): Selector {
  if (pool === 'master' || pool === 'worker') return { matchLabels: { [MCO_LABELS.role]: pool } };
  return { matchExpressions: [{ key: MCO_LABELS.role, operator: 'In', values: ['worker', pool] }] };
}

/** The commands each node of a pool runs for the OS part of the update (rpm-ostree rebase, kargs, extensions). */
function osSteps(
  from: MachineConfig | Pick<MachineConfig, 'spec'>,
  to: MachineConfig | Pick<MachineConfig, 'spec'>,
): string[] {
  try {
    return formatOsPlan(applyOsChanges(from, to));
  } catch (e) {
    return [`# the OS step cannot be planned: ${(e as Error).message}`];
  }
}

/**
 * What the MCO does on each node, in order (the machine-config-daemon's update of one node): cordon and drain when
 * the change requires it, write files and units, the OS commands, then reboot (or reload services) and uncordon.
 */
export function nodeSteps(action: NodeAction, os: readonly string[], drain: boolean, files = true): string[] {
  if (action === 'none') return [];
  const steps: string[] = [];
  if (drain) steps.push('cordon and drain the node (evictions honour PodDisruptionBudgets)');
  if (files) steps.push('write the new files and systemd units');
  steps.push(...os);
  if (action === 'reboot') steps.push('reboot into the new deployment (systemctl reboot)');
  else if (action === 'restart-services') steps.push('reload or restart the affected services (no reboot)');
  if (drain) steps.push('uncordon the node');
  return steps;
}

/** maxUnavailable scaled as the MCO does (percentages round down; 0 becomes 1). */
export function computeMaxUnavailable(value: number | string | undefined, nodes: number): number {
  let n: number;
  if (value === undefined) n = 1;
  else if (typeof value === 'number') n = value;
  else if (/^\d+%$/.test(value)) n = Math.floor((Number(value.slice(0, -1)) * nodes) / 100);
  else if (/^\d+$/.test(value)) n = Number(value);
  else throw new TypeError(`maxUnavailable ${JSON.stringify(value)} is neither a count nor a percentage`);
  return Math.max(1, n);
}

function actionOf(types: readonly string[], drain: boolean, changed: boolean): NodeAction {
  if (types.includes('Reboot')) return 'reboot';
  if (drain) return 'drain';
  return changed ? 'restart-services' : 'none';
}

function perNodeSeconds(action: NodeAction, t: NodeTimes): number {
  switch (action) {
    case 'reboot':
      return t.drain + t.apply + t.reboot;
    case 'drain':
      return t.drain + t.apply;
    case 'restart-services':
      return t.apply;
    case 'none':
      return 0;
  }
}

/** Inputs of {@link computePoolPlan} for one release side. */
export interface ReleaseSide {
  /** MachineConfigs of the release plus the user's (--machineconfigs). */
  configs: readonly MachineConfig[];
  controllerConfig: ControllerConfigInput;
}

/** Plans one pool's rollout from A to B; for a live pool, also says whether A's render matches what it runs. */
export function computePoolPlan(
  pool: PoolInput,
  a: ReleaseSide,
  b: ReleaseSide,
  times: NodeTimes = DEFAULT_NODE_TIMES,
): PoolPlan {
  const plan = planPool(pool, a, b, times);
  if (pool.current === undefined) return plan;
  return {
    ...plan,
    cluster: {
      current: pool.current,
      fromMatchesCluster: plan.from === pool.current,
      ...(pool.machines !== undefined ? { machines: pool.machines } : {}),
    },
  };
}

function planPool(pool: PoolInput, a: ReleaseSide, b: ReleaseSide, times: NodeTimes = DEFAULT_NODE_TIMES): PoolPlan {
  const maxUnavailable = computeMaxUnavailable(pool.maxUnavailable, pool.nodes);
  const base = { name: pool.name, nodes: pool.nodes, maxUnavailable, paused: pool.paused ?? false };
  const ca = selectMachineConfigs(pool, a.configs);
  const cb = selectMachineConfigs(pool, b.configs);
  const osChanged = (a.controllerConfig.baseOSContainerImage ?? '') !== (b.controllerConfig.baseOSContainerImage ?? '');
  const batches = Math.ceil(pool.nodes / maxUnavailable);
  if (ca.length === 0 || cb.length === 0) {
    // no MachineConfigs to render: only the OS image can change (the MCO then reboots every node)
    const action: NodeAction = osChanged ? 'reboot' : 'none';
    const os = osSteps(
      { spec: { osImageURL: a.controllerConfig.baseOSContainerImage ?? '' } },
      { spec: { osImageURL: b.controllerConfig.baseOSContainerImage ?? '' } },
    );
    return {
      ...base,
      from: null,
      to: null,
      action,
      steps: nodeSteps(action, os, osChanged, false),
      disruptionActions: osChanged ? ['Reboot'] : [],
      drainRequired: osChanged,
      changes: osChanged ? ['osImageURL'] : [],
      estimatedSeconds: base.paused ? 0 : batches * perNodeSeconds(action, times),
      batches,
      error: `no MachineConfigs select pool ${pool.name} in ${ca.length === 0 ? 'the current' : 'the target'} release (give --machineconfigs DIR)`,
    };
  }
  try {
    const ra = renderMachineConfigs({ pool: pool.name, configs: ca, controllerConfig: a.controllerConfig });
    const rb = renderMachineConfigs({ pool: pool.name, configs: cb, controllerConfig: b.controllerConfig });
    const diff = diffMachineConfigs(ra.machineConfig, rb.machineConfig);
    const types = diff.nodeDisruptionActions.map((x) => x.type);
    const changes = Object.entries(diff.changes)
      .filter(([, v]) => v)
      .map(([k]) => k);
    const action = ra.name === rb.name ? 'none' : actionOf(types, diff.drainRequired, changes.length > 0);
    return {
      ...base,
      from: ra.name,
      to: rb.name,
      action,
      steps: nodeSteps(
        action,
        osSteps(ra.machineConfig, rb.machineConfig),
        diff.drainRequired,
        diff.files.length > 0 || diff.units.added.length + diff.units.updated.length + diff.units.removed.length > 0,
      ),
      disruptionActions: types,
      drainRequired: diff.drainRequired,
      changes: [
        ...changes,
        ...diff.files.map((f) => `file ${f}`),
        ...[...diff.units.added, ...diff.units.updated, ...diff.units.removed].map((u) => `unit ${u}`),
      ],
      ...(diff.rpmOstreeKargsArgs !== undefined ? { kargs: diff.rpmOstreeKargsArgs.slice(1) } : {}),
      estimatedSeconds: base.paused ? 0 : batches * perNodeSeconds(action, times),
      batches,
    };
  } catch (e) {
    if (e instanceof MachineConfigRenderError || e instanceof MachineConfigReconcileError) {
      return {
        ...base,
        from: null,
        to: null,
        action: 'none',
        disruptionActions: [],
        drainRequired: false,
        changes: [],
        steps: [],
        estimatedSeconds: 0,
        batches,
        error: e.message,
      };
    }
    throw e;
  }
}
