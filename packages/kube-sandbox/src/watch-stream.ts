/** A watch request streamed as newline-delimited JSON events (tables, bookmarks, timeout, closers). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster, WatchEventType } from './cluster.js';
import { ApiError } from './errors.js';
import { jsonOf } from './http-send.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { toTable, wantsTable } from './tables.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';

/** What a watch is about: the resource type, its namespace and the single object's name (if any). */
export interface WatchTarget {
  t: ResourceType;
  ns: string | undefined;
  name: string | undefined;
}

/** Streams the watch of `target` on `res` until the client leaves, the timeout passes or the cluster closes. */
export function serveWatch(
  cluster: Cluster,
  bookmarkIntervalMs: number,
  req: IncomingMessage,
  res: ServerResponse,
  target: WatchTarget,
  q: URLSearchParams,
  accept: string | undefined,
): void {
  const { t, ns, name } = target;
  const labelSel = q.get('labelSelector');
  const labels = labelSel ? parseLabelSelector(labelSel) : [];
  const fieldSel = q.get('fieldSelector');
  const fields = fieldSel ? parseFieldSelector(fieldSel, t.fields, t.kind) : [];
  if (name) fields.push({ field: 'metadata.name', path: 'metadata.name', value: name, negate: false });
  const bookmarks = q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1';
  const timeoutS = q.get('timeoutSeconds');
  const timeoutMs = timeoutS ? Math.max(0, Number(timeoutS)) * 1000 : 30 * 60 * 1000;
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  const stream = new WatchStream(res, t, wantsTable(accept), q.get('includeObject') ?? 'Metadata');
  req.on('close', stream.finish);
  res.on('close', stream.finish);
  try {
    const w: Parameters<Cluster['watch']>[1] = { labels, fields, send: stream.send };
    if (ns !== undefined) w.namespace = ns;
    stream.stop = cluster.watch(t, w, q.get('resourceVersion') ?? undefined);
  } catch (e) {
    if (e instanceof ApiError) {
      stream.write('ERROR', e.toStatus());
      stream.finish();
      return;
    }
    throw e;
  }
  stream.removeCloser = cluster.addCloser(stream.finish);
  stream.timers.push(setTimeout(stream.finish, timeoutMs));
  if (bookmarks) {
    const iv = setInterval(() => {
      stream.write('BOOKMARK', {
        kind: t.kind,
        apiVersion: apiVersionOf(t.group, t.version),
        metadata: { resourceVersion: String(cluster.rv), creationTimestamp: null },
      });
    }, bookmarkIntervalMs);
    stream.timers.push(iv);
  }
}

/** One open watch response: writes events until finished, then releases the watch, closer and timers once. */
class WatchStream {
  stop: (() => void) | undefined;
  removeCloser: (() => void) | undefined;
  readonly timers: NodeJS.Timeout[] = [];
  #closed = false;
  #firstTable = true;
  constructor(
    private readonly res: ServerResponse,
    private readonly t: ResourceType,
    private readonly table: boolean,
    private readonly includeObject: string,
  ) {}

  readonly write = (type: WatchEventType, obj: unknown): void => {
    if (this.#closed) return;
    this.res.write(`{"type":${JSON.stringify(type)},"object":${jsonOf(obj)}}\n`);
  };

  readonly send = (type: WatchEventType, obj: KubeObject): void => {
    if (this.table && type !== 'BOOKMARK' && type !== 'ERROR') {
      const meta = { resourceVersion: obj.metadata?.resourceVersion ?? '' };
      this.write(type, toTable(this.t, [obj], meta, this.includeObject, this.#firstTable));
      this.#firstTable = false;
    } else this.write(type, obj);
  };

  readonly finish = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.stop?.();
    this.removeCloser?.();
    for (const tm of this.timers) clearTimeout(tm);
    this.res.end();
  };
}
