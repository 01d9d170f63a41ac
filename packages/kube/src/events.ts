import type { KubeClient, ResourceClient } from './client.js';
import { kubeTime } from './conditions.js';
import { isNotFound } from './errors.js';
import { nullLogger, type Logger } from './logger.js';
import { Events } from './resources.js';
import type { CoreEvent, KubeObject } from './types.js';

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** `source.component` / `reportingComponent` (e.g. `machine-config-operator`). */
  component: string;
  /** `source.host` and `reportingInstance` (default: the component name). */
  host?: string;
  /**
   * Namespace for events about cluster-scoped objects, also written as the involved object's namespace (as the
   * upstream operators' object references carry it, e.g. the CVO's ClusterVersion reference in
   * `openshift-cluster-version`): kube-apiserver refuses an Event whose `involvedObject.namespace` differs from its
   * own namespace. Default: `default` with an empty involved namespace, like client-go.
   */
  clusterScopedNamespace?: string;
  /** Max distinct aggregation keys remembered (default 4096, least recently used evicted). */
  cacheSize?: number;
  logger?: Logger;
  /** Wall clock (default `Date.now`). */
  now?: () => number;
  /**
   * How many times faster than wall time the component's clock runs (a rehearsal's time scale; default 1): the spam
   * filter refills and the similar-event window passes that much faster.
   */
  clockRate?: number;
  /** client-go's EventCorrelator limits; `false` turns the spam filter and the similar-event aggregation off. */
  correlator?: Partial<CorrelatorLimits> | false;
}

/** The limits of client-go's EventCorrelator (k8s.io/client-go/tools/record/events_cache.go defaults). */
export interface CorrelatorLimits {
  /** Events per source and involved object allowed at once (`defaultSpamBurst`: 25). */
  spamBurst: number;
  /** Refill of that allowance per second (`defaultSpamQPS`: one every 5 minutes). */
  spamQps: number;
  /** Distinct messages of one reason on one object before they are combined (`defaultAggregateMaxEvents`: 10). */
  maxSimilarEvents: number;
  /** Window of that count (`defaultAggregateIntervalInSeconds`: 10 minutes). */
  similarWindowMs: number;
}

/** client-go's defaults. */
export const EVENT_CORRELATOR_DEFAULTS: CorrelatorLimits = {
  spamBurst: 25,
  spamQps: 1 / 300,
  maxSimilarEvents: 10,
  similarWindowMs: 600_000,
};

/** The message prefix of an event that stands for similar ones (client-go `EventAggregatorByReasonMessageFunc`). */
export const COMBINED_EVENTS_PREFIX = '(combined from similar events): ';

interface Seen {
  namespace: string;
  name: string;
  count: number;
}

/** Distinct messages of one aggregation key, and when the last of them came. */
interface Similar {
  messages: Set<string>;
  last: number;
}

/** A passive token bucket (client-go `NewTokenBucketPassiveRateLimiter`), full at first. */
interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Records core/v1 Events about objects, as client-go's recorder and its EventCorrelator do:
 * - a repeated event (same involved object, type, reason, message and source) is folded into the existing Event by
 *   incrementing `count` and `lastTimestamp` with a merge patch; if that Event is gone, a new one is created;
 * - similar events (same object, type and reason, different messages): from the 10th distinct message within 10
 *   minutes, they are folded into one Event whose message starts `(combined from similar events): `;
 * - the spam filter: each source may write 25 events about one object at once, then one every 5 minutes; the rest is
 *   dropped (counted in {@link EventRecorder.dropped}).
 * Recording never throws: failures are logged, because events are best effort.
 */
export class EventRecorder {
  private readonly api: ResourceClient<CoreEvent>;
  private readonly o: EventRecorderOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly seen = new Map<string, Seen>();
  /** Failures already logged (by event reason and error), so that a persistent refusal is logged once. */
  private readonly failuresLogged = new Set<string>();
  private suppressed = 0;
  private readonly similar = new Map<string, Similar>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly limits: CorrelatorLimits | undefined;
  /** Events that could not be written since the recorder started. */
  failures = 0;
  /** Events the spam filter dropped since the recorder started. */
  dropped = 0;

  constructor(client: KubeClient, options: EventRecorderOptions) {
    this.api = client.resource(Events);
    this.o = options;
    this.log = (options.logger ?? nullLogger).child({ component: 'events' });
    this.now = options.now ?? Date.now;
    this.limits = options.correlator === false ? undefined : { ...EVENT_CORRELATOR_DEFAULTS, ...options.correlator };
  }

  /** Record a `Normal` event. */
  normal(obj: KubeObject, reason: string, message: string): Promise<CoreEvent | undefined> {
    return this.event(obj, 'Normal', reason, message);
  }

  /** Record a `Warning` event. */
  warning(obj: KubeObject, reason: string, message: string): Promise<CoreEvent | undefined> {
    return this.event(obj, 'Warning', reason, message);
  }

  /** Record an event; resolves with the written Event, or undefined when writing failed (logged). */
  async event(
    obj: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<CoreEvent | undefined> {
    const io = {
      apiVersion: obj.apiVersion ?? '',
      kind: obj.kind ?? '',
      name: obj.metadata.name ?? '',
      namespace: obj.metadata.namespace ?? this.o.clusterScopedNamespace ?? '',
      uid: obj.metadata.uid ?? '',
      resourceVersion: obj.metadata.resourceVersion ?? '',
    };
    const host = this.o.host ?? this.o.component;
    const sourceKey = JSON.stringify([io.apiVersion, io.kind, io.namespace, io.name, io.uid, this.o.component, host]);
    const { key: aggKey, message: text } = this.aggregate(sourceKey, type, reason, message);
    const ts = kubeTime(new Date(this.now()));
    const prev = this.seen.get(aggKey);
    if (!this.spamAllowed(sourceKey)) {
      // as client-go, the observation is counted before the spam filter drops the write
      if (prev !== undefined) prev.count++;
      this.dropped++;
      return undefined;
    }
    try {
      if (prev !== undefined) {
        this.seen.delete(aggKey);
        this.seen.set(aggKey, prev); // LRU bump
        try {
          const patched = await this.api.patch(
            prev.name,
            { count: prev.count + 1, lastTimestamp: ts, message: text },
            { namespace: prev.namespace, type: 'merge' },
          );
          prev.count = patched.count ?? prev.count + 1;
          this.recovered();
          return patched;
        } catch (err) {
          if (!isNotFound(err)) throw err;
          this.seen.delete(aggKey);
        }
      }
      const namespace = io.namespace !== '' ? io.namespace : 'default';
      const name = `${io.name || 'object'}.${(BigInt(this.now()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`;
      const created = await this.api.create({
        metadata: { name, namespace },
        involvedObject: io,
        reason,
        message: text,
        type,
        count: 1,
        firstTimestamp: ts,
        lastTimestamp: ts,
        source: { component: this.o.component, host },
        reportingComponent: this.o.component,
        reportingInstance: host,
      });
      this.seen.set(aggKey, { namespace, name, count: 1 });
      const max = this.o.cacheSize ?? 4096;
      while (this.seen.size > max) {
        const oldest = this.seen.keys().next().value as string;
        this.seen.delete(oldest);
      }
      this.recovered();
      return created;
    } catch (err) {
      this.failed(err, reason, `${io.kind}/${io.namespace ? io.namespace + '/' : ''}${io.name}`);
      return undefined;
    }
  }

  /**
   * client-go's EventAggregator: the key the event is folded under and its message. Below 10 distinct messages of
   * this object, type and reason within the window, an event is its own (key with its message); from the 10th on, it
   * is folded under the reason's key with the message `(combined from similar events): <message>`.
   */
  private aggregate(
    sourceKey: string,
    type: string,
    reason: string,
    message: string,
  ): { key: string; message: string } {
    const own = { key: JSON.stringify([sourceKey, type, reason, message]), message };
    if (this.limits === undefined) return own;
    const key = JSON.stringify([sourceKey, type, reason]);
    const now = this.now();
    let rec = this.similar.get(key);
    if (rec === undefined || now - rec.last > this.limits.similarWindowMs / this.clockRate()) {
      rec = { messages: new Set(), last: now };
      this.remember(this.similar, key, rec);
    }
    rec.last = now;
    rec.messages.add(message);
    if (rec.messages.size < this.limits.maxSimilarEvents) return own;
    // the set does not grow past the limit (client-go pops one, whichever)
    const first = rec.messages.values().next().value;
    if (first !== undefined) rec.messages.delete(first);
    return { key, message: `${COMBINED_EVENTS_PREFIX}${message}` };
  }

  /** client-go's EventSourceObjectSpamFilter: a token bucket per source and involved object. */
  private spamAllowed(sourceKey: string): boolean {
    if (this.limits === undefined) return true;
    const now = this.now();
    const { spamBurst, spamQps } = this.limits;
    const b = this.buckets.get(sourceKey) ?? { tokens: spamBurst, at: now };
    b.tokens = Math.min(spamBurst, b.tokens + ((now - b.at) / 1000) * spamQps * this.clockRate());
    b.at = now;
    this.remember(this.buckets, sourceKey, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private clockRate(): number {
    const r = this.o.clockRate ?? 1;
    return r > 0 && Number.isFinite(r) ? r : 1;
  }

  /** Sets a key in a bounded cache (least recently set evicted), as client-go's LRU caches of 4096. */
  private remember<V>(cache: Map<string, V>, key: string, value: V): void {
    cache.delete(key);
    cache.set(key, value);
    const max = this.o.cacheSize ?? 4096;
    while (cache.size > max) cache.delete(cache.keys().next().value as string);
  }

  /** Logs a failure the first time this reason fails with this error; later repeats are only counted. */
  private failed(err: unknown, reason: string, involvedObject: string): void {
    this.failures++;
    const key = `${reason}\u0000${err instanceof Error ? err.message : String(err)}`;
    if (this.failuresLogged.has(key)) {
      this.suppressed++;
      return;
    }
    if (this.failuresLogged.size >= (this.o.cacheSize ?? 4096)) this.failuresLogged.clear();
    this.failuresLogged.add(key);
    this.log.warn('could not record event (repeats of this failure are not logged)', { err, reason, involvedObject });
  }

  /** After failures, a successful write is logged once with the count of the failures not logged. */
  private recovered(): void {
    if (this.failuresLogged.size === 0) return;
    this.log.info('recording events again', { failures: this.failures, notLogged: this.suppressed });
    this.failuresLogged.clear();
    this.suppressed = 0;
  }
}
