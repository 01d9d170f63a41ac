/**
 * The operator runtime, in the spirit of controller-runtime's `pkg/manager` (kubernetes-sigs/controller-runtime
 * `pkg/manager/manager.go` `New`, `pkg/manager/internal.go` `controllerManager.Start` / `engageStopProcedure`,
 * `pkg/manager/runnable_group.go`): one API client, shared informers, a health and metrics server (HTTP or HTTPS),
 * Lease leader election and runnables, started in order and stopped in the reverse order:
 *
 * - start: the health/metrics server, the shared informers and the runnables that do not need leadership, then the
 *   campaign for the Lease; the leader runnables start when it is won;
 * - stop: the leader runnables end first (their signal aborts and they are awaited), then the Lease is handed back
 *   (a successor takes over at once, and never while this process still writes), then the other runnables and the
 *   informers, then the server and the client;
 * - a Lease lost without stop() (renewal failed past the renew deadline) stops everything the same way and reports
 *   `leaderLost`: a process exits non-zero then, as upstream operators do (`klog.Fatalf("leaderelection lost")`).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { KubeClient } from './client.js';
import { KubeError } from './errors.js';
import { startHealthServer, type HealthCheck, type HealthServer, type HealthServerOptions } from './health.js';
import { Informer, type InformerOptions } from './informer.js';
import { LeaderElector } from './leaderelection.js';
import { nullLogger, type Logger } from './logger.js';
import type { ResourceDescriptor } from './resources.js';
import type { KubeObject } from './types.js';

/** Work the manager runs until `signal` aborts; the returned promise settles when the work has ended. */
export type RunnableFunc = (signal: AbortSignal) => void | Promise<void>;

/** A named runnable (controller-runtime `Runnable` + `LeaderElectionRunnable`). */
export interface Runnable {
  /** For logs (default `runnable-<n>`). */
  readonly name?: string;
  /** Runs only while this process holds the Lease (default true, as controller-runtime). */
  readonly needLeaderElection?: boolean;
  start: RunnableFunc;
}

/** Lease leader election of a {@link Manager}. */
export interface ManagerLeaderElection {
  namespace: string;
  name: string;
  /** Default `<hostname>_<uuid>`. */
  identity?: string;
  /** Defaults: upstream OpenShift's 137 s / 107 s / 26 s (library-go `LeaderElectionDefaulting`). */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Hand the Lease back on stop (default true; it is released only after the leader runnables ended). */
  releaseOnCancel?: boolean;
}

/** Why a manager stopped. */
export type StopReason = 'stopped' | 'leaderLost';

/** Options of {@link Manager}. */
export interface ManagerOptions {
  /**
   * The API client; absent for a process that serves without the cluster (the machine-config-server's `bootstrap`
   * mode): then {@link Manager.client}, {@link Manager.informer} and leader election throw `KUBE_INVALID_ARGUMENT`.
   */
  client?: KubeClient;
  /** Close the client when the manager stops (default true). */
  closeClient?: boolean;
  logger?: Logger;
  /** Metrics registry, served on `/metrics` (default: the health server's own). */
  registry?: Registry;
  /** The `/healthz` `/readyz` `/metrics` server (HTTP, or HTTPS with `tls`); `false` serves none. Default 127.0.0.1:0. */
  health?: false | Omit<HealthServerOptions, 'registry'>;
  /** Lease leader election; `false` or absent: leader runnables start at once (one replica, tests). */
  leaderElection?: false | ManagerLeaderElection;
  /** Called when leadership starts (after the Lease is won, before the leader runnables start). */
  onStartedLeading?: (identity: string) => void;
  /** Called once when the Lease was lost without stop(); the manager stops itself (see {@link Manager.done}). */
  onLeaderLost?: (identity: string) => void;
}

/** The upstream OpenShift leader-election timings (library-go `LeaderElectionDefaulting`: 137 s / 107 s / 26 s). */
export const OPENSHIFT_LEADER_ELECTION = { leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 };

interface Started {
  readonly name: string;
  readonly ctl: AbortController;
  readonly done: Promise<void>;
}

/** Resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
}

/** One operator process: see the module comment. */
export class Manager {
  readonly logger: Logger;
  private readonly kube: KubeClient | undefined;
  private readonly o: ManagerOptions;
  private readonly runnables: Runnable[] = [];
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private readonly healthChecks: Record<string, HealthCheck> = {};
  private readonly readyChecks: Record<string, HealthCheck> = {};
  private readonly others: Started[] = [];
  private leaders: Started[] = [];
  private server: HealthServer | undefined;
  private elector: LeaderElector | undefined;
  private electing: Promise<void> = Promise.resolve();
  private leading = false;
  private state: 'new' | 'starting' | 'started' | 'stopping' = 'new';
  private stopping: Promise<void> | undefined;
  private resolveDone: (r: StopReason) => void = () => undefined;
  /** Settles once the manager has stopped: `stopped` after {@link Manager.stop}, `leaderLost` after a lost Lease. */
  readonly done: Promise<StopReason>;
  /** The identity campaigning for the Lease ('' without leader election). */
  readonly identity: string;

  constructor(options: ManagerOptions) {
    this.o = options;
    this.kube = options.client;
    this.logger = options.logger ?? nullLogger;
    const le = options.leaderElection;
    if (le && options.client === undefined)
      throw new KubeError('KUBE_INVALID_ARGUMENT', 'manager: leader election needs a client');
    this.identity = le ? (le.identity ?? `${hostname()}_${randomUUID()}`) : '';
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  /** The API client (throws `KUBE_INVALID_ARGUMENT` on a manager made without one). */
  get client(): KubeClient {
    if (this.kube === undefined) throw new KubeError('KUBE_INVALID_ARGUMENT', 'manager: made without a client');
    return this.kube;
  }

  /** True when the manager has an API client. */
  hasClient(): boolean {
    return this.kube !== undefined;
  }

  /** Adds work; after start() a runnable that needs no leadership starts at once, a leader one with the next term. */
  add(r: Runnable | RunnableFunc): void {
    const runnable: Runnable =
      typeof r === 'function' ? { name: `runnable-${this.runnables.length + 1}`, start: r } : r;
    if (this.state === 'stopping') throw new KubeError('KUBE_INVALID_ARGUMENT', 'manager: add after stop');
    this.runnables.push(runnable);
    if (this.state === 'started' && runnable.needLeaderElection === false) this.others.push(this.run(runnable));
    else if (this.state === 'started' && this.leading) this.leaders.push(this.run(runnable));
  }

  /** A liveness check of `/healthz` (added before start()). */
  addHealthCheck(name: string, check: HealthCheck): void {
    this.healthChecks[name] = check;
    this.server?.addHealthCheck(name, check);
  }

  /** A readiness check of `/readyz` (added before start()). */
  addReadyCheck(name: string, check: HealthCheck): void {
    this.readyChecks[name] = check;
    this.server?.addReadyCheck(name, check);
  }

  /**
   * The shared informer of a kind and selection (controller-runtime's cache): one watch per distinct
   * (kind, namespace, selectors) however many controllers ask; started with the manager (at once when asked after
   * start()), stopped after the runnables. `indexers` are added to its store unless one of that name exists
   * (controller-runtime `IndexField`): callers that share an informer share its indexes.
   */
  informer<T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    options: Pick<InformerOptions<T>, 'namespace' | 'labelSelector' | 'fieldSelector' | 'indexers'> = {},
  ): Informer<T> {
    const key = JSON.stringify([
      resource.group,
      resource.version,
      resource.plural,
      options.namespace ?? '',
      options.labelSelector ?? '',
      options.fieldSelector ?? '',
    ]);
    let inf = this.informers.get(key) as Informer<T> | undefined;
    if (inf === undefined) {
      const { indexers: _indexers, ...selection } = options;
      inf = new Informer<T>(this.client, resource, { ...selection, logger: this.logger });
      this.informers.set(key, inf as unknown as Informer<KubeObject>);
      if (this.state === 'started') inf.start();
    }
    for (const [name, fn] of Object.entries(options.indexers ?? {}))
      if (!inf.store.hasIndexer(name)) inf.store.addIndexer(name, fn);
    return inf;
  }

  /** The registry served on `/metrics`. */
  get registry(): Registry | undefined {
    return this.o.registry ?? this.server?.registry;
  }

  /** Base URL of the health/metrics server (undefined when not serving or not started). */
  get healthUrl(): string | undefined {
    return this.server?.url;
  }

  /** True while the leader runnables run (always, once started, without leader election). */
  isLeader(): boolean {
    return this.leading;
  }

  /** Starts serving, the informers and runnables, then campaigns; resolves once started (not when leading). */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new KubeError('KUBE_INVALID_ARGUMENT', 'manager: start() called twice');
    this.state = 'starting';
    const le = this.o.leaderElection;
    if (le) this.elector = this.newElector(le);
    if (this.o.health !== false) {
      const h = this.o.health ?? {};
      this.server = await startHealthServer({
        host: '127.0.0.1',
        port: 0,
        ...h,
        ...(this.o.registry ? { registry: this.o.registry } : {}),
        healthChecks: {
          ...h.healthChecks,
          ...this.healthChecks,
          ...(this.elector ? { leaderElection: this.elector.healthCheck() } : {}),
        },
        readyChecks: { ...h.readyChecks, ...this.readyChecks },
      });
    }
    this.state = 'started';
    for (const inf of this.informers.values()) inf.start();
    for (const r of this.runnables) if (r.needLeaderElection === false) this.others.push(this.run(r));
    if (this.elector) {
      this.electing = this.elector.run().catch((err: unknown) => {
        this.logger.error('leader election failed', { err });
      });
    } else this.startLeading();
  }

  /** Graceful stop in controller-runtime's order (see the module comment); idempotent. */
  stop(): Promise<void> {
    return this.shutdown('stopped');
  }

  private shutdown(reason: StopReason): Promise<void> {
    this.stopping ??= (async () => {
      this.state = 'stopping';
      this.logger.info('stopping', { reason });
      await this.stopLeaders();
      await this.elector?.stop();
      await this.electing;
      await stopAll(this.others.splice(0));
      await Promise.all([...this.informers.values()].map((i) => i.stop()));
      await this.server?.close();
      if (this.o.closeClient !== false) await this.kube?.close();
      this.resolveDone(reason);
    })();
    return this.stopping;
  }

  private newElector(le: ManagerLeaderElection): LeaderElector {
    return new LeaderElector({
      client: this.client,
      namespace: le.namespace,
      name: le.name,
      identity: this.identity,
      leaseDurationMs: le.leaseDurationMs ?? OPENSHIFT_LEADER_ELECTION.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs ?? OPENSHIFT_LEADER_ELECTION.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs ?? OPENSHIFT_LEADER_ELECTION.retryPeriodMs,
      releaseOnCancel: le.releaseOnCancel ?? true,
      logger: this.logger,
      ...(this.o.registry ? { registry: this.o.registry } : {}),
      onStartedLeading: async (signal) => {
        this.startLeading();
        await aborted(signal);
        // the leader runnables end before the elector writes the release
        await this.stopLeaders();
      },
      onStoppedLeading: () => {
        if (this.state === 'stopping') return;
        this.logger.error('leaderelection lost', { identity: this.identity });
        try {
          this.o.onLeaderLost?.(this.identity);
        } finally {
          void this.shutdown('leaderLost');
        }
      },
    });
  }

  private startLeading(): void {
    if (this.state !== 'started') return;
    this.leading = true;
    this.o.onStartedLeading?.(this.identity);
    for (const r of this.runnables) if (r.needLeaderElection !== false) this.leaders.push(this.run(r));
  }

  private async stopLeaders(): Promise<void> {
    this.leading = false;
    await stopAll(this.leaders.splice(0));
  }

  private run(r: Runnable): Started {
    const ctl = new AbortController();
    const name = r.name ?? 'runnable';
    const done = Promise.resolve()
      .then(() => r.start(ctl.signal))
      .catch((err: unknown) => {
        this.logger.error('runnable failed', { runnable: name, err });
      });
    return { name, ctl, done };
  }
}

/** Aborts every runnable and waits for all of them. */
async function stopAll(started: Started[]): Promise<void> {
  for (const s of started) s.ctl.abort(new Error('manager stopping'));
  await Promise.all(started.map((s) => s.done));
}

/**
 * Adapts a start function that returns its own stop function (the MCO's `lead()` shape) to a {@link RunnableFunc}.
 */
export function runnableFromStarter(start: () => Promise<() => Promise<void>>): RunnableFunc {
  return async (signal) => {
    const stop = await start();
    await aborted(signal);
    await stop();
  };
}
