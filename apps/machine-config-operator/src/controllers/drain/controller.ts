/**
 * The drain controller (upstream pkg/controller/drain): reacts to the daemon's `desiredDrain` request on a node —
 * cordon + drain or uncordon — and acknowledges with `lastAppliedDrain` once done.
 */
import { Controller, isConflict, isNotFound, type ReconcileResult } from '@keelson/kube';
import { Gauge } from 'prom-client';
import type { Node } from '../../common/api-types.js';
import { NodeAnnotations } from '../../common/constants.js';
import { Nodes } from '../../common/resources.js';
import type { ControllerContext } from '../context.js';
import { watchDelayed } from '../watch.js';
import { decideDrain, decideDrainFailure, drainTimeoutMessage } from '@keelson/machineconfig';
import { cordonOrUncordon, drainNode, DrainError } from './drainer.js';
import { DrainMcnReporters } from './mcn.js';

/** Cordon/uncordon retry (upstream: 10 s, ×2, 5 steps). */
export interface CordonBackoff {
  initialMs: number;
  steps: number;
}

/** The drain controller. */
export class DrainController {
  readonly controller: Controller;
  /** Nodes with a drain in flight, and since when. */
  private readonly ongoing = new Map<string, number>();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly drainErr: Gauge;
  private readonly abort = new AbortController();
  private readonly mcn: DrainMcnReporters;
  /**
   * The lastAppliedDrain each node was last acknowledged with: a reconcile whose cached Node does not show it yet
   * (the informer lags our own patch; a cordon event queued meanwhile) would drain the node a second time.
   */
  private readonly acked = new Map<string, string>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly cordonBackoff: CordonBackoff = { initialMs: 10_000, steps: 5 },
  ) {
    this.controller = new Controller({
      name: 'drain',
      reconcile: (key) => this.reconcile(key),
      registry: ctx.registry,
      logger: ctx.logger,
      workers: 5,
    });
    this.mcn = new DrainMcnReporters(ctx.client, (n) => ctx.informers.nodes.store.get(n), ctx.logger);
    const existing = ctx.registry.getSingleMetric('mcc_drain_err');
    this.drainErr =
      existing instanceof Gauge
        ? existing
        : new Gauge({
            name: 'mcc_drain_err',
            help: 'errors from failed drain',
            labelNames: ['node'],
            registers: [ctx.registry],
          });
    this.unsubscribe.push(
      watchDelayed(
        this.controller,
        ctx.informers.nodes,
        (n) => [n.metadata.name ?? ''],
        ctx.durations.drainDelayMs,
        (o, n) => {
          const a = (x: Node, k: string): string => x.metadata.annotations?.[k] ?? '';
          return (
            a(o, NodeAnnotations.desiredDrain) !== a(n, NodeAnnotations.desiredDrain) ||
            o.spec?.unschedulable !== n.spec?.unschedulable
          );
        },
      ),
    );
  }

  run(): Promise<void> {
    for (const n of this.ctx.informers.nodes.store.list()) this.controller.enqueue(n.metadata.name ?? '');
    this.mcn.start();
    return this.controller.run();
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    this.abort.abort();
    await this.controller.stop();
    await this.mcn.stop();
  }

  /** Handles one node's drain request. */
  async reconcile(name: string): Promise<ReconcileResult | undefined> {
    const node = this.ctx.informers.nodes.store.get(name);
    if (node === undefined) {
      this.ongoing.delete(name);
      this.acked.delete(name);
      this.mcn.forget(name);
      return undefined;
    }
    const desiredDrain = node.metadata.annotations?.[NodeAnnotations.desiredDrain] ?? '';
    const lastApplied = node.metadata.annotations?.[NodeAnnotations.lastAppliedDrain] ?? '';
    const acked = this.acked.get(name);
    if (acked !== undefined && (lastApplied === acked || desiredDrain !== acked)) this.acked.delete(name);
    else if (acked !== undefined) return undefined; // our acknowledgement is on its way to the cache
    const action = decideDrain(node, this.ongoing.has(name));
    const log = this.ctx.logger.child({ controller: 'drain', node: name });
    switch (action.kind) {
      case 'none':
        return undefined;
      case 'invalid':
        throw new Error(action.message);
      case 'uncordon':
        log.info('uncordoning');
        await cordonOrUncordon(this.ctx.client, name, false, this.cordonBackoff, log);
        this.ongoing.delete(name);
        await this.mcn.uncordoned(node);
        await this.acknowledge(name, action.desired, false);
        return undefined;
      case 'drain':
        return this.drain(node, action.desired, action.cordon);
    }
  }

  private async drain(node: Node, desired: string, cordon: boolean): Promise<ReconcileResult | undefined> {
    const name = node.metadata.name ?? '';
    const log = this.ctx.logger.child({ controller: 'drain', node: name });
    const started = this.ongoing.get(name);
    const nowMs = this.ctx.now().getTime();
    const elapsed = started === undefined ? 0 : nowMs - started;
    if (started !== undefined && elapsed > this.ctx.durations.drainFailedMs) {
      const msg = drainTimeoutMessage(name, this.ctx.durations) ?? '';
      log.error(msg);
      void this.ctx.recorder.warning(node, 'DrainFailed', msg);
      this.drainErr.set({ node: name }, 1);
    }
    if (cordon) {
      log.info('cordoning');
      await cordonOrUncordon(this.ctx.client, name, true, this.cordonBackoff, log);
    }
    if (started === undefined) {
      this.ongoing.set(name, nowMs);
      await this.mcn.draining(node, cordon);
    }
    log.info('initiating drain');
    try {
      await drainNode(
        this.ctx.client,
        name,
        {
          evictionRetryMs: this.ctx.durations.evictionRetryMs,
          attemptTimeoutMs: this.ctx.durations.drainAttemptTimeoutMs,
          podDeletePollMs: this.ctx.durations.podDeletePollMs,
        },
        this.abort.signal,
        log,
      );
    } catch (e) {
      if (this.abort.signal.aborted) return undefined;
      const msg = e instanceof DrainError ? e.message : (e as Error).message;
      const f = decideDrainFailure(elapsed, this.ctx.durations, msg);
      await this.mcn.drainFailed(node, msg);
      if (f.thresholdExceeded !== undefined) {
        log.warn(f.thresholdExceeded);
        void this.ctx.recorder.warning(node, 'DrainThresholdExceeded', f.thresholdExceeded);
      } else {
        log.warn(
          `Drain failed. Waiting ${String(f.requeueAfterMs / 60_000)} minute then retrying. Error message from drain: ${msg}`,
        );
      }
      return { requeueAfterMs: f.requeueAfterMs };
    }
    this.ongoing.delete(name);
    this.drainErr.remove({ node: name });
    await this.mcn.drained(node);
    await this.acknowledge(name, desired, true);
    return undefined;
  }

  /** Writes lastAppliedDrain = desired (unless the node was uncordoned externally during a drain). */
  private async acknowledge(name: string, desired: string, wasDrain: boolean): Promise<void> {
    const nodes = this.ctx.client.resource(Nodes);
    for (let attempt = 0; ; attempt++) {
      // first from the informer (the patch carries its resourceVersion: a stale copy costs a 409, then a GET); a
      // cached copy that does not show the drain's cordon yet is read again from the server before concluding anything
      const cached = attempt === 0 ? this.ctx.informers.nodes.store.get(name) : undefined;
      let fresh = cached !== undefined && (!wasDrain || cached.spec?.unschedulable === true) ? cached : undefined;
      try {
        fresh ??= await nodes.get(name);
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      if (wasDrain && fresh.spec?.unschedulable !== true) {
        this.ctx.logger.info('node was uncordoned during the drain; not writing the completion annotation', {
          node: name,
        });
        return;
      }
      try {
        await nodes.patch(
          name,
          {
            metadata: {
              resourceVersion: fresh.metadata.resourceVersion,
              annotations: { [NodeAnnotations.lastAppliedDrain]: desired },
            },
          },
          { type: 'merge' },
        );
        this.acked.set(name, desired);
        this.ctx.logger.info('operation successful; applying completion annotation', {
          node: name,
          lastAppliedDrain: desired,
        });
        return;
      } catch (e) {
        if (!isConflict(e) || attempt >= 4) throw e;
      }
    }
  }
}
