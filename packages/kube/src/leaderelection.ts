import type { Registry } from 'prom-client';
import { sleep } from './clock.js';
import type { KubeClient, ResourceClient } from './client.js';
import { KubeError, isNotFound } from './errors.js';
import { nullLogger, type Logger } from './logger.js';
import { gauge } from './metrics.js';
import { Leases } from './resources.js';
import type { Lease } from './types.js';

/** client-go's `JitterFactor` for leader election retries. */
export const LEADER_ELECTION_JITTER = 1.2;

/** Options of {@link LeaderElector}. */
export interface LeaderElectionOptions {
  client: KubeClient;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** This candidate's identity (unique per process, e.g. `hostname_uuid`). */
  identity: string;
  /** How long a lease is valid without renewal; non-leaders wait this long after the last observed change (default 15 s). */
  leaseDurationMs?: number;
  /** The leader gives up if it could not renew for this long (default 10 s). Must be < leaseDuration. */
  renewDeadlineMs?: number;
  /** Interval between acquire/renew attempts (default 2 s). renewDeadline must be > 1.2 × retryPeriod. */
  retryPeriodMs?: number;
  /** Release the lease (empty holder) when stopped (default true). */
  releaseOnCancel?: boolean;
  /** Called when this candidate becomes leader; `signal` aborts when leadership ends. */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called once leadership ends (lost, or stopped). */
  onStoppedLeading?: () => void;
  /** Called whenever the observed leader changes (including to this candidate). */
  onNewLeader?: (identity: string) => void;
  /** Registry for the `leader_election_master_status` gauge. */
  registry?: Registry;
  logger?: Logger;
  /** Wall clock used for Lease timestamps (default `Date.now`). Expiry uses a monotonic clock. */
  now?: () => number;
}

/** `metav1.MicroTime` rendering: RFC 3339 with microseconds, UTC. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Lease-based leader election on `coordination.k8s.io/v1` Lease objects, with client-go `leaderelection` semantics:
 * - a candidate takes the lease when it is missing, has an empty holder, or its record has not changed for
 *   `leaseDurationSeconds` as observed on the candidate's own monotonic clock (no trust in remote clocks);
 * - taking it from another holder increments `leaseTransitions` and sets `acquireTime`; renewals keep both;
 * - the leader renews every `retryPeriod` and steps down when it could not renew for `renewDeadline`;
 * - with `releaseOnCancel`, stopping writes an empty holder and a 1 s duration so a successor takes over at once;
 * - writes use the Lease's resourceVersion, so two candidates can never both win a round.
 */
export class LeaderElector {
  private readonly o: Required<
    Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'releaseOnCancel'>
  > &
    LeaderElectionOptions;
  private readonly leases: ResourceClient<Lease>;
  private readonly log: Logger;
  private readonly wall: () => number;
  private observed: Lease | undefined;
  private observedKey = '';
  private observedAt = 0;
  private leader = false;
  private lastRenewAt = 0;
  private reportedLeader = '';
  private readonly stopCtl = new AbortController();
  private release: boolean;
  private running: Promise<void> | undefined;
  private readonly metric: ((v: number) => void) | undefined;

  constructor(options: LeaderElectionOptions) {
    this.o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnCancel: true,
      ...options,
    };
    const { leaseDurationMs: ld, renewDeadlineMs: rd, retryPeriodMs: rp } = this.o;
    if (!(rp > 0 && rd > 0 && ld > 0))
      throw new KubeError(
        'KUBE_INVALID_ARGUMENT',
        'leader election: leaseDurationMs, renewDeadlineMs and retryPeriodMs must be > 0',
      );
    if (!(ld > rd))
      throw new KubeError(
        'KUBE_INVALID_ARGUMENT',
        `leader election: leaseDurationMs (${ld}) must be greater than renewDeadlineMs (${rd})`,
      );
    if (!(rd > LEADER_ELECTION_JITTER * rp)) {
      throw new KubeError(
        'KUBE_INVALID_ARGUMENT',
        `leader election: renewDeadlineMs (${rd}) must be greater than ${LEADER_ELECTION_JITTER} × retryPeriodMs (${rp})`,
      );
    }
    if (options.identity === '')
      throw new KubeError('KUBE_INVALID_ARGUMENT', 'leader election: identity must not be empty');
    this.release = this.o.releaseOnCancel;
    this.leases = options.client.resource(Leases);
    this.log = (options.logger ?? nullLogger).child({
      component: 'leaderelection',
      lease: `${options.namespace}/${options.name}`,
      identity: options.identity,
    });
    this.wall = options.now ?? Date.now;
    if (options.registry !== undefined) {
      const g = gauge(
        options.registry,
        'leader_election_master_status',
        'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
        ['name'],
      );
      this.metric = (v) => {
        g.set({ name: options.name }, v);
      };
      this.metric(0);
    }
  }

  /** True while this candidate holds the lease. */
  isLeader(): boolean {
    return this.leader;
  }

  /** The holder identity last observed ('' when none). */
  getLeader(): string {
    return this.observed?.spec?.holderIdentity ?? '';
  }

  /**
   * A health check for `/healthz` (client-go `HealthzAdaptor`): fails when this process believes it leads but has
   * not renewed the lease for longer than `leaseDuration + toleranceMs`, i.e. it is stuck and should be restarted.
   */
  healthCheck(toleranceMs = 20_000): () => boolean {
    return () => !this.leader || performance.now() - this.lastRenewAt <= this.o.leaseDurationMs + toleranceMs;
  }

  /** The Lease record last observed or written. */
  getObservedLease(): Lease | undefined {
    return this.observed;
  }

  /**
   * Campaign, lead, and resolve when leadership ends (lost or {@link LeaderElector.stop}ped).
   * Resolves without leading if stopped before acquiring.
   */
  run(): Promise<void> {
    this.running ??= this.campaign();
    return this.running;
  }

  /**
   * Stop campaigning or leading. With `release` (default: `releaseOnCancel`) the lease is handed back;
   * `release: false` simulates a crashed leader that simply stops renewing.
   */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    if (opts.release !== undefined) this.release = opts.release;
    this.stopCtl.abort(new Error('leader election stopped'));
    await this.running;
  }

  private async campaign(): Promise<void> {
    const stop = this.stopCtl.signal;
    const { retryPeriodMs: rp, renewDeadlineMs: rd } = this.o;
    // acquire
    this.log.info('attempting to acquire leader lease');
    for (;;) {
      if (stop.aborted) return;
      if (await this.tryAcquireOrRenew()) break;
      await sleep(rp * (1 + Math.random() * LEADER_ELECTION_JITTER), stop).catch(() => undefined);
    }
    if (stop.aborted) {
      // acquired right as we were stopped: hand it back if asked to
      if (this.release) await this.releaseLease();
      return;
    }
    this.leader = true;
    this.metric?.(1);
    this.log.info('became leader');
    const lead = new AbortController();
    const started = Promise.resolve()
      .then(() => this.o.onStartedLeading(lead.signal))
      .catch((err: unknown) => {
        this.log.error('onStartedLeading failed', { err });
      });
    // renew
    let lastRenew = performance.now();
    this.lastRenewAt = lastRenew;
    while (!stop.aborted) {
      await sleep(rp, stop).catch(() => undefined);
      if (stop.aborted) break;
      if (await this.tryAcquireOrRenew()) {
        lastRenew = performance.now();
        this.lastRenewAt = lastRenew;
        continue;
      }
      if (performance.now() - lastRenew > rd) {
        this.log.warn('failed to renew lease within the renew deadline, stepping down', { renewDeadlineMs: rd });
        break;
      }
    }
    this.leader = false;
    this.metric?.(0);
    lead.abort(new Error('leadership lost'));
    if (stop.aborted && this.release) await this.releaseLease();
    await started;
    this.log.info('stopped leading');
    try {
      this.o.onStoppedLeading?.();
    } catch (err) {
      this.log.error('onStoppedLeading failed', { err });
    }
  }

  private setObserved(lease: Lease): void {
    const key = JSON.stringify(lease.spec ?? {});
    this.observed = lease;
    if (key !== this.observedKey) {
      this.observedKey = key;
      this.observedAt = performance.now();
    }
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      if (holder !== '') {
        try {
          this.o.onNewLeader?.(holder);
        } catch (err) {
          this.log.error('onNewLeader failed', { err });
        }
      }
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.o;
    const nowWall = this.wall();
    // Lease.spec.leaseDurationSeconds is an integer: a scaled duration (e.g. 1370 ms) is written rounded up
    const seconds = Math.max(1, Math.ceil(this.o.leaseDurationMs / 1000));
    const signal = AbortSignal.timeout(this.o.renewDeadlineMs);
    if (await this.tryRenewOptimistically(nowWall, seconds, signal)) return true;
    let current: Lease;
    try {
      current = await this.leases.get(name, namespace, signal);
    } catch (err) {
      if (!isNotFound(err)) {
        this.log.warn('error retrieving lease', { err });
        return false;
      }
      try {
        const created = await this.leases.create(
          {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: seconds,
              acquireTime: microTime(nowWall),
              renewTime: microTime(nowWall),
              leaseTransitions: 0,
            },
          },
          signal,
        );
        this.setObserved(created);
        return true;
      } catch (err2) {
        this.log.info('could not create lease', { err: err2 });
        return false;
      }
    }
    this.setObserved(current);
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const heldFor = (spec.leaseDurationSeconds ?? 0) * 1000;
    if (holder !== '' && holder !== identity && this.observedAt + heldFor > performance.now()) {
      return false; // another holder's lease has not expired yet
    }
    const next: Lease = {
      ...current,
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds: seconds,
        acquireTime: holder === identity && spec.acquireTime !== undefined ? spec.acquireTime : microTime(nowWall),
        renewTime: microTime(nowWall),
        leaseTransitions: holder === identity ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      },
    };
    try {
      const updated = await this.leases.update(next, signal);
      this.setObserved(updated);
      return true;
    } catch (err) {
      this.log.info('could not update lease', { err });
      return false;
    }
  }

  /**
   * client-go `tryAcquireOrRenew`'s fast path: a leader whose observed record is still valid renews with one update
   * of the Lease it last wrote (its resourceVersion guards against a successor) instead of a GET and an update. Any
   * failure falls back to the slow path (GET, then decide), as client-go does.
   */
  private async tryRenewOptimistically(nowWall: number, seconds: number, signal: AbortSignal): Promise<boolean> {
    const cur = this.observed;
    const spec = cur?.spec;
    if (!this.leader || cur === undefined || spec?.holderIdentity !== this.o.identity) return false;
    if (this.observedAt + (spec.leaseDurationSeconds ?? 0) * 1000 <= performance.now()) return false;
    try {
      const updated = await this.leases.update(
        {
          ...cur,
          spec: { ...spec, leaseDurationSeconds: seconds, renewTime: microTime(nowWall) },
        },
        signal,
      );
      this.setObserved(updated);
      return true;
    } catch (err) {
      this.log.info('failed to update lease optimistically, falling back to slow path', { err });
      return false;
    }
  }

  private async releaseLease(): Promise<void> {
    const cur = this.observed;
    if (cur === undefined || cur.spec?.holderIdentity !== this.o.identity) return;
    const now = microTime(this.wall());
    try {
      const updated = await this.leases.update(
        {
          ...cur,
          spec: {
            holderIdentity: '',
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: cur.spec.leaseTransitions ?? 0,
          },
        },
        AbortSignal.timeout(this.o.renewDeadlineMs),
      );
      this.setObserved(updated);
      this.log.info('released leader lease');
    } catch (err) {
      this.log.warn('failed to release lease', { err });
    }
  }
}
