/**
 * The ClusterVersion status writer, apart from the sync (upstream `pkg/cvo/cvo.go` `Operator.sync` → `syncStatus`, fed
 * by the sync worker's `Status()` through `statusNotifier`): the sync worker only asks for a write; the writer computes
 * the status from the worker's current state and PUTs it to `/status` on its own chain. A refused or failed write is
 * logged and retried with backoff (upstream requeues the ClusterVersion key on the rate-limited queue); it never fails,
 * stops or delays the pass that applies the payload.
 */
import { isConflict, type KubeClient, type Logger } from '@keelson/kube';
import type { ClusterVersion, ClusterVersionStatus } from '../api-types.js';
import { deepEqual } from '@keelson/cluster-version';

const CV_STATUS_PATH = '/apis/config.openshift.io/v1/clusterversions/version/status';

/** Dependencies of the {@link StatusWriter}. */
export interface StatusWriterDeps {
  client: KubeClient;
  log: Logger;
  /** Least time between writes that are not edges (upstream `statusInterval`, 15 s). */
  statusIntervalMs: number;
  /** First retry delay after a failed write; doubles up to 60 times this (upstream queue: 1 s … 1 min). */
  retryBaseMs: number;
  /** The latest ClusterVersion the operator knows (undefined: read it). */
  current: () => ClusterVersion | undefined;
  /** Reads the ClusterVersion from the server. */
  read: (signal: AbortSignal) => Promise<ClusterVersion | undefined>;
  /** Computes the status to write over `cv` from the worker's current state. */
  compute: (cv: ClusterVersion) => ClusterVersionStatus;
  /** Called with the object the server stored. */
  written: (cv: ClusterVersion, status: ClusterVersionStatus) => void;
  signal: AbortSignal;
}

/** Writes ClusterVersion status on its own chain; {@link request} never throws and never blocks. */
export class StatusWriter {
  private chain: Promise<void> = Promise.resolve();
  private lastWrite = 0;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  private trailing: NodeJS.Timeout | undefined;
  private queued = false;
  private lastError = '';

  constructor(private readonly d: StatusWriterDeps) {}

  /**
   * Asks for a write. Edges (pass start/end, acceptance changes) are written at once; other requests at most once per
   * status interval (a trailing write covers the last one).
   */
  request(edge: boolean): void {
    if (this.d.signal.aborted) return;
    const now = Date.now();
    if (!edge && now - this.lastWrite < this.d.statusIntervalMs) {
      this.trailing ??= setTimeout(
        () => {
          this.trailing = undefined;
          this.request(true);
        },
        this.lastWrite + this.d.statusIntervalMs - now,
      );
      return;
    }
    this.lastWrite = now;
    if (this.queued) return;
    this.queued = true;
    this.chain = this.chain.then(async () => {
      this.queued = false;
      await this.attempt();
    });
  }

  /** Resolves once every requested write has been attempted (for tests and stop). */
  settled(): Promise<void> {
    return this.chain;
  }

  /** Cancels pending retries and trailing writes. */
  stop(): void {
    clearTimeout(this.retry);
    clearTimeout(this.trailing);
    this.retry = undefined;
    this.trailing = undefined;
  }

  private async attempt(): Promise<void> {
    try {
      await this.writeNow();
      if (this.failures > 0)
        this.d.log.info('ClusterVersion status written after earlier failures', { failures: this.failures });
      this.failures = 0;
      this.lastError = '';
    } catch (e) {
      if (this.d.signal.aborted) return;
      this.failures++;
      const message = (e as Error).message;
      // the same refusal repeated is logged once at warn level, then at debug level (no log flood)
      if (message !== this.lastError)
        this.d.log.warn('writing ClusterVersion status failed; the sync continues and the write is retried', {
          error: message,
          failures: this.failures,
        });
      else this.d.log.debug('writing ClusterVersion status failed again', { error: message, failures: this.failures });
      this.lastError = message;
      const delay = Math.min(this.d.retryBaseMs * 2 ** (this.failures - 1), this.d.retryBaseMs * 60);
      clearTimeout(this.retry);
      this.retry = setTimeout(() => {
        this.retry = undefined;
        this.request(true);
      }, delay);
    }
  }

  /** Computes and PUTs the status when it differs from the stored one; retries conflicts on a fresh read. */
  private async writeNow(): Promise<void> {
    const signal = this.d.signal;
    for (let i = 0; i < 3 && !signal.aborted; i++) {
      const cached = i === 0 ? this.d.current() : undefined;
      const cv = cached ?? (await this.d.read(signal));
      if (!cv) return;
      const status = this.d.compute(cv);
      // semantic equality (upstream compares with equality.Semantic.DeepEqual): the stored status may order its keys
      // differently from the computed one, which is no change
      if (deepEqual(status, cv.status)) return;
      try {
        const written = await this.d.client.request<ClusterVersion>('PUT', CV_STATUS_PATH, {
          body: { ...cv, status },
          signal,
        });
        this.d.written(written, status);
        return;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
  }
}
