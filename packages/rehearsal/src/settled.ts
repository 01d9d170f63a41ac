/**
 * Whether the installed cluster has settled (pure): every pool runs a rendered config made from all the MachineConfigs
 * that select it. The MCO reports its version (and the CVO completes the install) once the pools are Updated on the
 * config its controller rendered, which can be one rendered before the payload's base MachineConfigs (run level 80)
 * were merged in; the pools then roll once more. A fault armed "after install" must wait for that roll to end.
 */
import { NODE_ANNOTATIONS, labelSelectorMatches, type LabelSelector } from '@keelson/api';

/** The parts of a MachineConfig this needs. */
export interface MachineConfigLike {
  metadata: { name?: string; labels?: Record<string, string>; ownerReferences?: readonly { kind?: string }[] };
}

/** The parts of a MachineConfigPool this needs. */
export interface PoolLike {
  metadata: { name?: string };
  spec?: { machineConfigSelector?: LabelSelector; paused?: boolean };
  status?: { configuration?: { name?: string; source?: readonly { name?: string }[] } };
}

/** True for the controller's rendered configs (owned by a pool), which no pool selects. */
function isRendered(mc: MachineConfigLike): boolean {
  return (
    (mc.metadata.ownerReferences ?? []).some((o) => o.kind === 'MachineConfigPool') ||
    (mc.metadata.name ?? '').startsWith('rendered-')
  );
}

/**
 * The MachineConfigs that select `pool` but are not in the sources of the config its nodes run (status.configuration),
 * sorted; empty when the pool runs everything it selects.
 */
export function missingSources(pool: PoolLike, machineConfigs: readonly MachineConfigLike[]): string[] {
  const have = new Set((pool.status?.configuration?.source ?? []).map((s) => s.name ?? ''));
  return machineConfigs
    .filter((mc) => !isRendered(mc) && labelSelectorMatches(pool.spec?.machineConfigSelector, mc.metadata.labels ?? {}))
    .map((mc) => mc.metadata.name ?? '')
    .filter((n) => !have.has(n))
    .sort();
}

/** One line per pool that has not settled (`pool: missing a, b`); empty when every pool has. */
export function unsettledPools(pools: readonly PoolLike[], machineConfigs: readonly MachineConfigLike[]): string[] {
  return pools.flatMap((p) => {
    const missing = missingSources(p, machineConfigs);
    return missing.length === 0
      ? []
      : [
          `machineconfigpool/${p.metadata.name ?? ''} runs ${p.status?.configuration?.name ?? 'no config'} without ${missing.join(', ')}`,
        ];
  });
}

/** The parts of a Node and a MachineConfigNode {@link unsettledDaemons} needs. */
export interface SettleObject {
  metadata: { name?: string; annotations?: Record<string, string> };
  status?: { conditions?: readonly { type?: string; status?: string }[] } | object;
}

/**
 * Nodes whose daemon has not finished its first sync, sorted: a node provisioned with node-annotations.json counts as
 * Done for its pool at once, while its daemon still asks for the uncordon (desiredDrain `uncordon-<config>`, not yet
 * acknowledged in lastAppliedDrain) and then reports the node Updated on its MachineConfigNode. Until then the
 * cluster is still finishing the install (its requests are the install's, not an update's). A node without a
 * MachineConfigNode (a cluster without their CRD) is judged by its drain annotations alone.
 */
export function unsettledDaemons(nodes: readonly SettleObject[], mcns: readonly SettleObject[]): string[] {
  const mcnOf = new Map(mcns.map((m) => [m.metadata.name ?? '', m]));
  return nodes
    .filter((n) => {
      const a = n.metadata.annotations ?? {};
      const desired = a[NODE_ANNOTATIONS.desiredDrain] ?? '';
      if (desired === '' || desired !== a[NODE_ANNOTATIONS.lastAppliedDrain]) return true;
      const mcn = mcnOf.get(n.metadata.name ?? '');
      if (mcn === undefined) return false;
      const conds = (mcn.status as { conditions?: readonly { type?: string; status?: string }[] } | undefined)
        ?.conditions;
      return conds?.find((c) => c.type === 'Updated')?.status !== 'True';
    })
    .map((n) => n.metadata.name ?? '')
    .sort();
}
