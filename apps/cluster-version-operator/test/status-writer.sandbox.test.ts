/**
 * The ClusterVersion status writer writes only when the status changed, compared semantically (upstream
 * `equality.Semantic.DeepEqual`): a computed status whose keys come in another order than the stored one's (the
 * server's JSON) is no change. Real writer, real client, embedded API server; PUTs counted on the server side.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterVersions, nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import type { ClusterVersionStatus } from '../src/api-types.js';
import { StatusWriter } from '../src/status/writer.js';
import { startCluster } from './helpers.js';

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
});
afterAll(async () => {
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The same JSON value with every object's keys in reverse order. */
function reversedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reversedKeys) as T;
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .reverse()
        .map(([k, x]) => [k, reversedKeys(x)]),
    ) as T;
  return v;
}

describe('StatusWriter', () => {
  it('does not rewrite a status that differs from the stored one only in key order, and writes a real change', async () => {
    const puts: string[] = [];
    const onRequest = (m: unknown): void => {
      const req = (m as { request: IncomingMessage }).request;
      if (req.method === 'PUT' && (req.url ?? '').includes('/clusterversions/version/status')) puts.push(req.url ?? '');
    };
    subscribe('http.server.request.start', onRequest);
    const ctl = new AbortController();
    try {
      const cvs = client.resource(ClusterVersions);
      let cv = await cvs.get('version');
      const status: ClusterVersionStatus = {
        desired: { version: '4.18.0', image: 'quay.io/keelson/release@sha256:' + 'a'.repeat(64) },
        history: [],
        observedGeneration: 1,
        versionHash: 'abc',
        conditions: [
          { type: 'Available', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z', reason: '', message: '' },
        ],
        availableUpdates: null,
      };
      let next: ClusterVersionStatus = status;
      const writer = new StatusWriter({
        client,
        log: nullLogger,
        statusIntervalMs: 0,
        retryBaseMs: 10,
        current: () => cv,
        read: async () => await cvs.get('version'),
        compute: () => next,
        written: (stored) => {
          cv = stored;
        },
        signal: ctl.signal,
      });
      writer.request(true);
      await writer.settled();
      expect(puts).toHaveLength(1);
      // the same status, keys in another order: no write
      next = reversedKeys(status);
      writer.request(true);
      writer.request(true);
      await writer.settled();
      expect(puts).toHaveLength(1);
      // a real change is written
      next = { ...status, versionHash: 'def' };
      writer.request(true);
      await writer.settled();
      expect(puts).toHaveLength(2);
      expect((await cvs.get('version')).status?.versionHash).toBe('def');
      writer.stop();
    } finally {
      ctl.abort();
      unsubscribe('http.server.request.start', onRequest);
    }
  });
});
