/**
 * The node controller (upstream pkg/controller/node): for each pool, picks nodes within maxUnavailable, sets their
 * desiredConfig annotation, keeps the UpdateInProgress taint and writes the pool status.
 * Informers (nodes, pools, operator pods) → queue of pool names → {@link NodeController.reconcile}.
 */
import { Controller, isConflict, isNotFound, MachineConfigPools, type ReconcileResult } from '@keelson/kube';
import type { MachineConfigPool, Node } from '../../common/api-types.js';
import { CONTROLLER_CONFIG_NAME, NodeAnnotations, UPDATE_IN_PROGRESS_TAINT } from '../../common/constants.js';
import { Nodes } from '../../common/resources.js';
import type { ControllerContext } from '../context.js';
import { watchDelayed } from '../watch.js';
import { decidePoolSync, getPoolsForNode, poolCertExpirys, type PoolSyncDecision } from '@keelson/machineconfig';
import { setMcnSpecDesired } from '../../upgrade-monitor/spec.js';

const Pools = MachineConfigPools;

/** Pending desiredConfig writes not yet visible in the node cache (a restart-safe pass must not double count). */
type Expectations = Map<string, { desired: string; until: number }>;

/** Our last taint write per node: whether it added the taint, and the resourceVersion the server answered with. */
type TaintWrites = Map<string, { add: boolean; rv: number }>;

const rvOf = (n: Node): number => Number(n.metadata.resourceVersion);

/** The node controller. */
export class NodeController {
  readonly controller: Controller;
  private readonly expectations: Expectations = new Map();
  private readonly taintWrites: TaintWrites = new Map();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly ctx: ControllerContext) {
    this.controller = new Controller({
      name: 'node',
      reconcile: (key) => this.reconcile(key),
      registry: ctx.registry,
      logger: ctx.logger,
    });
    const inf = ctx.informers;
    const d = ctx.durations.nodeSyncDelayMs;
    this.unsubscribe.push(
      watchDelayed(this.controller, inf.pools, (p) => [p.metadata.name ?? ''], 0),
      watchDelayed(this.controller, inf.nodes, (n) => this.poolsOfNode(n), d),
      watchDelayed(this.controller, inf.operatorPods, () => ['master'], d),
      // the pools' certExpirys come from the ControllerConfig's certificates
      watchDelayed(
        this.controller,
        inf.controllerConfigs,
        () => inf.pools.store.list().map((p) => p.metadata.name ?? ''),
        d,
      ),
    );
  }

  /** Pools a node event concerns (every matching pool, so counts move in each). */
  private poolsOfNode(n: Node): string[] {
    try {
      return (getPoolsForNode(this.ctx.informers.pools.store.list(), n)?.pools ?? []).map((p) => p.metadata.name ?? '');
    } catch {
      return [];
    }
  }

  /** Runs the workers until {@link NodeController.stop}. */
  run(): Promise<void> {
    for (const p of this.ctx.informers.pools.store.list()) this.controller.enqueue(p.metadata.name ?? '');
    return this.controller.run();
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    await this.controller.stop();
  }

  /** True while a desiredConfig write of ours is not yet visible in the cache. */
  private cacheLagging(): boolean {
    const now = Date.now();
    for (const [node, e] of this.expectations) {
      const cached = this.ctx.informers.nodes.store.get(node);
      if (
        cached === undefined ||
        cached.metadata.annotations?.[NodeAnnotations.desiredConfig] === e.desired ||
        now > e.until
      ) {
        this.expectations.delete(node);
      }
    }
    return this.expectations.size > 0;
  }

  /** Syncs one pool. */
  async reconcile(poolName: string): Promise<ReconcileResult | undefined> {
    const inf = this.ctx.informers;
    const pool = inf.pools.store.get(poolName);
    if (pool === undefined) return undefined;
    if (this.cacheLagging()) return { requeueAfterMs: 100 };
    const d = decidePoolSync({
      pool,
      pools: inf.pools.store.list(),
      nodes: inf.nodes.store.list(),
      now: this.ctx.now(),
      renderedOwnerPool: (name) => inf.machineConfigs.store.get(name)?.metadata.ownerReferences?.[0]?.name,
      certExpirys: poolCertExpirys(inf.controllerConfigs.store.get(CONTROLLER_CONFIG_NAME)),
      ...this.operatorNode(),
    });
    if (!d.hasTarget) return undefined;
    const log = this.ctx.logger.child({ controller: 'node', pool: poolName });
    if (d.error) {
      log.error('invalid maxUnavailable; not updating nodes', { err: d.error.message });
      void this.ctx.recorder.warning(pool, 'InvalidMaxUnavailable', d.error.message);
    }
    let current = pool;
    if (d.statusFirst !== undefined) {
      const written = await this.updateStatus(pool, d.statusFirst);
      if (written === undefined) return undefined;
      current = written;
    }
    await this.applyNodeMetadata(d);
    await this.applyTaints(d);
    await this.applyDesired(pool, d);
    if (d.deferredOperatorNode !== undefined) {
      void this.ctx.recorder.normal(
        pool,
        'DeferringOperatorNodeUpdate',
        `Deferring update of machine config operator node ${d.deferredOperatorNode}`,
      );
    }
    await this.writeStatus(current, d);
    return undefined;
  }

  private operatorNode(): { operatorNodeName?: string; controlPlaneTopology?: string } {
    const pod = this.ctx.informers.operatorPods.store.list().find((p) => (p.spec?.nodeName ?? '') !== '');
    const topo =
      this.ctx.informers.controllerConfigs.store.get(CONTROLLER_CONFIG_NAME)?.spec.infra?.status?.controlPlaneTopology;
    return {
      ...(pod?.spec?.nodeName !== undefined ? { operatorNodeName: pod.spec.nodeName } : {}),
      ...(topo !== undefined ? { controlPlaneTopology: topo } : {}),
    };
  }

  /** controlPlaneTopology annotations, and custom-pool labels on nodes born into a custom pool. */
  private async applyNodeMetadata(d: PoolSyncDecision): Promise<void> {
    const nodes = this.ctx.client.resource(Nodes);
    const topo =
      this.ctx.informers.controllerConfigs.store.get(CONTROLLER_CONFIG_NAME)?.spec.infra?.status
        ?.controlPlaneTopology ?? '';
    for (const name of d.annotateTopology) {
      await nodes
        .patch(name, { metadata: { annotations: { [NodeAnnotations.controlPlaneTopology]: topo } } }, { type: 'merge' })
        .catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
    }
    for (const c of d.customPoolLabels) {
      this.ctx.logger.info(`Node ${c.node} was booted into custom pool ${c.pool}; applying node selector labels`, {
        node: c.node,
        pool: c.pool,
        labels: c.labels,
      });
      await nodes
        .patch(
          c.node,
          { metadata: { labels: c.labels, annotations: { [NodeAnnotations.customPoolLabelsApplied]: '' } } },
          { type: 'merge' },
        )
        .catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
    }
  }

  /**
   * Adds or removes the UpdateInProgress taint (upstream setUpdateInProgressTaint / removeUpdateInProgressTaint). A
   * pool sync that follows ours before the node watch shows our patch would decide the same write again from the
   * stale copy (a patch answered 409, as its resourceVersion is old): a write the server already acknowledged with a
   * later resourceVersion than the cached one is not repeated.
   */
  private async applyTaints(d: PoolSyncDecision): Promise<void> {
    const nodes = this.ctx.client.resource(Nodes);
    for (const [names, add] of [
      [d.addTaint, true],
      [d.removeTaint, false],
    ] as const) {
      for (const name of names) {
        const cur = this.ctx.informers.nodes.store.get(name);
        if (!cur) continue;
        if (this.taintWritePending(cur, add)) continue;
        const others = (cur.spec?.taints ?? []).filter(
          (t) => !(t.key === UPDATE_IN_PROGRESS_TAINT.key && t.effect === UPDATE_IN_PROGRESS_TAINT.effect),
        );
        const taints = add ? [...others, { ...UPDATE_IN_PROGRESS_TAINT }] : others;
        try {
          const written = await nodes.patch(
            name,
            { metadata: { resourceVersion: cur.metadata.resourceVersion }, spec: { taints } },
            { type: 'merge' },
          );
          this.taintWrites.set(name, { add, rv: rvOf(written) });
        } catch (e) {
          if (!isConflict(e) && !isNotFound(e)) throw e;
        }
      }
    }
  }

  /** Whether our own taint write `add` is acknowledged but not yet in the cached node `cur`. */
  private taintWritePending(cur: Node, add: boolean): boolean {
    const name = cur.metadata.name ?? '';
    const w = this.taintWrites.get(name);
    if (w === undefined) return false;
    const cached = rvOf(cur);
    if (!Number.isSafeInteger(cached) || !Number.isSafeInteger(w.rv) || cached >= w.rv) {
      this.taintWrites.delete(name);
      return false;
    }
    return w.add === add;
  }

  /**
   * Sets desiredConfig on the chosen nodes: patch only when something changes, guarded by the resourceVersion of the
   * node read; retry on conflict. The first attempt reads the node from the informer (upstream
   * `setDesiredMachineConfigAnnotation` GETs it first; the patch's resourceVersion makes a stale cache cost a 409
   * instead of a GET on every node step), a retry GETs it.
   */
  private async applyDesired(pool: MachineConfigPool, d: PoolSyncDecision): Promise<void> {
    const target = pool.spec.configuration?.name ?? '';
    const nodes = this.ctx.client.resource(Nodes);
    for (const name of d.setDesired) {
      for (let attempt = 0; ; attempt++) {
        const fresh = (attempt === 0 ? this.ctx.informers.nodes.store.get(name) : undefined) ?? (await nodes.get(name));
        const ann = fresh.metadata.annotations ?? {};
        if (ann[NodeAnnotations.desiredConfig] === target && !Object.hasOwn(ann, NodeAnnotations.desiredImage)) break;
        if (attempt === 0) await setMcnSpecDesired(this.ctx.client, name, target, this.ctx.logger);
        try {
          await nodes.patch(
            name,
            {
              metadata: {
                resourceVersion: fresh.metadata.resourceVersion,
                annotations: { [NodeAnnotations.desiredConfig]: target, [NodeAnnotations.desiredImage]: null },
              },
            },
            { type: 'merge' },
          );
          this.expectations.set(name, { desired: target, until: Date.now() + 30_000 });
          break;
        } catch (e) {
          if (!isConflict(e) || attempt >= 4) throw e;
        }
      }
    }
    if (d.setDesired.length === 1)
      void this.ctx.recorder.normal(
        pool,
        'SetDesiredConfig',
        `Targeted node ${d.setDesired[0] ?? ''} to MachineConfig: ${target}`,
      );
    else if (d.setDesired.length > 1)
      void this.ctx.recorder.normal(
        pool,
        'SetDesiredConfig',
        `Set target for ${d.setDesired.length} nodes to MachineConfig: ${target}`,
      );
  }

  /** Writes `status`; returns the stored pool, or undefined after a conflict (the pool is requeued). */
  private async updateStatus(
    pool: MachineConfigPool,
    status: PoolSyncDecision['status'],
  ): Promise<MachineConfigPool | undefined> {
    try {
      return await this.ctx.client.resource(Pools).updateStatus({ ...pool, status });
    } catch (e) {
      if (isConflict(e)) {
        this.controller.queue.addAfter(pool.metadata.name ?? '', 100);
        return undefined;
      }
      throw e;
    }
  }

  private async writeStatus(pool: MachineConfigPool, d: PoolSyncDecision): Promise<void> {
    if (!d.statusChanged) return;
    if ((await this.updateStatus(pool, d.status)) === undefined) return;
    if (d.completed) {
      void this.ctx.recorder.normal(
        pool,
        'Completed',
        `Pool ${pool.metadata.name ?? ''} has completed update to MachineConfig ${pool.spec.configuration?.name ?? ''}`,
      );
    }
  }
}
