/**
 * The node controller's Node writes (issue 25 goal 2: a node step writes once what upstream writes once). Two pool
 * syncs in a row decide from the node cache; when the second runs before the watch shows the first one's taint patch,
 * it must not send the same patch again (it would be answered 409: its resourceVersion is stale). The node cache is
 * held still here (an informer that is not started, filled by the test), so the lag is certain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Informer, KubeClient, Manager, MachineConfigPools, nullLogger, Registry } from '@keelson/kube';
import { DEFAULT_DURATIONS } from '@keelson/machineconfig';
import type { Node } from '../src/common/api-types.js';
import { NodeAnnotations, UPDATE_IN_PROGRESS_TAINT } from '../src/common/constants.js';
import { Nodes } from '../src/common/resources.js';
import { createRecorder, createSharedInformers, type ControllerContext } from '../src/controllers/context.js';
import { NodeController } from '../src/controllers/node/controller.js';
import { startCountingProxy, type CountingProxy } from './helpers/counting-proxy.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';

const NODE = 'worker-a';

describe('node controller writes', { timeout: 60_000 }, () => {
  let tc: TestCluster;
  let proxy: CountingProxy;
  let client: KubeClient;
  let mgr: Manager;

  beforeAll(async () => {
    tc = await startTestCluster();
    proxy = await startCountingProxy(tc.sandbox.url);
    client = new KubeClient(proxy.kubeConfig(tc.kubeConfig));
    mgr = new Manager({ client, health: false });
    await mgr.start();
  });
  afterAll(async () => {
    await mgr.stop();
    await client.close();
    await proxy.stop();
    await tc.stop();
  });

  it('a taint removal acknowledged by the server is not sent again from a cache that does not show it yet', async () => {
    await tc.client.resource(MachineConfigPools).create({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'worker' },
      spec: {
        configuration: { name: 'rendered-worker-2' },
        nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
        machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      },
    });
    // targeted at the pool's config, still tainted: the sync removes the taint
    const node = await tc.client.resource(Nodes).create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: NODE,
        labels: { 'node-role.kubernetes.io/worker': '' },
        annotations: {
          [NodeAnnotations.currentConfig]: 'rendered-worker-1',
          [NodeAnnotations.desiredConfig]: 'rendered-worker-2',
          [NodeAnnotations.state]: 'Working',
        },
      },
      spec: { taints: [{ ...UPDATE_IN_PROGRESS_TAINT }] },
    });
    const shared = createSharedInformers(mgr, nullLogger);
    await waitFor('pool cached', () => shared.pools.store.get('worker'));
    const stillNodes = new Informer<Node>(client, Nodes);
    stillNodes.store.upsert(node);
    const ctx: ControllerContext = {
      client,
      informers: { ...shared, nodes: stillNodes },
      manager: mgr,
      recorder: createRecorder(client, nullLogger),
      logger: nullLogger,
      registry: new Registry(),
      durations: DEFAULT_DURATIONS,
      now: () => new Date(),
    };
    const ctrl = new NodeController(ctx);
    try {
      const from = proxy.requests.length;
      await ctrl.reconcile('worker');
      await ctrl.reconcile('worker');
      const patches = proxy.requests
        .slice(from)
        .filter((r) => r.method === 'PATCH' && r.path.split('?')[0] === `/api/v1/nodes/${NODE}`);
      expect(patches.map((p) => p.status)).toEqual([200]);
      expect((await tc.client.resource(Nodes).get(NODE)).spec?.taints ?? []).toEqual([]);
      // once the cache shows the write, the controller decides from it again (nothing to do)
      stillNodes.store.upsert(await tc.client.resource(Nodes).get(NODE));
      await ctrl.reconcile('worker');
      expect(proxy.requests.slice(from).filter((r) => r.method === 'PATCH').length).toBe(1);
    } finally {
      await ctrl.stop();
    }
  });
});
