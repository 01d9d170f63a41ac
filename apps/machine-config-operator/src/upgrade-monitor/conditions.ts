/**
 * The MachineConfigNode status arithmetic of upstream's upgrade monitor (openshift/machine-config-operator
 * pkg/upgrademonitor/upgrade_monitor.go, generateAndApplyMachineConfigNodes), as pure functions: a parent condition
 * (and optionally a child) folded into an MCN status, with upstream's rules — every condition type present (the
 * missing ones False `NotYetOccurred`), `Updated` as the parent resets every other condition to False with the
 * message prefixed "Action during update to <desired>: ", any other parent turns a True `Updated` False ("sensed
 * disruption"), an unchanged parent is no change, and `configVersion.desired` stays `not-yet-set` until the update
 * was found compatible (UpdatePrepared True).
 */
import { MACHINE_CONFIG_NODE_CONDITIONS as C, NODE_ANNOTATIONS } from '@keelson/api';
import type { MachineConfigNode, MachineConfigNodeStatus, MetaCondition, Node } from '@keelson/api';

/** Placeholder of a desired config not known yet (upstream `upgrademonitor.NotYetSet`). */
export const NOT_YET_SET = 'not-yet-set';

/** Condition status. */
export type McnConditionStatus = 'True' | 'False' | 'Unknown';

/** One condition the daemon or the drain controller reports (upstream `upgrademonitor.Condition` + its status). */
export interface McnCondition {
  /** The condition type (`UpdatePrepared`, `Drained`, …; upstream's StateProgress). */
  readonly type: string;
  readonly status: McnConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/** A report: the parent (phase) condition and, for the phases that have one, the child condition. */
export interface McnReport {
  readonly parent: McnCondition;
  readonly child?: McnCondition | undefined;
}

/** Every condition type an MCN carries, in upstream's order (allConditionTypes, without the pinned-image gate). */
export const ALL_MCN_CONDITION_TYPES: readonly string[] = [
  C.UpdatePrepared,
  C.UpdateExecuted,
  C.UpdatePostActionComplete,
  C.UpdateComplete,
  C.Resumed,
  C.Drained,
  C.AppliedFilesAndOS,
  C.Cordoned,
  C.RebootedNode,
  C.Updated,
  C.Uncordoned,
  C.NodeDegraded,
];

const cond = (c: McnCondition, now: string): MetaCondition => ({
  type: c.type,
  status: c.status,
  reason: c.reason,
  message: c.message,
  lastTransitionTime: now,
});

function initialConditions(parent: MetaCondition, child: MetaCondition | undefined, now: string): MetaCondition[] {
  const out = [parent, ...(child ? [child] : [])];
  for (const t of ALL_MCN_CONDITION_TYPES) {
    if (out.some((c) => c.type === t)) continue;
    out.push({
      type: t,
      status: 'False',
      reason: 'NotYetOccurred',
      message: `This node has not yet entered the ${t} phase`,
      lastTransitionTime: now,
    });
  }
  return out;
}

/** Folds parent + child into existing conditions; undefined when the parent is unchanged (upstream returns early). */
function mergeConditions(
  existing: readonly MetaCondition[],
  parent: MetaCondition,
  child: MetaCondition | undefined,
  specDesired: string,
  now: string,
): MetaCondition[] | undefined {
  const reset = parent.type === C.Updated;
  let foundParent = false;
  let foundChild = false;
  const out: MetaCondition[] = [];
  for (const c of existing) {
    if (c.type === C.Updated && c.status === 'True' && c.type !== parent.type) {
      out.push({
        type: C.Updated,
        status: 'False',
        reason: C.Updated,
        message: 'This node is not updated, sensed disruption via a manual update.',
        lastTransitionTime: now,
      });
    } else if (child !== undefined && c.type === child.type) {
      foundChild = true;
      out.push(child);
    } else if (c.type === parent.type) {
      foundParent = true;
      if (c.status === parent.status && c.message === parent.message) return undefined;
      out.push(parent);
    } else if (c.status !== 'False' && reset) {
      out.push({
        ...c,
        status: 'False',
        message: `Action during update to ${specDesired}: ${c.message}`,
        lastTransitionTime: now,
      });
    } else out.push(c);
  }
  if (!foundChild && child !== undefined) out.push(child);
  if (!foundParent) out.push(parent);
  return out;
}

/**
 * The MCN status after `report` on `node`, or undefined when the report changes nothing (the parent condition
 * already has this status and message). `mcn` is the object as stored (its spec gives the desired config the reset
 * messages name).
 */
export function applyMcnReport(
  mcn: MachineConfigNode,
  report: McnReport,
  node: Node,
  now: Date = new Date(),
): MachineConfigNodeStatus | undefined {
  const t = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const parent = cond(report.parent, t);
  const child = report.child ? cond(report.child, t) : undefined;
  const existing = mcn.status?.conditions;
  const conditions =
    existing === undefined || existing.length === 0
      ? initialConditions(parent, child, t)
      : mergeConditions(existing, parent, child, mcn.spec.configVersion.desired, t);
  if (conditions === undefined) return undefined;
  const ann = node.metadata.annotations ?? {};
  const desiredAnn = ann[NODE_ANNOTATIONS.desiredConfig] ?? '';
  const current = ann[NODE_ANNOTATIONS.currentConfig] ?? '';
  // upstream: desired is the node's desiredConfig once the update proved compatible (UpdatePrepared True) or for any
  // other phase while the node has one; a failed compatibility check keeps the placeholder
  const compatible = report.parent.type === C.UpdatePrepared ? report.parent.status === 'True' : desiredAnn !== '';
  const desired = compatible && desiredAnn !== '' ? desiredAnn : NOT_YET_SET;
  const prevCurrent = mcn.status?.configVersion?.current;
  const cur = current !== '' ? current : prevCurrent;
  return {
    ...mcn.status,
    // upstream writes Generation + 1 (WithObservedGeneration(newMCNode.Generation + 1))
    observedGeneration: (mcn.metadata.generation ?? 0) + 1,
    conditions,
    configVersion: { desired, ...(cur !== undefined && cur !== '' ? { current: cur } : {}) },
  };
}

/** A new MCN for `node` in `pool` (upstream's syncMachineConfigNodes / GenerateAndApplyMachineConfigNodeSpec). */
export function newMachineConfigNode(node: Node, pool: string): MachineConfigNode {
  const desired = node.metadata.annotations?.[NODE_ANNOTATIONS.desiredConfig] ?? '';
  const name = node.metadata.name ?? '';
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigNode',
    metadata: {
      name,
      ...(node.metadata.uid !== undefined
        ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid }] }
        : {}),
    },
    spec: {
      node: { name },
      pool: { name: pool },
      configVersion: { desired: desired !== '' ? desired : NOT_YET_SET },
    },
  };
}

/**
 * The pool an MCN names for a node without a pool lister: the custom pool of a `node-role.kubernetes.io/<x>` label
 * other than worker (upstream GetPrimaryPoolNameForMCN prefers a custom pool), else master/arbiter, else worker.
 */
export function primaryPoolFromLabels(node: Node | undefined): string {
  const roles = Object.keys(node?.metadata.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length));
  if (roles.includes('master') || roles.includes('control-plane')) return 'master';
  if (roles.includes('arbiter')) return 'arbiter';
  const custom = roles.filter((r) => r !== 'worker' && r !== '').sort();
  return custom[0] ?? 'worker';
}
