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
}

interface Seen {
  namespace: string;
  name: string;
  count: number;
}

/**
 * Records core/v1 Events about objects, as client-go's recorder does: a repeated event (same involved object,
 * type, reason, message and source) is aggregated into the existing Event by incrementing `count` and
 * `lastTimestamp` with a merge patch; if that Event is gone, a new one is created.
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
  /** Events that could not be written since the recorder started. */
  failures = 0;

  constructor(client: KubeClient, options: EventRecorderOptions) {
    this.api = client.resource(Events);
    this.o = options;
    this.log = (options.logger ?? nullLogger).child({ component: 'events' });
    this.now = options.now ?? Date.now;
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
    const aggKey = JSON.stringify([
      io.apiVersion,
      io.kind,
      io.namespace,
      io.name,
      io.uid,
      type,
      reason,
      message,
      this.o.component,
      host,
    ]);
    const ts = kubeTime(new Date(this.now()));
    const prev = this.seen.get(aggKey);
    try {
      if (prev !== undefined) {
        this.seen.delete(aggKey);
        this.seen.set(aggKey, prev); // LRU bump
        try {
          const patched = await this.api.patch(
            prev.name,
            { count: prev.count + 1, lastTimestamp: ts },
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
        message,
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
