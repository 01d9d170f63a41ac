import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });
import { sandbox, type Client } from './helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox({ historySize: 50, bookmarkIntervalMs: 100 });
});
afterAll(async () => {
  await c.sb.stop();
});

/** One watch event as sent on the wire (only the fields the assertions read). */
interface WatchEvent {
  type: string;
  object: {
    kind?: string;
    apiVersion?: string;
    message?: string;
    metadata: { name?: string; resourceVersion?: string };
  };
}

/** Opens a watch and collects newline-delimited JSON events. */
async function openWatch(
  path: string,
): Promise<{ events: WatchEvent[]; raw: string[]; headers: Headers; close(): void; until(n: number): Promise<void> }> {
  const ac = new AbortController();
  const res = await fetch(`${c.sb.url}${path}`, {
    headers: { Authorization: `Bearer ${c.sb.token}` },
    signal: ac.signal,
  });
  const events: WatchEvent[] = [];
  const raw: string[] = [];
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body!.getReader();
  let buf = '';
  let waiters: (() => void)[] = [];
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += new TextDecoder().decode(value);
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          raw.push(line);
          events.push(JSON.parse(line) as WatchEvent);
          for (const w of waiters) w();
        }
      }
    } catch {
      // aborted
    }
    for (const w of waiters) w();
  })();
  return {
    events,
    raw,
    headers: res.headers,
    close: () => ac.abort(),
    async until(n) {
      const deadline = Date.now() + 15000;
      while (events.length < n && Date.now() < deadline)
        await new Promise<void>((r) => waiters.push(r) && setTimeout(r, 50));
      waiters = [];
    },
  };
}

describe('watch', () => {
  it('streams initial state then live ADDED/MODIFIED/DELETED events', async () => {
    await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'w0', labels: { w: '1' } } });
    const w = await openWatch('/api/v1/namespaces/default/configmaps?watch=1&labelSelector=w%3D1');
    expect(w.headers.get('content-type')).toBe('application/json');
    expect(w.headers.get('transfer-encoding')).toBe('chunked');
    await w.until(1);
    await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'w1', labels: { w: '1' } } });
    await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'other' } });
    await c.req(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/w1',
      { data: { a: 'b' } },
      'application/merge-patch+json',
    );
    // leaving the selector is seen as DELETED
    await c.req(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/w0',
      { metadata: { labels: { w: '2' } } },
      'application/merge-patch+json',
    );
    await c.req('DELETE', '/api/v1/namespaces/default/configmaps/w1');
    await w.until(5);
    w.close();
    expect(w.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'ADDED w0',
      'ADDED w1',
      'MODIFIED w1',
      'DELETED w0',
      'DELETED w1',
    ]);
    expect(w.raw[0]).toMatch(/^\{"type":"ADDED","object":\{"/);
    expect(w.events[1]!.object.kind).toBe('ConfigMap');
    expect(w.events[1]!.object.apiVersion).toBe('v1');
  });
  it('resumes from a resourceVersion and sends bookmarks', async () => {
    const a = await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'r1' } });
    await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'r2' } });
    const w = await openWatch(
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${a.body.metadata.resourceVersion}&allowWatchBookmarks=true`,
    );
    await w.until(2);
    w.close();
    expect(w.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'r2' } } });
    const bm = w.events.find((e) => e.type === 'BOOKMARK');
    expect(bm!.object).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(c.sb.cluster.rv), creationTimestamp: null },
    });
  });
  it('answers a too old resourceVersion with an ERROR event carrying 410 Expired', async () => {
    const first = await c.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'old' } });
    for (let i = 0; i < 60; i++)
      await c.req(
        'PATCH',
        '/api/v1/namespaces/default/configmaps/old',
        { data: { i: String(i) } },
        'application/merge-patch+json',
      );
    const w = await openWatch(
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${first.body.metadata.resourceVersion}`,
    );
    await w.until(1);
    w.close();
    expect(w.events).toHaveLength(1);
    expect(w.events[0]!.type).toBe('ERROR');
    expect(w.events[0]!.object).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
    });
    expect(w.events[0]!.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });
  it('watches a single object through the legacy /watch/ path', async () => {
    const w = await openWatch('/api/v1/watch/namespaces/default/configmaps/old');
    await w.until(1);
    w.close();
    expect(w.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'old' } } });
  });
});
