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

/** Adds to `plan` what the MCN `have` of node `n` needs (`undefined`: none yet). */
function planNode(plan: McnPlan, n: Node, have: MachineConfigNode | undefined, pool: string): void {
  if (provisioning(n)) return;
  const want = newMachineConfigNode(n, pool);
  if (have === undefined) {
    plan.create.push(want);
    return;
  }
  // upstream ApplyMachineConfigNode: node and pool references follow the cluster; the desired config is the node
  // controller's (a placeholder is filled in from the node, as GenerateAndApplyMachineConfigNodeSpec does)
  const desired =
    have.spec.configVersion.desired === NOT_YET_SET ? want.spec.configVersion.desired : have.spec.configVersion.desired;
  if (
    have.spec.node.name !== want.spec.node.name ||
    have.spec.pool.name !== want.spec.pool.name ||
    have.spec.configVersion.desired !== desired
  )
    plan.update.push({ ...have, spec: { ...want.spec, configVersion: { desired } } });
}

/** The writes that bring the MCNs in line with the nodes and pools. */
export function planMachineConfigNodes(
  nodes: readonly Node[],
  mcns: readonly MachineConfigNode[],
  pools: readonly MachineConfigPool[],
): McnPlan {
  const byName = new Map(mcns.map((m) => [m.metadata.name ?? '', m]));
  const plan: McnPlan = { create: [], update: [], remove: [] };
  for (const n of nodes) planNode(plan, n, byName.get(n.metadata.name ?? ''), primaryPoolForMcn(pools, n));
  const names = new Set(nodes.map((n) => n.metadata.name ?? ''));
  for (const name of byName.keys()) if (!names.has(name)) plan.remove.push(name);
  return plan;
}

/**
 * The same plan for the named nodes only (the nodes and MCNs whose watch events queued them): what
 * {@link planMachineConfigNodes} would plan for them, without a pass over every node of the cluster.
 */
export function planMachineConfigNodesFor(
  names: Iterable<string>,
  node: (name: string) => Node | undefined,
  mcn: (name: string) => MachineConfigNode | undefined,
  pools: readonly MachineConfigPool[],
): McnPlan {
  const plan: McnPlan = { create: [], update: [], remove: [] };
  for (const name of names) {
    const n = node(name);
    const have = mcn(name);
    if (n !== undefined) planNode(plan, n, have, primaryPoolForMcn(pools, n));
    else if (have !== undefined) plan.remove.push(name);
  }
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

/** Whether an MCN change can change its plan (its spec: status writes of the daemons do not). */
function mcnChangeMatters(o: MachineConfigNode, n: MachineConfigNode): boolean {
  return (
    o.spec.node.name !== n.spec.node.name ||
    o.spec.pool.name !== n.spec.pool.name ||
    o.spec.configVersion.desired !== n.spec.configVersion.desired
  );
}

/** Whether a pool change can move a node to another pool (its node selector). */
function poolChangeMatters(o: MachineConfigPool, n: MachineConfigPool): boolean {
  return JSON.stringify(o.spec.nodeSelector ?? null) !== JSON.stringify(n.spec.nodeSelector ?? null);
}

/**
 * The MachineConfigNode task as a controller of its own in the operator process, fed by Node, MCN and pool watches:
 * upstream runs syncMachineConfigNodes in every operator sync; driven by the node watch here, a kubelet heartbeat
 * does not re-run the operator's whole sync. A pass plans only the nodes whose Node or MCN changed (a daemon's MCN
 * status write queues nothing); a pool's node selector, a pool added or deleted, or the start plan every node.
 */
export class MachineConfigNodeSync {
  readonly controller: Controller;
  readonly #nodes: Informer<Node>;
  readonly #mcns: Informer<MachineConfigNode>;
  readonly #o: McnSyncOptions;
  readonly #unsubscribe: Array<() => void> = [];
  readonly #owned: Array<Informer<KubeObject>> = [];
  /** Nodes to plan in the next pass; `#all`: every node (start, pools changed, a failed pass). */
  readonly #dirty = new Set<string>();
  #all = true;
  readonly #stopping = new AbortController();

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
    const one = (o: KubeObject): void => {
      this.#dirty.add(o.metadata.name ?? '');
      enqueue();
    };
    const all = (): void => {
      this.#all = true;
      enqueue();
    };
    this.#unsubscribe.push(
      this.#nodes.addHandlers({
        add: one,
        delete: one,
        update: (a, b) => {
          if (nodeChangeMatters(a, b)) one(b);
        },
      }),
      this.#mcns.addHandlers({
        add: one,
        delete: one,
        update: (a, b) => {
          if (mcnChangeMatters(a, b)) one(b);
        },
      }),
      o.pools.addHandlers({
        add: all,
        delete: all,
        update: (a, b) => {
          if (poolChangeMatters(a, b)) all();
        },
      }),
    );
  }

  async run(): Promise<void> {
    this.#nodes.start();
    this.#mcns.start();
    this.controller.enqueue(NODE_KEY);
    // the first whole pass once all three caches hold their lists (a cache that lists nothing sends no event)
    const caches = [this.#nodes, this.#mcns, this.#o.pools].map((i) => i.waitForSync(this.#stopping.signal));
    Promise.all(caches).then(
      () => {
        this.controller.enqueue(NODE_KEY);
      },
      () => undefined,
    );
    await this.controller.run();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    for (const u of this.#unsubscribe.splice(0)) u();
    await this.controller.stop();
    await Promise.all(this.#owned.splice(0).map((i) => i.stop()));
  }

  /** One pass (waits for the three caches; a cluster without the MCN CRD never syncs its informer: no pass). */
  async sync(): Promise<undefined> {
    if (!this.#nodes.hasSynced() || !this.#mcns.hasSynced() || !this.#o.pools.hasSynced()) return undefined;
    const all = this.#all;
    const names = [...this.#dirty];
    this.#all = false;
    this.#dirty.clear();
    const pools = this.#o.pools.store.list();
    const plan = all
      ? planMachineConfigNodes(this.#nodes.store.list(), this.#mcns.store.list(), pools)
      : planMachineConfigNodesFor(
          names,
          (n) => this.#nodes.store.get(n),
          (n) => this.#mcns.store.get(n),
          pools,
        );
    try {
      await applyMcnPlan(this.#o.client, plan, this.#o.logger);
    } catch (e) {
      // the controller retries with backoff: the retry plans what this pass had to
      if (all) this.#all = true;
      for (const n of names) this.#dirty.add(n);
      throw e;
    }
    return undefined;
  }
}
