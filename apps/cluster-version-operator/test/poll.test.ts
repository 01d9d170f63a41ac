import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../src/api-types.js';
import { UpdatesPoller } from '../src/updates/poll.js';

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
