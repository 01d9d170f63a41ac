/** When a ClusterVersion event wakes the sync loop (upstream: the sync worker restarts only when the desired work changed). */
import type { ClusterOperator, ClusterVersion } from '../api-types.js';

/**
 * Whether an update event changed what the operator was asked to do (spec or generation). An event that only changed
 * `status` (the operator's own status writes) does not start a pass: without this, every status write would start the
 * next pass at once, and the operator would re-apply the whole payload back to back instead of waiting its interval.
 */
export function specChanged(oldCv: ClusterVersion, newCv: ClusterVersion): boolean {
  if (oldCv.metadata.generation !== newCv.metadata.generation) return true;
  return JSON.stringify(oldCv.spec) !== JSON.stringify(newCv.spec);
}

function operatorVersion(co: ClusterOperator): string {
  return co.status?.versions?.find((v) => v.name === 'operator')?.version ?? '';
}

function conditionStatus(co: ClusterOperator, type: string): string {
  return co.status?.conditions?.find((c) => c.type === type)?.status ?? '';
}

/**
 * Upstream's ClusterOperator event handler (`NotifyAboutManagedResourceActivity`): a change of the `operator` version,
 * or of the Available or Degraded status, wakes the sync worker from its backoff, so the next run level starts when an
 * operator reaches the new version instead of after the retry interval. Returns the upstream message, or undefined.
 */
export function clusterOperatorActivity(oldCo: ClusterOperator, newCo: ClusterOperator): string | undefined {
  const name = newCo.metadata.name ?? '';
  const ov = operatorVersion(oldCo);
  const nv = operatorVersion(newCo);
  if (ov !== nv) return `Cluster operator ${name} changed versions[name="operator"] from "${ov}" to "${nv}"`;
  for (const type of ['Available', 'Degraded']) {
    const os = conditionStatus(oldCo, type);
    const ns = conditionStatus(newCo, type);
    if (os !== ns) return `Cluster operator ${name} changed ${type} from "${os}" to "${ns}"`;
  }
  return undefined;
}

/** Why the sync worker was woken: the desired work changed, or a managed resource reported activity. */
export type WakeKind = 'work' | 'activity';

/**
 * The sync worker's wake-up channel (upstream `SyncWorker.notify`, a channel with a buffer of one): a notification
 * that arrives while a pass runs is kept and acted on when the pass ends, instead of being lost until the backoff
 * expires. As upstream's `Start` loop, an `activity` notification does not end the wait of a worker that is waiting
 * to reconcile (`waitingToReconcile` with no change of work); a `work` notification always does.
 */
export class WakeSignal {
  private pending: WakeKind | undefined;
  private waiter: ((kind: WakeKind) => void) | undefined;

  /** Records a wake-up; wakes a current waiter at once. `work` outranks `activity`. */
  notify(kind: WakeKind): void {
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w(kind);
      return;
    }
    if (this.pending !== 'work') this.pending = kind;
  }

  /**
   * Forgets kept wake-ups: called when a pass starts, before it reads the ClusterVersion and the informer caches, so a
   * notification already covered by that read does not cause another pass.
   */
  clear(): void {
    this.pending = undefined;
  }

  /** True when a wake-up arrived since the last wait. */
  hasPending(): boolean {
    return this.pending !== undefined;
  }

  /**
   * Waits `ms`, or less when woken. A wake-up kept from before the call ends the wait at once. When
   * `waitingToReconcile`, `activity` wake-ups are consumed without ending the wait.
   */
  async wait(ms: number, signal: AbortSignal, waitingToReconcile: boolean): Promise<'timeout' | WakeKind | 'aborted'> {
    const end = Date.now() + ms;
    for (;;) {
      const p = this.pending;
      this.pending = undefined;
      if (p === 'work' || (p === 'activity' && !waitingToReconcile)) return p;
      const left = end - Date.now();
      if (left <= 0) return 'timeout';
      if (signal.aborted) return 'aborted';
      const got = await new Promise<'timeout' | WakeKind | 'aborted'>((resolve) => {
        const done = (r: 'timeout' | WakeKind | 'aborted'): void => {
          clearTimeout(t);
          signal.removeEventListener('abort', onAbort);
          this.waiter = undefined;
          resolve(r);
        };
        const onAbort = (): void => {
          done('aborted');
        };
        const t = setTimeout(() => {
          done('timeout');
        }, left);
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiter = (k) => {
          done(k);
        };
      });
      if (got === 'timeout' || got === 'aborted' || got === 'work' || !waitingToReconcile) return got;
    }
  }
}
