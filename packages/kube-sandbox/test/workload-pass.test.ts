/**
 * The workload controllers' pass is spaced by WORKLOAD_PASS_INTERVAL_MS: a burst of Node writes (thousands of virtual
 * nodes flipping Ready) coalesces into a few passes, the last state still wins, and the daemons' annotation writes
 * wake no pass at all.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Controllers, WORKLOAD_PASS_INTERVAL_MS } from '../src/controllers.js';
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
  const passes = vi.spyOn(Controllers.prototype as unknown as { daemonSets: () => void }, 'daemonSets');
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
