/**
 * The API requests of a virtual node's update (issue 25 goal 2): the node disruption policies come from the
 * harness's shared MachineConfiguration watch (no GET of MachineConfiguration `cluster` per update), and the
 * kubelet finds its Node in the shared Node watch after a reboot (no GET of the Node per boot). Real harness, embedded
 * API server, every request counted by a proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, KubeConfig } from '@keelson/kube';
import { startVirtualNodes, type VirtualNodes } from '../src/virtual/harness.js';
import { startCountingProxy, type CountingProxy } from './helpers/counting-proxy.js';
import { NODE_ANNOTATIONS } from '@keelson/api';
import type { DaemonEvent } from '../src/daemon/events.js';
import {
  DrainResponder,
  annotation,
  until,
  createMc,
  createPool,
  machineConfig,
  setDesired,
  startEnv,
  untilDone,
  type TestEnv,
} from './daemon-helpers.js';

const NODE = 'req-0';

describe('virtual node update requests', () => {
  let env: TestEnv;
  let drains: DrainResponder;
  let proxy: CountingProxy;
  let client: KubeClient;
  let vn: VirtualNodes;
  const events: DaemonEvent[] = [];

  beforeAll(async () => {
    env = await startEnv();
    drains = await new DrainResponder(env.client).start();
    proxy = await startCountingProxy(env.sandbox.url);
    const base = new KubeConfig();
    base.loadFromString(env.sandbox.kubeconfigYaml());
    client = new KubeClient(proxy.kubeConfig(base));
    await createMc(env.client, machineConfig('rendered-worker-1', { files: { '/etc/foo': 'foo\n' } }));
    await createPool(env.client, 'worker', 'rendered-worker-1');
    vn = await startVirtualNodes({
      client,
      nodes: [{ name: NODE }],
      rootDir: env.dir,
      rebootDurationMs: 100,
      syncBackoff: { initialMs: 50, maxMs: 400 },
      onEvent: (e) => events.push(e),
    });
    await untilDone(env.client, NODE, 'rendered-worker-1');
  }, 60_000);

  afterAll(async () => {
    await vn.stop();
    await client.close();
    await proxy.stop();
    await drains.stop();
    await env.stop();
  });

  it('an update with a reboot GETs neither MachineConfiguration cluster nor the Node', async () => {
    const gets = (from: number, path: string): number =>
      proxy.requests.slice(from).filter((r) => r.method === 'GET' && r.path.split('?')[0] === path).length;
    const nodePath = `/api/v1/nodes/${NODE}`;
    // the first boot registered the Node: a GET found it missing, then a create
    expect(gets(0, nodePath)).toBe(1);
    const from = proxy.requests.length;
    await createMc(
      env.client,
      machineConfig('rendered-worker-2', { files: { '/etc/foo': 'foo\n' }, kernelArguments: ['quiet'] }),
    );
    await setDesired(env.client, NODE, 'rendered-worker-2');
    await untilDone(env.client, NODE, 'rendered-worker-2');
    expect(gets(from, '/apis/operator.openshift.io/v1/machineconfigurations/cluster')).toBe(0);
    expect(gets(from, nodePath)).toBe(0);
    // the reboot happened (the kubelet posted NotReady, then Ready, on the Node's status)
    const statusPatches = proxy.requests
      .slice(from)
      .filter((r) => r.method === 'PATCH' && r.path.startsWith(`${nodePath}/status`));
    expect(statusPatches.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('a power cycle of a Done node writes no Node annotation: state Done and its config are already there', async () => {
    const done: DaemonEvent[] = [];
    const m = vn.machines.get(NODE);
    if (m === undefined) throw new Error('no machine');
    await m.stop();
    const from = proxy.requests.length;
    events.length = 0;
    await m.start();
    await until(() => events.some((e) => e.node === NODE && e.phase === 'done'), 20_000, 'done after the boot');
    done.push(...events);
    const patches = proxy.requests
      .slice(from)
      .filter((r) => r.method === 'PATCH' && r.path.split('?')[0] === `/api/v1/nodes/${NODE}`);
    expect(patches).toEqual([]);
    // the boot did report: the Done path ran (its events, e.g. NodeDone, were recorded)
    expect(done.map((e) => e.phase)).toContain('done');
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.state)).toBe('Done');
  }, 60_000);
});
