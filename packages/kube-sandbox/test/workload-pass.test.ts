/**
 * The workload controllers' pass is spaced by WORKLOAD_PASS_INTERVAL_MS: a burst of Node writes (thousands of virtual
 * nodes flipping Ready) coalesces into a few passes, the last state still wins, and the daemons' annotation writes
 * wake no pass at all.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { WORKLOAD_PASS_INTERVAL_MS } from '../src/controllers.js';
import { WorkloadControllers } from '../src/workloads.js';
import { sandbox, type Client } from './helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox({ simulatePods: true, nodes: ['n1', 'n2'] });
});
afterAll(async () => {
  await c.sb.stop();
});

type DsStatus = { numberReady?: number; desiredNumberScheduled?: number };
const ds = async (): Promise<DsStatus> => {
  const body = (await c.req('GET', '/apis/apps/v1/namespaces/default/daemonsets/ds')).body as { status?: DsStatus };
  return body.status ?? {};
};

it('coalesces a burst of Node readiness writes into a few passes; the last state wins', async () => {
  await c.req('POST', '/apis/apps/v1/namespaces/default/daemonsets', {
    metadata: { name: 'ds' },
    spec: {
      selector: { matchLabels: { app: 'ds' } },
      template: { metadata: { labels: { app: 'ds' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } },
    },
  });
  await c.sb.settle();
  expect((await ds()).numberReady).toBe(2);
  const passes = vi.spyOn(WorkloadControllers.prototype, 'run');
  const t0 = Date.now();
  for (let i = 0; i < 40; i++) {
    c.sb.setNodeReady('n2', i % 2 === 1);
    await new Promise((r) => setImmediate(r));
  }
  const elapsed = Date.now() - t0;
  await c.sb.settle();
  // one pass per interval at most (plus the one due at once), however many writes came in between
  expect(passes.mock.calls.length).toBeLessThanOrEqual(2 + Math.ceil(elapsed / WORKLOAD_PASS_INTERVAL_MS));
  expect(passes.mock.calls.length).toBeLessThan(40);
  // the last write set n2 Ready: the DaemonSet counts both nodes' pods ready again
  expect((await ds()).numberReady).toBe(2);
  passes.mockClear();
  // an annotation write (what the daemons write most) wakes no workload pass
  const node = (await c.req('GET', '/api/v1/nodes/n1')).body;
  node.metadata.annotations = {
    ...(node.metadata.annotations ?? {}),
    'machineconfiguration.openshift.io/state': 'Working',
  };
  expect((await c.req('PUT', '/api/v1/nodes/n1', node)).status).toBe(200);
  await c.sb.settle();
  await new Promise((r) => setTimeout(r, 2 * WORKLOAD_PASS_INTERVAL_MS));
  expect(passes).not.toHaveBeenCalled();
  passes.mockRestore();
});

const dsOf = async (name: string): Promise<DsStatus> => {
  const res = await c.req('GET', `/apis/apps/v1/namespaces/default/daemonsets/${name}`);
  return (res.body as { status?: DsStatus }).status ?? {};
};

const createDs = async (name: string, nodeSelector?: Record<string, string>): Promise<void> => {
  const spec = { containers: [{ name: 'c', image: 'img:1' }], ...(nodeSelector ? { nodeSelector } : {}) };
  const res = await c.req('POST', '/apis/apps/v1/namespaces/default/daemonsets', {
    metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec } },
  });
  expect(res.status).toBe(201);
};

/** Waits until the controllers have run every pass due, the spaced workload pass included. */
const settled = async (): Promise<void> => {
  await c.sb.settle();
  await new Promise((r) => setTimeout(r, 2 * WORKLOAD_PASS_INTERVAL_MS));
  await c.sb.settle();
};

it('syncs only the DaemonSet whose pod changed; a node joining or relabelled syncs every DaemonSet', async () => {
  await createDs('ds-b');
  await createDs('ds-c', { role: 'x' });
  await settled();
  const runs = vi.spyOn(WorkloadControllers.prototype, 'run');
  // a write of one of ds-b's pods queues ds-b alone
  const pods = (await c.req('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dds-b')).body as {
    items: { metadata: { name: string; labels: Record<string, string> } }[];
  };
  const pod = pods.items[0];
  if (pod === undefined) throw new Error('ds-b has no pod');
  pod.metadata.labels = { ...pod.metadata.labels, touched: 'yes' };
  expect((await c.req('PUT', `/api/v1/namespaces/default/pods/${pod.metadata.name}`, pod)).status).toBe(200);
  await settled();
  const w = runs.mock.contexts[0] as WorkloadControllers | undefined;
  if (w === undefined) throw new Error('no workload pass ran');
  const before = { ...w.stats };
  const again = (await c.req('GET', `/api/v1/namespaces/default/pods/${pod.metadata.name}`)).body as typeof pod;
  again.metadata.labels = { ...again.metadata.labels, touched: 'again' };
  const peek = vi.spyOn(c.sb.cluster, 'peekAll');
  expect((await c.req('PUT', `/api/v1/namespaces/default/pods/${pod.metadata.name}`, again)).status).toBe(200);
  await settled();
  // ds-b's nodes are those of the previous pass: no node is matched against its selector again
  expect(peek.mock.calls.filter(([t]) => t.plural === 'nodes')).toEqual([]);
  peek.mockRestore();
  // ds-b synced once (three DaemonSets stored: ds, ds-b, ds-c), the pod once
  expect(w.stats.daemonSets - before.daemonSets).toBe(1);
  expect(w.stats.pods - before.pods).toBe(1);
  runs.mockRestore();
  // a node's labels and a new node change what every DaemonSet places
  expect((await dsOf('ds-c')).desiredNumberScheduled).toBe(0);
  c.sb.setNodeReady('n1', true, { role: 'x' });
  c.sb.setNodeReady('n3', true);
  await settled();
  expect(await dsOf('ds-c')).toMatchObject({ desiredNumberScheduled: 1, numberReady: 1 });
  expect(await dsOf('ds-b')).toMatchObject({ desiredNumberScheduled: 3, numberReady: 3 });
  expect(await dsOf('ds')).toMatchObject({ desiredNumberScheduled: 3, numberReady: 3 });
});
