import type { Registry } from 'prom-client';
import { KubeError } from './errors.js';
import type { Informer } from './informer.js';
import { nullLogger, type Logger } from './logger.js';
import { counter, gauge, histogram } from './metrics.js';
import type { RateLimiter } from './ratelimit.js';
import { objectKey } from './store.js';
import type { KubeObject } from './types.js';
import { WorkQueue } from './workqueue.js';

/**
 * A {@link Controller.watch} mapper that enqueues the controlling owner of an object instead of the object itself
 * (controller-runtime's `EnqueueRequestForOwner` with `OnlyControllerOwner`): objects whose controller owner reference
 * is of `ownerKind` map to the owner's key (same namespace for namespaced owners; `namespaced: false` for
 * cluster-scoped owners such as a MachineConfigPool). Others map to nothing.
 */
export function ownerKeyMapper(
  ownerKind: string,
  options: { namespaced?: boolean } = {},
): (obj: KubeObject) => string[] {
  const namespaced = options.namespaced ?? true;
  return (obj) => {
    const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ref?.kind !== ownerKind || ref.name === '') return [];
    const ns = obj.metadata.namespace;
    return [namespaced && ns !== undefined && ns !== '' ? `${ns}/${ref.name}` : ref.name];
  };
}

/** What a reconcile asks for next. Returning nothing means "done, forget the key's backoff". */
export interface ReconcileResult {
  /** Reconcile this key again after a backoff, without logging an error. */
  requeue?: boolean;
  /** Reconcile this key again after this many milliseconds (resets its failure backoff). */
  requeueAfterMs?: number;
}

/** Context passed to a reconcile. */
export interface ReconcileContext {
  /** Aborted when the controller stops. */
  signal: AbortSignal;
  /** Logger with `controller` and `key` fields. */
  logger: Logger;
  /** How many times this key has been requeued by failures since its last success. */
  attempt: number;
}

/** Reconciles one key (`namespace/name` or `name`). Throw to retry with backoff. */
export type Reconciler = (key: string, ctx: ReconcileContext) => Promise<ReconcileResult | undefined>;

/** Options of {@link Controller}. */
export interface ControllerOptions {
  /** Name (queue name and metrics label). */
  name: string;
  reconcile: Reconciler;
  /** Parallel workers (default 1). A key is never reconciled by two workers at once. */
  workers?: number;
  /** Rate limiter of retries (default: 5 ms..1000 s per key, 10 qps / 100 burst overall). */
  rateLimiter?: RateLimiter;
  /** Drop a key after this many consecutive failures (default: never). */
  maxRetries?: number;
  /** Registry for `controller_*` and `workqueue_*` metrics. */
  registry?: Registry;
  logger?: Logger;
}

/**
 * Reconciles keys from a rate-limited {@link WorkQueue} with N workers (the controller-runtime / client-go pattern).
 * Failures (thrown errors) are requeued with per-key exponential backoff; success forgets the key's backoff.
 */
export class Controller {
  /** Controller name. */
  readonly name: string;
  /** The work queue (exposed for custom enqueueing and tests). */
  readonly queue: WorkQueue;
  private readonly opts: ControllerOptions;
  private readonly log: Logger;
  private readonly abort = new AbortController();
  private workers: Promise<void>[] = [];
  private started = false;
  private readonly informers: Array<Informer<KubeObject>> = [];
  private readonly unsubscribers: Array<() => void> = [];
  private readonly m:
    { total: (r: string) => void; duration: (s: number) => void; active: (d: number) => void } | undefined;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.opts = options;
    this.log = (options.logger ?? nullLogger).child({ controller: options.name });
    const qo: ConstructorParameters<typeof WorkQueue<string>>[0] = { name: options.name };
    if (options.rateLimiter !== undefined) qo.rateLimiter = options.rateLimiter;
    if (options.registry !== undefined) qo.registry = options.registry;
    this.queue = new WorkQueue<string>(qo);
    const reg = options.registry;
    if (reg !== undefined) {
      const total = counter(reg, 'controller_reconcile_total', 'Total number of reconciliations per controller', [
        'controller',
        'result',
      ]);
      const dur = histogram(
        reg,
        'controller_reconcile_time_seconds',
        'Length of time per reconciliation per controller',
        ['controller'],
      );
      const active = gauge(reg, 'controller_active_workers', 'Number of currently used workers per controller', [
        'controller',
      ]);
      this.m = {
        total: (r) => {
          total.inc({ controller: this.name, result: r });
        },
        duration: (s) => {
          dur.observe({ controller: this.name }, s);
        },
        active: (d) => {
          active.inc({ controller: this.name }, d);
        },
      };
    }
  }

  /** Queue a key for reconciliation. */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** Queue the key of an object. */
  enqueueObject(obj: KubeObject): void {
    this.queue.add(objectKey(obj));
  }

  /**
   * Feed the controller from an informer: every add/update/delete enqueues `mapper(obj)` (default: the object's
   * own key). Return `[]` from the mapper to ignore an event. The controller waits for the informer's sync in `run`.
   */
  watch<T extends KubeObject>(informer: Informer<T>, mapper: (obj: T) => string[] = (o) => [objectKey(o)]): this {
    const enqueue = (o: T): void => {
      for (const k of mapper(o)) this.queue.add(k);
    };
    this.informers.push(informer as unknown as Informer<KubeObject>);
    this.unsubscribers.push(
      informer.addHandlers({
        add: enqueue,
        update: (_o, n) => {
          enqueue(n);
        },
        delete: enqueue,
      }),
    );
    return this;
  }

  /**
   * Start informers fed through {@link Controller.watch} (if not started), wait for their caches, then run the workers.
   * Resolves once the controller has been stopped and the workers have finished.
   */
  async run(): Promise<void> {
    if (this.started)
      throw new KubeError(
        'KUBE_INVALID_ARGUMENT',
        `controller ${this.name} is already running: call run() once per Controller`,
      );
    this.started = true;
    for (const inf of this.informers) inf.start();
    await Promise.all(this.informers.map((i) => i.waitForSync(this.abort.signal))).catch(() => undefined);
    if (this.abort.signal.aborted) return;
    const n = Math.max(1, this.opts.workers ?? 1);
    this.log.info('starting workers', { workers: n });
    this.workers = Array.from({ length: n }, () => this.worker());
    await Promise.all(this.workers);
  }

  /** Stop: no new keys are taken, in-flight reconciles see their signal aborted and are awaited. */
  async stop(): Promise<void> {
    this.abort.abort(new Error(`controller ${this.name} stopped`));
    for (const u of this.unsubscribers.splice(0)) u();
    await this.queue.shutDownWithDrain();
    await Promise.all(this.workers);
  }

  private async worker(): Promise<void> {
    for (;;) {
      const r = await this.queue.get();
      if (r.shutdown) return;
      await this.process(r.item);
    }
  }

  private async process(key: string): Promise<void> {
    const attempt = this.queue.numRequeues(key);
    const logger = this.log.child({ key });
    const started = performance.now();
    this.m?.active(1);
    try {
      const res = await this.opts.reconcile(key, { signal: this.abort.signal, logger, attempt });
      if (res?.requeueAfterMs !== undefined && res.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, res.requeueAfterMs);
        this.m?.total('requeue_after');
      } else if (res?.requeue === true) {
        this.queue.addRateLimited(key);
        this.m?.total('requeue');
      } else {
        this.queue.forget(key);
        this.m?.total('success');
      }
    } catch (err) {
      this.m?.total('error');
      const max = this.opts.maxRetries;
      if (max !== undefined && attempt >= max) {
        logger.error('reconcile failed, dropping key after max retries', { err, attempt, maxRetries: max });
        this.queue.forget(key);
      } else {
        logger.warn('reconcile failed, requeueing with backoff', { err, attempt });
        this.queue.addRateLimited(key);
      }
    } finally {
      this.m?.active(-1);
      this.m?.duration((performance.now() - started) / 1000);
      this.queue.done(key);
    }
  }
}
