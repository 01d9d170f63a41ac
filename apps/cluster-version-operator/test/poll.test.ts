import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion, ConditionalUpdateStatus } from '../src/api-types.js';
import { keepTransitionTimes, UpdatesPoller } from '../src/updates/poll.js';
import { resolveDesired } from '@keelson/cluster-version';

const DIGEST = (c: string): string => `quay.io/openshift-release-dev/ocp-release@sha256:${c.repeat(64)}`;
let server: Server;
let url = '';

beforeAll(async () => {
  // a graph whose node repeats a channel (the update service is not this repository's code: the CVO must cope)
  const graph = {
    nodes: [
      {
        version: '4.18.7',
        payload: DIGEST('a'),
        metadata: { 'io.openshift.upgrades.graph.release.channels': 'stable-4.18' },
      },
      {
        version: '4.18.8',
        payload: DIGEST('b'),
        metadata: { 'io.openshift.upgrades.graph.release.channels': 'stable-4.18,fast-4.18,stable-4.18' },
      },
    ],
    edges: [[0, 1]],
  };
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(graph));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graph`;
});
afterAll(() => {
  server.close();
});

describe('update polling', () => {
  it('writes each channel of an available update once (`channels` is a listType: set, issue 18 defect 1)', async () => {
    const poller = new UpdatesPoller({ updateService: url });
    const cv = {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '9b2b4e3c-0b1a-4f9a-8d5e-2a1c3b4d5e6f', channel: 'stable-4.18' },
    } as unknown as ClusterVersion;
    const r = await poller.poll(cv, '4.18.7');
    await poller.close();
    expect(r.retrievedUpdates.status).toBe('True');
    expect(r.availableUpdates).toEqual([
      { version: '4.18.8', image: DIGEST('b'), channels: ['fast-4.18', 'stable-4.18'] },
    ]);
  });
});

describe('architecture-only updates (--to-multi-arch)', () => {
  it('asks the update service for arch=multi and offers only the multi payload of the current version', async () => {
    const queries: URLSearchParams[] = [];
    const multi = 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'c'.repeat(64);
    const srv = createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      queries.push(q);
      const graph =
        q.get('arch') === 'multi'
          ? {
              nodes: [
                { version: '4.18.7', payload: multi, metadata: { 'release.openshift.io/architecture': 'multi' } },
                { version: '4.18.8', payload: DIGEST('d'), metadata: { 'release.openshift.io/architecture': 'multi' } },
              ],
              edges: [[0, 1]],
            }
          : { nodes: [{ version: '4.18.7', payload: DIGEST('a'), metadata: {} }], edges: [] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(graph));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    try {
      const poller = new UpdatesPoller({ updateService: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/g` });
      const cv = {
        metadata: { name: 'version' },
        spec: { clusterID: '', channel: 'stable-4.18', desiredUpdate: { architecture: 'Multi', version: '4.18.7' } },
      } as unknown as ClusterVersion;
      const r = await poller.poll(cv, '4.18.7');
      expect(queries[0]?.get('arch')).toBe('multi');
      expect(r.availableUpdates).toEqual([{ version: '4.18.7', image: multi, architecture: 'Multi' }]);
      // the request resolves to that payload, never to the single-arch image of 4.18.7 in history
      const withStatus = {
        ...cv,
        status: {
          desired: { version: '4.18.7', image: DIGEST('a') },
          history: [{ state: 'Completed', version: '4.18.7', image: DIGEST('a') }],
          availableUpdates: r.availableUpdates,
        },
      } as unknown as ClusterVersion;
      expect(resolveDesired(withStatus).desired).toEqual({ version: '4.18.7', image: multi, architecture: 'Multi' });
      const noUpdate = { ...withStatus, status: { ...withStatus.status, availableUpdates: [] } } as ClusterVersion;
      expect(resolveDesired(noUpdate).invalid).toEqual([
        'spec.desiredUpdate.version: Invalid value: when image is empty the update must be an available update',
      ]);
      await poller.close();
    } finally {
      srv.close();
    }
  });
});

describe('conditional updates keep lastTransitionTime (issue 22 §4)', () => {
  const cu = (status: string, ltt: string): ConditionalUpdateStatus => ({
    release: { version: '4.18.2', image: 'img' },
    risks: [{ name: 'R', url: 'https://example.com/r', message: 'm', matchingRules: [{ type: 'Always' }] }],
    conditions: [
      { type: 'Recommended', status: status as 'False', reason: 'R', message: 'm', lastTransitionTime: ltt },
    ],
  });
  it('an unchanged status keeps the previous time; a changed one takes the new time', () => {
    expect(
      keepTransitionTimes(cu('False', '2026-11-26T10:02:00Z'), [cu('False', '2026-11-26T10:00:00Z')]).conditions?.[0]
        ?.lastTransitionTime,
    ).toBe('2026-11-26T10:00:00Z');
    expect(
      keepTransitionTimes(cu('True', '2026-11-26T10:02:00Z'), [cu('False', '2026-11-26T10:00:00Z')]).conditions?.[0]
        ?.lastTransitionTime,
    ).toBe('2026-11-26T10:02:00Z');
    expect(keepTransitionTimes(cu('False', '2026-11-26T10:02:00Z'), []).conditions?.[0]?.lastTransitionTime).toBe(
      '2026-11-26T10:02:00Z',
    );
  });
});
