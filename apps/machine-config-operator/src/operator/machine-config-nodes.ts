/**
 * The operator's MachineConfigNode task (openshift/machine-config-operator pkg/operator/sync.go
 * syncMachineConfigNodes): one MCN per node that is not Pending/Provisioning, named after it, owned by it, spec
 * naming the node, its primary pool (helpers.GetPrimaryPoolNameForMCN: `not-yet-set` when no pool selects it) and the
 * desired config (`not-yet-set` until the node has one); MCNs of nodes that no longer exist are deleted. A plan from
 * the informers' caches, then only the writes the plan needs: an unchanged cluster writes nothing.
 */
import {
  Controller,
  Informer,
  isAlreadyExists,
  isNotFound,
  MachineConfigNodes,
  type KubeClient,
  type KubeObject,
  type Logger,
  type Registry,
} from '@keelson/kube';
import { NODE_ANNOTATIONS, type MachineConfigNode, type MachineConfigPool, type Node } from '@keelson/api';
import { Nodes } from '../common/resources.js';
import { getPoolsForNode } from '@keelson/machineconfig';
import { newMachineConfigNode, NOT_YET_SET } from '../upgrade-monitor/conditions.js';
import { informerSource, type InformerSource } from './informers.js';

/** What {@link planMachineConfigNodes} found to do. */
export interface McnPlan {
  /** MCNs to create. */
  readonly create: MachineConfigNode[];
  /** Existing MCNs with the spec they must carry (pool or node reference changed). */
  readonly update: MachineConfigNode[];
  /** Names of MCNs whose node is gone. */
  readonly remove: string[];
}

/** Primary pool name of a node for its MCN (`not-yet-set` when none selects it). */
export function primaryPoolForMcn(pools: readonly MachineConfigPool[], node: Node): string {
  try {
    return getPoolsForNode(pools, node)?.pools[0]?.metadata.name ?? NOT_YET_SET;
  } catch {
    // more than one custom pool: upstream returns the error and retries; the MCN waits for the labels to settle
    return NOT_YET_SET;
  }
}

const provisioning = (n: Node): boolean => {
  const phase = (n.status as { phase?: string } | undefined)?.phase;
  return phase === 'Pending' || phase === 'Provisioning';
};

/** The writes that bring the MCNs in line with the nodes and pools. */
export function planMachineConfigNodes(
  nodes: readonly Node[],
  mcns: readonly MachineConfigNode[],
  pools: readonly MachineConfigPool[],
): McnPlan {
  const byName = new Map(mcns.map((m) => [m.metadata.name ?? '', m]));
  const plan: McnPlan = { create: [], update: [], remove: [] };
  for (const n of nodes) {
    if (provisioning(n)) continue;
    const want = newMachineConfigNode(n, primaryPoolForMcn(pools, n));
    const have = byName.get(n.metadata.name ?? '');
    if (have === undefined) {
      plan.create.push(want);
      continue;
    }
    // upstream ApplyMachineConfigNode: node and pool references follow the cluster; the desired config is the node
    // controller's (a placeholder is filled in from the node, as GenerateAndApplyMachineConfigNodeSpec does)
    const desired =
      have.spec.configVersion.desired === NOT_YET_SET
        ? want.spec.configVersion.desired
        : have.spec.configVersion.desired;
    if (
      have.spec.node.name !== want.spec.node.name ||
      have.spec.pool.name !== want.spec.pool.name ||
      have.spec.configVersion.desired !== desired
    )
      plan.update.push({ ...have, spec: { ...want.spec, configVersion: { desired } } });
  }
  const names = new Set(nodes.map((n) => n.metadata.name ?? ''));
  for (const name of byName.keys()) if (!names.has(name)) plan.remove.push(name);
  return plan;
}

/** Carries out a plan (conflicts and races with the daemons are left to the next sync). */
export async function applyMcnPlan(client: KubeClient, plan: McnPlan, log: Logger): Promise<void> {
  const mcns = client.resource(MachineConfigNodes);
  for (const m of plan.create)
    await mcns.create(m).catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
  for (const m of plan.update) await mcns.update(m);
  for (const name of plan.remove) {
    log.info(`Node ${name} has been removed, deleting associated MCN`);
    await mcns.delete(name).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  }
}

/** Options of {@link MachineConfigNodeSync}. */
export interface McnSyncOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly registry: Registry;
  /** The operator's pool informer (started by the operator). */
  readonly pools: Informer<MachineConfigPool>;
  /**
   * Where the Node and MCN informers come from (the operator's: the Manager's shared cache, started and stopped by
   * it); default: informers of its own, started and stopped here.
   */
  readonly source?: InformerSource;
}

const NODE_KEY = 'machine-config-nodes';

/** Whether a Node change can change its MCN (labels pick the pool; desiredConfig; phase; not heartbeats). */
function nodeChangeMatters(o: Node, n: Node): boolean {
  const d = (x: Node): string => x.metadata.annotations?.[NODE_ANNOTATIONS.desiredConfig] ?? '';
  return (
    JSON.stringify(o.metadata.labels ?? {}) !== JSON.stringify(n.metadata.labels ?? {}) ||
    d(o) !== d(n) ||
    provisioning(o) !== provisioning(n)
  );
}

/**
 * The MachineConfigNode task as a controller of its own in the operator process, fed by Node, MCN and pool watches:
 * upstream runs syncMachineConfigNodes in every operator sync; driven by the node watch here, a kubelet heartbeat
 * does not re-run the operator's whole sync.
 */
export class MachineConfigNodeSync {
  readonly controller: Controller;
  readonly #nodes: Informer<Node>;
  readonly #mcns: Informer<MachineConfigNode>;
  readonly #o: McnSyncOptions;
  readonly #unsubscribe: Array<() => void> = [];
  readonly #owned: Array<Informer<KubeObject>> = [];

  constructor(o: McnSyncOptions) {
    this.#o = o;
    const mk = informerSource(o.client, o.logger, o.source, this.#owned);
    this.#nodes = mk(Nodes);
    this.#mcns = mk(MachineConfigNodes);
    this.controller = new Controller({
      name: 'machine-config-nodes',
      reconcile: () => this.sync(),
      registry: o.registry,
      logger: o.logger,
    });
    const enqueue = (): void => {
      this.controller.enqueue(NODE_KEY);
    };
    this.#unsubscribe.push(
      this.#nodes.addHandlers({
        add: enqueue,
        delete: enqueue,
        update: (a, b) => {
          if (nodeChangeMatters(a, b)) enqueue();
        },
      }),
      this.#mcns.addHandlers({ add: enqueue, update: enqueue, delete: enqueue }),
      o.pools.addHandlers({ add: enqueue, update: enqueue, delete: enqueue }),
    );
  }

  async run(): Promise<void> {
    this.#nodes.start();
    this.#mcns.start();
    this.controller.enqueue(NODE_KEY);
    await this.controller.run();
  }

  async stop(): Promise<void> {
    for (const u of this.#unsubscribe.splice(0)) u();
    await this.controller.stop();
    await Promise.all(this.#owned.splice(0).map((i) => i.stop()));
  }

  /** One pass (waits for the three caches; a cluster without the MCN CRD never syncs its informer: no pass). */
  async sync(): Promise<undefined> {
    if (!this.#nodes.hasSynced() || !this.#mcns.hasSynced() || !this.#o.pools.hasSynced()) return undefined;
    const plan = planMachineConfigNodes(this.#nodes.store.list(), this.#mcns.store.list(), this.#o.pools.store.list());
    await applyMcnPlan(this.#o.client, plan, this.#o.logger);
    return undefined;
  }
}
