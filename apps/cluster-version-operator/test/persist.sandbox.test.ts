/** Upstream's signature persister against the embedded API server: create, no write when unchanged, 64-digest cap. */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { MAX_CACHED_DIGESTS, SignaturePersister, type ConfigMapBody } from '../src/payload/persist.js';
import { startCluster } from './helpers.js';

const CM = '/api/v1/namespaces/openshift-config-managed/configmaps/signatures-managed';
let sandbox: Sandbox;
let client: KubeClient;
let dir: string;

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-config-managed' } },
  });
}, 30_000);

afterAll(async () => {
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const digest = (n: number): string => `sha256:${n.toString(16).padStart(64, '0')}`;

describe('signatures-managed (library-go verify persister)', () => {
  it('writes the verified signatures, then nothing while they are unchanged, and replaces stale content', async () => {
    const p = new SignaturePersister();
    expect(await p.store(client)).toBe(true); // upstream creates it even before any verification
    expect(await p.store(client)).toBe(false);
    p.record(digest(1), [new Uint8Array([1, 2, 3]), new Uint8Array([4])]);
    expect(await p.store(client)).toBe(true);
    const cm = await client.request<{
      metadata: { labels: Record<string, string> };
      binaryData: Record<string, string>;
    }>('GET', CM);
    expect(cm.metadata.labels).toEqual({ 'release.openshift.io/verification-signatures': '' });
    expect(cm.binaryData).toEqual({
      [`sha256-${digest(1).slice(7)}-0`]: Buffer.from([1, 2, 3]).toString('base64'),
      [`sha256-${digest(1).slice(7)}-1`]: Buffer.from([4]).toString('base64'),
    });
    expect(await p.store(client)).toBe(false);
    // someone edits it: the next store puts the persister's content back
    await client.request('PUT', CM, { body: { ...cm, data: { x: 'y' }, binaryData: {} } });
    expect(await p.store(client)).toBe(true);
    const again = await client.request<{ data?: unknown; binaryData: Record<string, string> }>('GET', CM);
    expect(again.data).toBeUndefined();
    expect(Object.keys(again.binaryData)).toHaveLength(2);
  });

  it('compares against a watched copy first: no request while unchanged, a GET only to retry a stale copy', async () => {
    const seen: string[] = [];
    const onRequest = (m: unknown): void => {
      const req = (m as { request: IncomingMessage }).request;
      if ((req.url ?? '').split('?')[0]?.startsWith(CM)) seen.push(req.method ?? '');
    };
    subscribe('http.server.request.start', onRequest);
    try {
      const p = new SignaturePersister();
      p.record(digest(7), [new Uint8Array([7])]);
      await p.store(client);
      const stored = await client.request<ConfigMapBody>('GET', CM);
      seen.length = 0;
      expect(await p.store(client, undefined, () => stored)).toBe(false);
      expect(seen).toEqual([]);
      // a watched copy behind the server: the write conflicts, the retry reads the ConfigMap and writes
      await client.request('PUT', CM, { body: { ...stored, data: { x: 'y' } } });
      p.record(digest(8), [new Uint8Array([8])]);
      seen.length = 0;
      expect(await p.store(client, undefined, () => stored)).toBe(true);
      expect(seen).toEqual(['PUT', 'GET', 'PUT']);
    } finally {
      unsubscribe('http.server.request.start', onRequest);
    }
  });

  it('keeps the 64 most recent digests', () => {
    const p = new SignaturePersister();
    for (let i = 0; i < MAX_CACHED_DIGESTS + 3; i++) p.record(digest(i), [new Uint8Array([i])]);
    p.record(digest(5), [new Uint8Array([5])]); // re-verified: now the newest
    const keys = Object.keys(p.binaryData());
    expect(keys).toHaveLength(MAX_CACHED_DIGESTS);
    expect(keys).not.toContain(`sha256-${digest(0).slice(7)}-0`);
    expect(keys).toContain(`sha256-${digest(5).slice(7)}-0`);
    expect(keys.at(-1)).toBe(`sha256-${digest(5).slice(7)}-0`);
  });
});
