/**
 * The render controller: MachineConfigs selected by each pool → `rendered-<pool>-<hash>` MachineConfig, pool
 * spec.configuration, RenderDegraded. Old rendered configs are never deleted (upstream has no GC).
 */
import { MACHINE_CONFIG_POOL_CONDITIONS, compileLabelSelector } from '@keelson/api';
import {
  Controller,
  isAlreadyExists,
  isConflict,
  MachineConfigPools,
  MachineConfigs,
  type ReconcileResult,
} from '@keelson/kube';
import type { MachineConfig, MachineConfigPool } from '../../common/api-types.js';
import { CONTROLLER_CONFIG_NAME, McAnnotations } from '../../common/constants.js';
import {
  controllerConfigGate,
  decideRenderWith,
  getCondition,
  pendingSubConfig,
  RenderPoolError,
  RenderThread,
  semanticEqual,
  setPoolCondition,
} from '@keelson/machineconfig';
import type { ControllerContext } from '../context.js';
import { watchDelayed } from '../watch.js';

const Pools = MachineConfigPools;

/** Versions the render controller compares and stamps. */
export interface RenderVersions {
  /** generated-by-controller-version of our MCs. */
  controllerVersion: string;
  /** Expected generated-by-version of the ControllerConfig (the operator's version). */
  operatorVersion: string;
}

/** The render controller. */
export class RenderController {
  readonly controller: Controller;
  private readonly unsubscribe: Array<() => void> = [];
  /** Renders run on a worker thread: a hostile MachineConfig must not stall Lease renewals and watches. */
  private readonly renderThread = new RenderThread();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly versions: RenderVersions,
  ) {
    this.controller = new Controller({
      name: 'render',
      reconcile: (key) => this.reconcile(key),
      registry: ctx.registry,
      logger: ctx.logger,
      maxRetries: 15,
    });
    const inf = ctx.informers;
    const d = ctx.durations.renderDelayMs;
    const allPools = (): string[] => inf.pools.store.list().map((p) => p.metadata.name ?? '');
    this.unsubscribe.push(
      watchDelayed(
        this.controller,
        inf.pools,
        (p) => [p.metadata.name ?? ''],
        d,
        (o, n) => !semanticEqual(o.spec, n.spec) || !semanticEqual(o.metadata.labels, n.metadata.labels),
      ),
      watchDelayed(
        this.controller,
        inf.machineConfigs,
        (mc) => this.poolsForMachineConfig(mc),
        d,
        (o, n) => !semanticEqual(o.spec, n.spec) || !semanticEqual(o.metadata.labels, n.metadata.labels),
      ),
      watchDelayed(this.controller, inf.controllerConfigs, allPools, d),
      watchDelayed(this.controller, inf.kubeletConfigs, allPools, d),
      watchDelayed(this.controller, inf.containerRuntimeConfigs, allPools, d),
    );
  }

  /** Pools an MC event concerns: its controller-owner pool, else every pool whose selector matches its labels. */
  private poolsForMachineConfig(mc: MachineConfig): string[] {
    const owner = mc.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'MachineConfigPool');
    if (owner) return [owner.name];
    const labels = mc.metadata.labels;
    if (labels === undefined || Object.keys(labels).length === 0) {
      this.ctx.logger.error('MachineConfig has no labels; not routed to any pool', { machineConfig: mc.metadata.name });
      return [];
    }
    return this.ctx.informers.pools.store
      .list()
      .filter((p) => {
        try {
          return compileLabelSelector(p.spec.machineConfigSelector).matches(labels);
        } catch {
          return false;
        }
      })
      .map((p) => p.metadata.name ?? '');
  }

  run(): Promise<void> {
    for (const p of this.ctx.informers.pools.store.list()) this.controller.enqueue(p.metadata.name ?? '');
    return this.controller.run();
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    await this.controller.stop();
    await this.renderThread.close();
  }

  /** Renders one pool. Throws (rate-limited requeue) while gated or after a render failure. */
  async reconcile(poolName: string): Promise<ReconcileResult | undefined> {
    const inf = this.ctx.informers;
    const pool = inf.pools.store.get(poolName);
    if (pool === undefined) return undefined;
    const cc = inf.controllerConfigs.store.get(CONTROLLER_CONFIG_NAME);
    const gate =
      controllerConfigGate(cc, this.versions.controllerVersion) ??
      pendingSubConfig(pool, [...inf.kubeletConfigs.store.list(), ...inf.containerRuntimeConfigs.store.list()]);
    if (gate !== undefined || cc === undefined)
      throw new RenderPoolError('RENDER_WAITING', poolName, gate ?? 'no ControllerConfig');
    const d = await decideRenderWith(
      { pool, machineConfigs: inf.machineConfigs.store.list(), controllerConfig: cc, ...this.versions },
      (...args) => this.renderThread.render(...args),
    );
    if (d.kind === 'selectingAll') {
      void this.ctx.recorder.warning(
        pool,
        'SelectingAll',
        'This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.',
      );
      return undefined;
    }
    if (d.kind === 'failed') {
      await this.setRenderDegraded(pool, 'True', d.message);
      throw new RenderPoolError('RENDER_FAILED', poolName, d.message);
    }
    const mc = d.result.machineConfig as unknown as MachineConfig;
    await this.ensureRendered(pool, mc);
    if (d.specChanged) {
      const updated: MachineConfigPool = { ...pool, spec: { ...pool.spec, configuration: d.spec } };
      try {
        const res = await this.ctx.client.resource(Pools).update(updated);
        if (pool.spec.configuration?.name !== d.spec.name)
          this.ctx.logger.info(`Pool ${poolName}: now targeting: ${d.spec.name}`, { pool: poolName });
        await this.setRenderDegraded(res, 'False', '');
      } catch (e) {
        if (isConflict(e)) return { requeueAfterMs: 100 };
        throw e;
      }
      return undefined;
    }
    await this.setRenderDegraded(pool, 'False', '');
    return undefined;
  }

  /** Creates the rendered MC unless it exists; re-applies its spec when it exists with other content. */
  private async ensureRendered(pool: MachineConfigPool, mc: MachineConfig): Promise<void> {
    const client = this.ctx.client.resource(MachineConfigs);
    const name = mc.metadata.name ?? '';
    const existing = this.ctx.informers.machineConfigs.store.get(name);
    if (existing === undefined) {
      try {
        await client.create(mc);
        const rel = mc.metadata.annotations?.[McAnnotations.releaseImageVersion] ?? '';
        void this.ctx.recorder.normal(
          pool,
          'RenderedConfigGenerated',
          `${name} successfully generated (release version: ${rel}, controller version: ${this.versions.controllerVersion})`,
        );
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      return;
    }
    if (!semanticEqual(existing.spec, mc.spec)) {
      await client.update({ ...existing, spec: mc.spec ?? {} });
    }
  }

  private async setRenderDegraded(pool: MachineConfigPool, status: 'True' | 'False', message: string): Promise<void> {
    const prev = getCondition(pool.status?.conditions, MACHINE_CONFIG_POOL_CONDITIONS.RenderDegraded);
    if (status === 'False' && prev?.status === 'False') return;
    if (prev?.status === status && (prev.message ?? '') === message) return;
    const conditions = setPoolCondition(
      pool.status?.conditions,
      { type: MACHINE_CONFIG_POOL_CONDITIONS.RenderDegraded, status, reason: '', message },
      this.ctx.now(),
    );
    try {
      await this.ctx.client.resource(Pools).updateStatus({ ...pool, status: { ...(pool.status ?? {}), conditions } });
    } catch (e) {
      if (!isConflict(e)) throw e;
      this.controller.queue.addAfter(pool.metadata.name ?? '', 100);
    }
  }
}
