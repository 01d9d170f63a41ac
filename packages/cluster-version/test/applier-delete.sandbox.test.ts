/**
 * A manifest annotated `release.openshift.io/delete: "true"` is checked on every pass (upstream lib/resourcedelete):
 * once the kind's watch has synced, the check reads the watch, not a GET per pass; the object is still deleted, and an
 * object gone already is reported absent. Real applier and client on the embedded API server; requests counted on the
 * server.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound, nullLogger, type KubeClient } from '@keelson/kube';
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

const NS = 'openshift-cluster-version';
const doomed = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'doomed', namespace: NS, annotations: { 'release.openshift.io/delete': 'true' } },
  data: { plugin: 'legacy' },
};

describe('ResourceApplier deletes', () => {
  it('checks a delete manifest against the watch: one DELETE, then no request per pass', async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps/doomed`;
    const seen: string[] = [];
    const onRequest = (m: unknown): void => {
      const { request, response } = m as { request: IncomingMessage; response: ServerResponse };
      if ((request.url ?? '').split('?')[0] !== path) return;
      response.once('finish', () => seen.push(`${request.method ?? ''} ${response.statusCode}`));
    };
    const applier = new ResourceApplier(client, nullLogger);
    try {
      await client.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'doomed', namespace: NS }, data: {} },
      });
      // the first pass starts the ConfigMap watch (and GETs); reconciling leaves the object to a later update
      expect((await applier.apply(doomed, 'reconciling')).action).toBe('delete-pending');
      const mapping = await applier.mapper.resolve('', 'v1', 'ConfigMap');
      await waitFor(
        () => Promise.resolve(applier.cache.lookup('', 'v1', 'ConfigMap', mapping, NS, 'doomed') ? true : undefined),
        10_000,
        'the watch holds the object',
      );
      subscribe('http.server.request.start', onRequest);
      expect((await applier.apply(doomed, 'updating')).action).toBe('deleted');
      expect(applier.deletesInProgress.has(`ConfigMap ${NS}/doomed`)).toBe(true);
      await expect(client.request('GET', path)).rejects.toSatisfy(isNotFound);
      await waitFor(
        () =>
          Promise.resolve(
            applier.cache.lookup('', 'v1', 'ConfigMap', mapping, NS, 'doomed') === null ? true : undefined,
          ),
        10_000,
        'the watch saw the delete',
      );
      for (let i = 0; i < 5; i++) expect((await applier.apply(doomed, 'updating')).action).toBe('absent');
      expect(applier.deletesInProgress.size).toBe(0);
      // the DELETE and the test's own GET (404); no GET of the applier
      await waitFor(() => Promise.resolve(seen.length >= 2 ? true : undefined), 5_000, 'responses');
      expect(seen).toEqual(['DELETE 200', 'GET 404']);
    } finally {
      unsubscribe('http.server.request.start', onRequest);
      await applier.close();
    }
  });
});
