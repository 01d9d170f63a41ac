import { sleep } from './clock.js';
import type { KubeClient, ResourceClient } from './client.js';
import { KubeApiError, isGone, type KubeStatus } from './errors.js';
import { nullLogger, type Logger } from './logger.js';
import type { ResourceDescriptor } from './resources.js';
import { Indexer, objectKey, type IndexFunc } from './store.js';
import type { KubeObject, WatchEvent } from './types.js';

/** Options of {@link Informer}. */
export interface InformerOptions<T extends KubeObject> {
  /** Watch only this namespace (namespaced kinds). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Secondary indexes of the cache. */
  indexers?: Record<string, IndexFunc<T>>;
  /** Every `resyncPeriodMs`, `update(obj, obj)` is delivered for every cached object (0/absent: never). */
  resyncPeriodMs?: number;
  /** Page size of list calls (default 500). */
  pageSize?: number;
  /** Server-side watch timeout; default a random 300..600 s like client-go's reflector. */
  watchTimeoutSeconds?: number;
  /** First and largest delay between failed list/watch attempts (default 800 ms .. 30 s, doubled per failure). */
  backoff?: { initialMs?: number; maxMs?: number };
  logger?: Logger;
}

/** Handlers of {@link Informer} events. */
export interface InformerHandlers<T extends KubeObject> {
  add?: (obj: T) => void;
  update?: (oldObj: T, newObj: T) => void;
  /** Called with the last known state of the object. */
  delete?: (obj: T) => void;
}

/** Counters useful to observe an informer's behaviour. */
export interface InformerStats {
  /** Completed full lists (initial list plus relists). */
  lists: number;
  /** Watch requests started. */
  watches: number;
  /** Relists caused by 410 Gone / Expired. */
  expired: number;
  /** Watches that ended with an error (network or server). */
  watchErrors: number;
}

/**
 * A shared informer: lists then watches one kind, keeps an {@link Indexer} cache up to date and delivers
 * add/update/delete events (client-go `SharedIndexInformer` with its reflector).
 *
 * - After a watch ends normally or its connection breaks, it watches again from the last resourceVersion seen
 *   (events or bookmarks), so no update is lost.
 * - When the server answers 410 Gone (or an `ERROR` event with code 410), it lists again and reconciles the cache
 *   with the list: objects that changed are delivered as updates, vanished ones as deletes.
 * - Failed attempts back off exponentially (default 800 ms .. 30 s).
 */
export class Informer<T extends KubeObject> {
  /** The cache. Treat returned objects as read-only. */
  readonly store: Indexer<T>;
  /** The kind watched. */
  readonly resource: ResourceDescriptor<T>;
  /** Behaviour counters. */
  readonly stats: InformerStats = { lists: 0, watches: 0, expired: 0, watchErrors: 0 };
  private readonly api: ResourceClient<T>;
  private readonly opts: InformerOptions<T>;
  private readonly log: Logger;
  private readonly handlers = new Set<InformerHandlers<T>>();
  private rv = '';
  private synced = false;
  private syncWaiters: Array<() => void> = [];
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;

  constructor(client: KubeClient, resource: ResourceDescriptor<T>, options: InformerOptions<T> = {}) {
    this.resource = resource;
    this.api = client.resource(resource);
    this.opts = options;
    this.store = new Indexer<T>(options.indexers ?? {});
    this.log = (options.logger ?? nullLogger).child({ component: 'informer', kind: resource.kind });
  }

  /** Register handlers; returns a function that unregisters them. Objects already cached are replayed as `add`. */
  addHandlers(h: InformerHandlers<T>): () => void {
    this.handlers.add(h);
    if (h.add !== undefined) for (const obj of this.store.list()) this.call(() => h.add?.(obj));
    return () => {
      this.handlers.delete(h);
    };
  }

  /** True once the first list has been stored. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The resourceVersion of the last list, event or bookmark applied. */
  lastSyncResourceVersion(): string {
    return this.rv;
  }

  /** Resolve once {@link Informer.hasSynced} is true (rejects if `signal` aborts first). */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** Start listing and watching (idempotent). */
  start(): void {
    if (this.loop !== undefined) return;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.loop = this.run(signal).catch((err: unknown) => {
      if (!signal.aborted) this.log.error('informer loop crashed', { err });
    });
    const period = this.opts.resyncPeriodMs ?? 0;
    if (period > 0) {
      this.resyncTimer = setInterval(() => {
        for (const obj of this.store.list()) this.emit((h) => h.update?.(obj, obj));
      }, period);
    }
  }

  /** Stop watching; resolves when the loop has ended. The cache keeps its content. */
  async stop(): Promise<void> {
    if (this.resyncTimer !== undefined) clearInterval(this.resyncTimer);
    this.resyncTimer = undefined;
    this.abort?.abort(new Error('informer stopped'));
    await this.loop;
    this.loop = undefined;
    this.abort = undefined;
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error('informer event handler threw', { err });
    }
  }

  private emit(fn: (h: InformerHandlers<T>) => void): void {
    for (const h of this.handlers)
      this.call(() => {
        fn(h);
      });
  }

  private async run(signal: AbortSignal): Promise<void> {
    const initial = this.opts.backoff?.initialMs ?? 800;
    const max = this.opts.backoff?.maxMs ?? 30_000;
    let delay = initial;
    const backoff = async (): Promise<void> => {
      await sleep(delay * (0.5 + Math.random()), signal).catch(() => undefined);
      delay = Math.min(max, delay * 2);
    };
    while (!signal.aborted) {
      try {
        await this.listAndReplace(signal);
        delay = initial;
      } catch (err) {
        if (signal.aborted) return;
        this.log.warn('list failed, retrying', { err });
        await backoff();
        continue;
      }
      while (!signal.aborted) {
        try {
          await this.watchOnce(signal);
          delay = initial;
        } catch (err) {
          if (signal.aborted) return;
          if (isGone(err)) {
            this.stats.expired++;
            this.log.info('watch resourceVersion expired, relisting', { resourceVersion: this.rv });
            break;
          }
          this.stats.watchErrors++;
          this.log.warn('watch failed, watching again from last resourceVersion', { err, resourceVersion: this.rv });
          await backoff();
        }
      }
    }
  }

  private async listAndReplace(signal: AbortSignal): Promise<void> {
    const base = { signal, limit: this.opts.pageSize ?? 500 };
    const list = await this.api.listAll(this.selectors(base));
    this.stats.lists++;
    const seen = new Set<string>();
    for (const obj of list.items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.store.upsert(obj);
      if (old === undefined) this.emit((h) => h.add?.(obj));
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit((h) => h.update?.(old, obj));
    }
    for (const key of this.store.listKeys()) {
      if (seen.has(key)) continue;
      const old = this.store.deleteKey(key);
      if (old !== undefined) this.emit((h) => h.delete?.(old));
    }
    this.rv = list.metadata.resourceVersion ?? '';
    if (!this.synced) {
      this.synced = true;
      const ws = this.syncWaiters;
      this.syncWaiters = [];
      for (const w of ws) w();
    }
  }

  private selectors<O extends object>(
    o: O,
  ): O & { namespace?: string; labelSelector?: string; fieldSelector?: string } {
    const out: O & { namespace?: string; labelSelector?: string; fieldSelector?: string } = { ...o };
    if (this.opts.namespace !== undefined) out.namespace = this.opts.namespace;
    if (this.opts.labelSelector !== undefined) out.labelSelector = this.opts.labelSelector;
    if (this.opts.fieldSelector !== undefined) out.fieldSelector = this.opts.fieldSelector;
    return out;
  }

  private async watchOnce(signal: AbortSignal): Promise<void> {
    this.stats.watches++;
    const timeoutSeconds = this.opts.watchTimeoutSeconds ?? Math.floor(300 + Math.random() * 300);
    const path = `watch ${this.resource.kind}`;
    await this.api.watch(
      this.selectors({ resourceVersion: this.rv, allowWatchBookmarks: true, timeoutSeconds, signal }),
      (ev: WatchEvent<T>) => {
        if (signal.aborted) return;
        switch (ev.type) {
          case 'ADDED':
          case 'MODIFIED': {
            const obj = ev.object;
            const old = this.store.upsert(obj);
            this.rv = obj.metadata.resourceVersion ?? this.rv;
            if (old === undefined) this.emit((h) => h.add?.(obj));
            else this.emit((h) => h.update?.(old, obj));
            break;
          }
          case 'DELETED': {
            const obj = ev.object;
            const old = this.store.deleteKey(objectKey(obj));
            this.rv = obj.metadata.resourceVersion ?? this.rv;
            this.emit((h) => h.delete?.(old ?? obj));
            break;
          }
          case 'BOOKMARK':
            this.rv = ev.object.metadata.resourceVersion ?? this.rv;
            break;
          case 'ERROR': {
            const st = ev.object as unknown as KubeStatus;
            throw new KubeApiError('GET', path, st.code ?? 500, st);
          }
          default:
            this.log.warn('ignoring unknown watch event type', { type: (ev as { type?: unknown }).type });
        }
      },
    );
  }
}
