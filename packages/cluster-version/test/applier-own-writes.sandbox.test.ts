/**
 * Two manifests of one identity applied back to back (payloads declare some objects twice with different content):
 * the second apply merges into the object the first write returned, not into the watch's older copy, so it needs no
 * 409 Conflict, GET and retry. Real applier and client on the embedded API server; requests counted on the server.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { ResourceApplier } from '../src/index.js';
import { startCluster, waitFor } from './helpers.js';

let sandbox: Sandbox;
let client: KubeClient;

beforeAll(async () => {
  ({ sandbox, client } = await startCluster());
});
afterAll(async () => {
  await sandbox?.stop();
});

const cm = (value: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'twice', namespace: 'openshift-cluster-version' },
  data: { value },
});

describe('ResourceApplier and its own writes', () => {
  it('applies two versions of one object back to back with one PUT each: no conflict, no GET', async () => {
    const path = '/api/v1/namespaces/openshift-cluster-version/configmaps/twice';
    const seen: string[] = [];
    const onRequest = (m: unknown): void => {
      const { request, response } = m as { request: IncomingMessage; response: ServerResponse };
      if ((request.url ?? '').split('?')[0] !== path) return;
      response.once('finish', () => seen.push(`${request.method ?? ''} ${response.statusCode}`));
    };
    subscribe('http.server.request.start', onRequest);
    const applier = new ResourceApplier(client, nullLogger);
    try {
      // the first applies start the ConfigMap watch and create the object; wait until the watch answers
      await applier.apply(cm('a'), 'reconciling');
      await waitFor(
        async () => ((await applier.apply(cm('a'), 'reconciling')).action === 'unchanged' ? true : undefined),
        10_000,
        'the watch holds the object',
      );
      const mapping = await applier.mapper.resolve('', 'v1', 'ConfigMap');
      await waitFor(
        () =>
          Promise.resolve(
            applier.cache.lookup('', 'v1', 'ConfigMap', mapping, 'openshift-cluster-version', 'twice')
              ? true
              : undefined,
          ),
        10_000,
        'the watch synced',
      );
      seen.length = 0;
      for (let i = 0; i < 5; i++) {
        expect((await applier.apply(cm('b'), 'reconciling')).action).toBe('updated');
        expect((await applier.apply(cm('a'), 'reconciling')).action).toBe('updated');
      }
      await waitFor(() => Promise.resolve(seen.length >= 10 ? true : undefined), 5_000, 'responses');
      expect(seen).toEqual(Array.from({ length: 10 }, () => 'PUT 200'));
    } finally {
      await applier.close();
      unsubscribe('http.server.request.start', onRequest);
    }
  });
});
