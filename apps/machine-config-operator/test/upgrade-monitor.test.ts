/**
 * MachineConfigNode reporting (upstream pkg/upgrademonitor): the pure condition arithmetic, the reporter against a
 * real embedded API server (requests counted, conflicts with a second writer), and a virtual node's update seen
 * through its MCN.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  Informer,
  MachineConfigNodes,
  MachineConfigPools,
  Registry,
  nullLogger,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
} from '@keelson/kube';
import { NODE_ANNOTATIONS, type MachineConfigNode, type MachineConfigPool, type Node } from '@keelson/api';
import {
  MachineConfigNodeSync,
  planMachineConfigNodes,
  planMachineConfigNodesFor,
} from '../src/operator/machine-config-nodes.js';
import type { InformerSource } from '../src/operator/informers.js';
import {
  ALL_MCN_CONDITION_TYPES,
  NOT_YET_SET,
  applyMcnReport,
  newMachineConfigNode,
  primaryPoolFromLabels,
} from '../src/upgrade-monitor/conditions.js';
import { MachineConfigNodeReporter } from '../src/upgrade-monitor/reporter.js';
import { setMcnSpecDesired } from '../src/upgrade-monitor/spec.js';
import { Nodes } from '../src/daemon/cluster.js';
import * as reports from '../src/daemon/mcn-reports.js';
import { startVirtualNodes, type VirtualNodes } from '../src/virtual/harness.js';
import {
  DrainResponder,
  createMc,
  createPool,
  machineConfig,
  setDesired,
  startEnv,
  until,
  untilDone,
  type TestEnv,
} from './daemon-helpers.js';

const node = (name: string, ann: Record<string, string> = {}, labels: Record<string, string> = {}): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, uid: '5f0c8a52-1111-2222-3333-444455556666', annotations: ann, labels },
});
const T0 = new Date('2026-01-02T03:04:05.678Z');
const cond = (m: MachineConfigNode, t: string) => m.status?.conditions?.find((c) => c.type === t);

describe('MCN condition arithmetic (upgrade_monitor.go)', () => {
  const n = node('w0', {
    [NODE_ANNOTATIONS.desiredConfig]: 'rendered-worker-2',
    [NODE_ANNOTATIONS.currentConfig]: 'rendered-worker-1',
  });
  const fresh = newMachineConfigNode(n, 'worker');

  it('a new MCN: spec from the node, owner reference, every condition present (NotYetOccurred)', () => {
    expect(fresh.spec).toEqual({
      node: { name: 'w0' },
      pool: { name: 'worker' },
      configVersion: { desired: 'rendered-worker-2' },
    });
    expect(fresh.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Node', name: 'w0', uid: '5f0c8a52-1111-2222-3333-444455556666' },
    ]);
    expect(newMachineConfigNode(node('x'), 'worker').spec.configVersion.desired).toBe(NOT_YET_SET);
    const s = applyMcnReport(fresh, { parent: reports.needsUpdate('w0') }, n, T0);
    expect(s?.conditions?.map((c) => c.type).sort()).toEqual([...ALL_MCN_CONDITION_TYPES].sort());
    expect(s?.conditions?.find((c) => c.type === 'Drained')).toEqual({
      type: 'Drained',
      status: 'False',
      reason: 'NotYetOccurred',
      message: 'This node has not yet entered the Drained phase',
      lastTransitionTime: '2026-01-02T03:04:05Z',
    });
    expect(s?.configVersion).toEqual({ desired: 'rendered-worker-2', current: 'rendered-worker-1' });
    expect(s?.observedGeneration).toBe(1);
  });

  it('an incompatible update keeps desired not-yet-set; a compatible one names it', () => {
    const bad = applyMcnReport(fresh, { parent: reports.updateNotCompatible('a', 'b', 'x') }, n, T0);
    expect(bad?.configVersion?.desired).toBe(NOT_YET_SET);
    const good = applyMcnReport(fresh, { parent: reports.updateCompatible(['reboot'], true) }, n, T0);
    expect(good?.configVersion?.desired).toBe('rendered-worker-2');
    expect(good?.conditions?.[0]?.message).toBe('Update Compatible. Post Cfg Actions: [reboot] Drain Required: true');
  });

  it('an unchanged parent is no change; a child updates with its parent', () => {
    const s1 = applyMcnReport(fresh, { parent: reports.updateCompatible([], false) }, n, T0);
    const m1 = { ...fresh, status: s1 } as MachineConfigNode;
    expect(applyMcnReport(m1, { parent: reports.updateCompatible([], false) }, n, T0)).toBeUndefined();
    const [p, c] = reports.applyingFilesAndOS(true, false);
    const s2 = applyMcnReport(m1, { parent: p, child: c }, n, T0);
    const m2 = { ...fresh, status: s2 } as MachineConfigNode;
    expect(cond(m2, 'AppliedFilesAndOS')).toMatchObject({
      status: 'Unknown',
      reason: 'UpdateExecutedAppliedFilesAndOS',
      message: 'Applying files and new OS config to node. OS will  need an update. SSH Keys will not need an update',
    });
    expect(cond(m2, 'UpdateExecuted')?.status).toBe('Unknown');
  });

  it('Updated resets every other condition with the update named; any other parent turns Updated False', () => {
    let m = {
      ...fresh,
      status: applyMcnReport(fresh, { parent: reports.updateCompatible([], false) }, n, T0),
    } as MachineConfigNode;
    m = { ...m, status: applyMcnReport(m, { parent: reports.updated('w0') }, n, T0) } as MachineConfigNode;
    expect(cond(m, 'Updated')).toMatchObject({ status: 'True', message: 'Node w0 Updated' });
    expect(cond(m, 'UpdatePrepared')).toMatchObject({
      status: 'False',
      message:
        'Action during update to rendered-worker-2: Update Compatible. Post Cfg Actions: [] Drain Required: false',
    });
    expect(m.status?.conditions?.filter((c) => c.status !== 'False').map((c) => c.type)).toEqual(['Updated']);
    m = { ...m, status: applyMcnReport(m, { parent: reports.rebootRequired() }, n, T0) } as MachineConfigNode;
    expect(cond(m, 'Updated')).toMatchObject({
      status: 'False',
      message: 'This node is not updated, sensed disruption via a manual update.',
    });
  });

  it('the primary pool from role labels: custom over worker, master first', () => {
    expect(primaryPoolFromLabels(node('a', {}, { 'node-role.kubernetes.io/worker': '' }))).toBe('worker');
    expect(
      primaryPoolFromLabels(
        node('a', {}, { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/infra': '' }),
      ),
    ).toBe('infra');
    expect(
      primaryPoolFromLabels(
        node('a', {}, { 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/worker': '' }),
      ),
    ).toBe('master');
  });
});

describe('MachineConfigNodeReporter against the API server', () => {
  let env: TestEnv;
  let client: KubeClient;
  let n: Node;

  beforeAll(async () => {
    env = await startEnv();
    client = env.client;
    n = await client.resource(Nodes).create(node('rep-0', { [NODE_ANNOTATIONS.currentConfig]: 'rendered-worker-1' }));
  }, 60_000);
  afterAll(async () => {
    await env.stop();
  });

  it('creates the MCN, folds queued reports into one status write, writes nothing when nothing changed', async () => {
    const stats = { writes: 0 };
    const r = new MachineConfigNodeReporter({
      client,
      nodeName: 'rep-0',
      node: () => n,
      stats: [stats],
      pool: () => 'worker',
    });
    r.report(reports.needsUpdate('rep-0'));
    r.report(reports.updateCompatible(['reboot'], true));
    r.report(...reports.drainNotRequired());
    await r.flush();
    expect(stats.writes).toBe(3); // GET (404) + create + status PUT
    const m = await client.resource(MachineConfigNodes).get('rep-0');
    expect(m.spec).toMatchObject({ node: { name: 'rep-0' }, pool: { name: 'worker' } });
    expect(cond(m, 'UpdatePrepared')?.status).toBe('True');
    expect(cond(m, 'Drained')).toMatchObject({ status: 'False', reason: 'UpdateExecutedDrained' });
    expect(r.pending).toBe(0);
    r.report(reports.updateCompatible(['reboot'], true));
    await r.flush();
    expect(stats.writes).toBe(3);
    await r.flush();
    expect(stats.writes).toBe(3);
  });

  it('a second writer (the drain controller) makes the next write conflict: re-read, fold again, both kept', async () => {
    const a = new MachineConfigNodeReporter({ client, nodeName: 'rep-0', node: () => n });
    const b = new MachineConfigNodeReporter({ client, nodeName: 'rep-0', node: () => n });
    a.report(reports.rebootRequired());
    await a.flush();
    b.report(reports.rebooted());
    await b.flush();
    a.report(reports.resumed('rendered-worker-1'));
    await a.flush();
    const m = await client.resource(MachineConfigNodes).get('rep-0');
    expect(cond(m, 'RebootedNode')).toMatchObject({ status: 'True', message: 'Node has rebooted' });
    expect(cond(m, 'Resumed')?.status).toBe('True');
    expect(a.pending).toBe(0);
  });

  it('reads the MCN from a watch instead of a GET', async () => {
    const inf = new Informer(client, MachineConfigNodes);
    inf.start();
    await inf.waitForSync();
    const stats = { writes: 0 };
    const r = new MachineConfigNodeReporter({
      client,
      nodeName: 'rep-0',
      node: () => n,
      stats: [stats],
      lookup: () => inf.store.get('rep-0'),
    });
    r.report(reports.updated('rep-0'));
    await r.flush();
    await inf.stop();
    expect(stats.writes).toBe(1);
    expect(cond(await client.resource(MachineConfigNodes).get('rep-0'), 'Updated')?.status).toBe('True');
  });
});

describe('a virtual node update seen through its MCN', () => {
  let env: TestEnv;
  let drains: DrainResponder;
  let vn: VirtualNodes;
  let watch: Informer<MachineConfigNode>;
  const seen: Array<Record<string, string>> = [];

  beforeAll(async () => {
    env = await startEnv();
    drains = await new DrainResponder(env.client).start();
    watch = new Informer(env.client, MachineConfigNodes);
    const rec = (m: MachineConfigNode): void => {
      seen.push(Object.fromEntries((m.status?.conditions ?? []).map((c) => [c.type, c.status])));
    };
    watch.addHandlers({ add: rec, update: (_o, m) => rec(m) });
    watch.start();
    await createMc(env.client, machineConfig('rendered-worker-1', { files: { '/etc/mcn': '1\n' } }));
    await createPool(env.client, 'worker', 'rendered-worker-1');
    vn = await startVirtualNodes({ client: env.client, nodes: [{ name: 'mcn-0' }], rootDir: env.dir });
    await untilDone(env.client, 'mcn-0', 'rendered-worker-1');
    // the daemon writes its MCN just after the Done annotation
    await until(() => watch.store.get('mcn-0')?.status?.configVersion?.current === 'rendered-worker-1', 10_000);
  }, 60_000);
  afterAll(async () => {
    await vn.stop();
    await watch.stop();
    await drains.stop();
    await env.stop();
  });

  it('before the reboot RebootedNode is Unknown; Done ends Updated True on the new config, the rest reset', async () => {
    await createMc(env.client, machineConfig('rendered-worker-2', { files: { '/etc/mcn': '2\n' } }));
    // the node controller's part: the MCN spec names the target, then the node's desiredConfig
    await setMcnSpecDesired(env.client, 'mcn-0', 'rendered-worker-2');
    await setDesired(env.client, 'mcn-0', 'rendered-worker-2');
    await untilDone(env.client, 'mcn-0', 'rendered-worker-2');
    await until(
      () => watch.store.get('mcn-0')?.status?.configVersion?.current === 'rendered-worker-2',
      10_000,
      'MCN current config',
    );
    const m = watch.store.get('mcn-0');
    expect(m?.spec.pool.name).toBe('worker');
    expect(m?.status?.configVersion).toEqual({ desired: 'rendered-worker-2', current: 'rendered-worker-2' });
    expect(cond(m as MachineConfigNode, 'Updated')).toMatchObject({ status: 'True', message: 'Node mcn-0 Updated' });
    expect(cond(m as MachineConfigNode, 'RebootedNode')?.message).toBe(
      'Action during update to rendered-worker-2: Node has rebooted',
    );
    expect(
      seen.some((s) => s.RebootedNode === 'Unknown' && s.UpdatePrepared === 'True' && s.AppliedFilesAndOS === 'True'),
    ).toBe(true);
  }, 60_000);

  it('setMcnSpecDesired writes the spec with one merge patch and no GET; a node without an MCN is no error', async () => {
    const calls: string[] = [];
    const counting = new Proxy(env.client, {
      get(target, prop, receiver): unknown {
        if (prop !== 'request') return Reflect.get(target, prop, receiver) as unknown;
        return (method: string, path: string, ...rest: unknown[]): Promise<unknown> => {
          calls.push(`${method} ${path}`);
          return (target.request as (...a: unknown[]) => Promise<unknown>).call(target, method, path, ...rest);
        };
      },
    });
    const errors: string[] = [];
    const logger = { ...nullLogger, error: (msg: string) => void errors.push(msg) };
    const before = watch.store.get('mcn-0');
    await setMcnSpecDesired(counting, 'mcn-0', 'rendered-worker-3', logger);
    expect(calls).toEqual(['PATCH /apis/machineconfiguration.openshift.io/v1/machineconfignodes/mcn-0']);
    await until(() => watch.store.get('mcn-0')?.spec.configVersion.desired === 'rendered-worker-3', 10_000);
    const after = watch.store.get('mcn-0');
    expect(after?.spec.node).toEqual(before?.spec.node);
    expect(after?.spec.pool).toEqual(before?.spec.pool);
    await setMcnSpecDesired(counting, 'no-such-node', 'rendered-worker-3', logger);
    expect(errors).toEqual([]);
    await setMcnSpecDesired(env.client, 'mcn-0', 'rendered-worker-2');
  });
});

describe("the operator's MachineConfigNode task (syncMachineConfigNodes)", () => {
  const pool = (name: string, selector: Record<string, string>): MachineConfigPool => ({
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name },
    spec: { nodeSelector: { matchLabels: selector } },
  });
  const pools = [
    pool('master', { 'node-role.kubernetes.io/master': '' }),
    pool('worker', { 'node-role.kubernetes.io/worker': '' }),
    pool('infra', { 'node-role.kubernetes.io/infra': '' }),
  ];

  it('plans one MCN per node with its primary pool, fills a placeholder, deletes orphans, nothing when in line', () => {
    const w = node(
      'w',
      { [NODE_ANNOTATIONS.desiredConfig]: 'rendered-worker-1' },
      { 'node-role.kubernetes.io/worker': '' },
    );
    const i = node('i', {}, { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/infra': '' });
    const lone = node('lone');
    const pending = { ...node('p'), status: { phase: 'Pending' } } as Node;
    const plan = planMachineConfigNodes([w, i, lone, pending], [newMachineConfigNode(node('gone'), 'worker')], pools);
    expect(plan.create.map((m) => [m.metadata.name, m.spec.pool.name, m.spec.configVersion.desired])).toEqual([
      ['w', 'worker', 'rendered-worker-1'],
      ['i', 'infra', NOT_YET_SET],
      ['lone', NOT_YET_SET, NOT_YET_SET],
    ]);
    expect(plan.remove).toEqual(['gone']);
    const placeholder = newMachineConfigNode(node('w'), 'worker');
    const again = planMachineConfigNodes([w], [placeholder], pools);
    expect(again.update.map((m) => m.spec.configVersion.desired)).toEqual(['rendered-worker-1']);
    const inLine = planMachineConfigNodes([w], [newMachineConfigNode(w, 'worker')], pools);
    expect(inLine).toEqual({ create: [], update: [], remove: [] });
  });

  it('plans the named nodes as the whole plan does, and only them', () => {
    const w = node(
      'w',
      { [NODE_ANNOTATIONS.desiredConfig]: 'rendered-worker-1' },
      { 'node-role.kubernetes.io/worker': '' },
    );
    const m = node('m', {}, { 'node-role.kubernetes.io/master': '' });
    const nodes = new Map([w, m].map((n) => [n.metadata.name ?? '', n]));
    const mcns = new Map(
      [newMachineConfigNode(node('w'), 'worker'), newMachineConfigNode(node('gone'), 'worker')].map((x) => [
        x.metadata.name ?? '',
        x,
      ]),
    );
    const whole = planMachineConfigNodes([...nodes.values()], [...mcns.values()], pools);
    const named = planMachineConfigNodesFor(
      ['m', 'w', 'gone', 'never'],
      (n) => nodes.get(n),
      (n) => mcns.get(n),
      pools,
    );
    expect(named).toEqual(whole);
    const one = planMachineConfigNodesFor(
      ['m'],
      (n) => nodes.get(n),
      (n) => mcns.get(n),
      pools,
    );
    expect(one.create.map((x) => x.metadata.name)).toEqual(['m']);
    expect([one.update, one.remove]).toEqual([[], []]);
  });

  it('against the API server: creates, follows a relabel to another pool, deletes with the node', async () => {
    const env = await startEnv();
    try {
      const poolInf = new Informer(env.client, MachineConfigPools);
      for (const p of pools) await env.client.resource(MachineConfigPools).create(p);
      poolInf.start();
      const sync = new MachineConfigNodeSync({
        client: env.client,
        logger: nullLogger,
        registry: new Registry(),
        pools: poolInf,
      });
      const running = sync.run();
      const mcns = env.client.resource(MachineConfigNodes);
      const nodes = env.client.resource(Nodes);
      await nodes.create(node('n1', {}, { 'node-role.kubernetes.io/worker': '' }));
      await until(async () => (await mcns.list()).items.length === 1, 10_000, 'MCN n1');
      expect((await mcns.get('n1')).spec.pool.name).toBe('worker');
      await nodes.patch('n1', { metadata: { labels: { 'node-role.kubernetes.io/infra': '' } } }, { type: 'merge' });
      await until(async () => (await mcns.get('n1')).spec.pool.name === 'infra', 10_000, 'MCN n1 in infra');
      await nodes.delete('n1');
      await until(async () => (await mcns.list()).items.length === 0, 10_000, 'MCN n1 deleted');
      await sync.stop();
      await running;
      await poolInf.stop();
    } finally {
      await env.stop();
    }
  }, 60_000);

  it('a pass plans only the nodes that changed: an MCN status write plans nothing, a relabel plans its node', async () => {
    const env = await startEnv();
    const owned: Array<Informer<MachineConfigPool | Node | MachineConfigNode>> = [];
    try {
      const poolInf = new Informer(env.client, MachineConfigPools);
      for (const p of pools) await env.client.resource(MachineConfigPools).create(p);
      poolInf.start();
      const nodeInf = new Informer(env.client, Nodes);
      const mcnInf = new Informer(env.client, MachineConfigNodes);
      owned.push(poolInf, nodeInf, mcnInf);
      const source: InformerSource = <T extends KubeObject>(d: ResourceDescriptor<T>) =>
        (d.kind === 'Node' ? nodeInf : mcnInf) as unknown as Informer<T>;
      const sync = new MachineConfigNodeSync({
        client: env.client,
        logger: nullLogger,
        registry: new Registry(),
        pools: poolInf,
        source,
      });
      const nodes = env.client.resource(Nodes);
      const mcns = env.client.resource(MachineConfigNodes);
      for (const n of ['n0', 'n1', 'n2']) await nodes.create(node(n, {}, { 'node-role.kubernetes.io/worker': '' }));
      const running = sync.run();
      await until(async () => (await mcns.list()).items.length === 3, 10_000, 'three MCNs');
      const list = vi.spyOn(nodeInf.store, 'list');
      const get = vi.spyOn(nodeInf.store, 'get');
      const m0 = await mcns.get('n0');
      const written = await mcns.updateStatus({ ...m0, status: { observedGeneration: 1, conditions: [] } });
      await until(
        () => Promise.resolve(mcnInf.store.get('n0')?.metadata.resourceVersion === written.metadata.resourceVersion),
        10_000,
        'status write seen',
      );
      await nodes.patch('n1', { metadata: { labels: { 'node-role.kubernetes.io/infra': '' } } }, { type: 'merge' });
      await until(async () => (await mcns.get('n1')).spec.pool.name === 'infra', 10_000, 'MCN n1 in infra');
      // the relabel's pass came after the status write's event: a pass over every node would have listed them
      expect(list).not.toHaveBeenCalled();
      expect(new Set(get.mock.calls.map((c) => c[0]))).toEqual(new Set(['n1']));
      await sync.stop();
      await running;
    } finally {
      await Promise.all(owned.map((i) => i.stop()));
      await env.stop();
    }
  }, 60_000);
});
