/**
 * Mirror configuration reaching nodes, on the embedded API server with the whole MCO and virtual nodes running the
 * real daemon: an ImageDigestMirrorSet created while the cluster runs becomes `99-<pool>-generated-registries`, rolls
 * out and lands in every node's /etc/containers/registries.conf with a CRI-O reload, no drain and no reboot; removing
 * it (a mirror removed: not a safe change) drains the nodes, still without a reboot. image.config lists reach
 * registries.conf and policy.json the same way.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterVersions, ConfigMaps, Informer, MachineConfigPools, MachineConfigs, nullLogger } from '@keelson/kube';
import { defaultPool } from '@keelson/machineconfig';
import {
  Nodes,
  startMachineConfigController,
  startMachineConfigOperator,
  startMachineConfigServer,
  startVirtualNodes,
  type MachineConfigPool,
  type MachineConfigServer,
  type Node,
  type Running,
  type VirtualNodes,
} from '../../src/index.js';
import { ImageConfigs, ImageDigestMirrorSets } from '../../src/controllers/registries/controller.js';
import { startTestCluster, waitFor, type TestCluster } from '../helpers/cluster.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';

const NS = 'openshift-machine-config-operator';
const OS1 = `quay.io/test/rhcos@sha256:${'1'.repeat(64)}`;
const RELEASE = `quay.io/openshift-release-dev/ocp-release@sha256:${'2'.repeat(64)}`;
const NODES = ['master-0', 'worker-0', 'worker-1'];
let tc: TestCluster;
let dir: string;
let operator: Running;
let controller: Running;
let mcs: MachineConfigServer;
let vn: VirtualNodes;
let observer: Informer<Node>;
let proxy: CountingProxy;
/** Nodes seen cordoned (spec.unschedulable) since the last reset. */
const cordoned = new Set<string>();

const pool = (name: string): Promise<MachineConfigPool> => tc.client.resource(MachineConfigPools).get(name);
async function waitUpdated(name: string, count: number, not?: string): Promise<string> {
  return waitFor(
    `pool ${name} updated`,
    async () => {
      const p = await pool(name);
      const t = p.spec.configuration?.name ?? '';
      const ok =
        t !== '' &&
        t !== not &&
        p.status?.machineCount === count &&
        p.status.updatedMachineCount === count &&
        p.status.configuration?.name === t &&
        p.status.conditions?.some((c) => c.type === 'Updated' && c.status === 'True');
      return ok ? t : undefined;
    },
    90_000,
    100,
  );
}
const registriesConf = (node: string): string =>
  readFileSync(join(dir, node, 'etc/containers/registries.conf'), 'utf8');
const reboots = (): number[] => NODES.map((n) => vn.machines.get(n)?.reboots ?? -1);
const crioReloads = (node: string): number =>
  (vn.machines.get(node)?.host.serviceActions ?? []).filter((a) => a.join(' ') === 'reload crio').length;

beforeAll(async () => {
  tc = await startTestCluster([
    'ClusterVersion',
    'Image',
    'ImageDigestMirrorSet',
    'ImageTagMirrorSet',
    'ImageContentSourcePolicy',
  ]);
  dir = mkdtempSync(join(tmpdir(), 'mco-registries-'));
  await tc.client.resource(ConfigMaps).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: NS },
    data: { baseOSContainerImage: OS1, baseOSExtensionsContainerImage: '', releaseVersion: '4.99.0' },
  });
  const cv = await tc.client.resource(ClusterVersions).create({
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version' },
    spec: { clusterID: '5d3c0b4e-3c84-4a4f-8f3c-5b0e9c7b1a2d' },
  });
  await tc.client.resource(ClusterVersions).updateStatus({
    ...cv,
    status: {
      desired: { image: RELEASE, version: '4.99.0' },
      availableUpdates: null,
      observedGeneration: 1,
      versionHash: 'x',
    },
  });
  await tc.client.resource(ImageConfigs).create({
    apiVersion: 'config.openshift.io/v1',
    kind: 'Image',
    metadata: { name: 'cluster' },
    spec: {},
  });
  const w = defaultPool('worker');
  await tc.client.resource(MachineConfigPools).create({
    ...w,
    metadata: { ...w.metadata, labels: w.metadata.labels ?? {} },
    spec: { ...w.spec, maxUnavailable: 2 },
  } as never);
  operator = await startMachineConfigOperator({
    operands: false,
    kubeconfig: tc.kubeConfig,
    logger: nullLogger,
    releaseVersion: '4.99.0',
    resyncIntervalMs: 300,
    leaderElection: false,
    health: false,
  });
  proxy = await startCountingProxy(tc.sandbox.url);
  controller = await startMachineConfigController({
    kubeconfig: proxy.kubeConfig(tc.kubeConfig),
    logger: nullLogger,
    leaderElection: false,
    health: false,
    durations: { renderDelayMs: 100, nodeSyncDelayMs: 50, drainDelayMs: 20, evictionRetryMs: 50, podDeletePollMs: 20 },
    cordonBackoff: { initialMs: 20, steps: 5 },
  });
  for (const p of ['master', 'worker']) await waitUpdated(p, 0);
  mcs = await startMachineConfigServer({
    client: tc.client,
    apiserverURL: 'https://api-int.example.com:6443',
    securePort: null,
    insecurePort: 0,
    host: '127.0.0.1',
    noKubeconfig: true,
  });
  observer = new Informer<Node>(tc.client, Nodes, { logger: nullLogger });
  const watch = (n: Node): void => {
    if (n.spec?.unschedulable === true) cordoned.add(n.metadata.name ?? '');
  };
  observer.addHandlers({ add: watch, update: (_o, n) => watch(n) });
  observer.start();
  vn = await startVirtualNodes({
    client: tc.client,
    serverUrl: mcs.insecureUrl ?? '',
    rootDir: dir,
    rebootDurationMs: 50,
    syncBackoff: { initialMs: 50, maxMs: 400 },
    nodes: NODES.map((name) => ({ name, role: name.startsWith('master') ? 'master' : 'worker' })),
  });
  await waitUpdated('master', 1);
  await waitUpdated('worker', 2);
}, 180_000);

afterAll(async () => {
  await vn.stop();
  await observer.stop();
  await mcs.stop();
  await controller.stop();
  await operator.stop();
  await proxy.stop();
  await tc.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('registries configuration reaches the nodes', () => {
  it('every built-in pool has 99-<pool>-generated-registries owned by image.config, empty while nothing is set', async () => {
    for (const p of ['master', 'worker']) {
      const mc = await tc.client.resource(MachineConfigs).get(`99-${p}-generated-registries`);
      expect(mc.metadata.labels?.['machineconfiguration.openshift.io/role']).toBe(p);
      expect(mc.metadata.ownerReferences?.[0]).toMatchObject({
        apiVersion: 'config.openshift.io/v1',
        kind: 'Image',
        name: 'cluster',
      });
      expect((mc.spec?.config as { storage?: { files?: unknown[] } }).storage?.files ?? []).toEqual([]);
    }
    for (const n of NODES)
      expect(registriesConf(n)).toBe("unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n");
  }, 60_000);

  it('syncs of unchanged inputs write nothing (only the GETs of the generated MCs)', async () => {
    const isGet = (r: { method: string; path: string }): boolean =>
      r.method === 'GET' &&
      r.path.startsWith('/apis/machineconfiguration.openshift.io/v1/machineconfigs/99-worker-generated-registries');
    const from = proxy.requests.length;
    for (let i = 0; i < 5; i++) {
      const seen = proxy.requests.slice(from).filter(isGet).length;
      const img = await tc.client.resource(ImageConfigs).get('cluster');
      await tc.client.resource(ImageConfigs).update({
        ...img,
        metadata: { ...img.metadata, annotations: { touch: String(i) } },
      });
      await waitFor('a registries sync', () =>
        proxy.requests.slice(from).filter(isGet).length > seen ? true : undefined,
      );
    }
    const writes = proxy.writesSince(from).filter((r) => r.path.includes('/machineconfigs'));
    expect(writes).toEqual([]);
  }, 60_000);

  it('an IDMS created while the cluster runs reaches every node’s registries.conf: CRI-O reloaded, no drain, no reboot', async () => {
    const before = {
      master: (await pool('master')).spec.configuration?.name,
      worker: (await pool('worker')).spec.configuration?.name,
    };
    const bootsBefore = reboots();
    const reloadsBefore = NODES.map(crioReloads);
    cordoned.clear();
    await tc.client.resource(ImageDigestMirrorSets).create({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImageDigestMirrorSet',
      metadata: { name: 'release-mirror' },
      spec: {
        imageDigestMirrors: [
          { source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['mirror.example.com/ocp/release'] },
        ],
      },
    });
    await waitUpdated('master', 1, before.master);
    await waitUpdated('worker', 2, before.worker);
    for (const n of NODES) {
      const conf = registriesConf(n);
      expect(conf).toContain('[[registry]]\n  prefix = ""\n  location = "quay.io/openshift-release-dev/ocp-release"\n');
      expect(conf).toContain(
        '  [[registry.mirror]]\n    location = "mirror.example.com/ocp/release"\n    pull-from-mirror = "digest-only"\n',
      );
    }
    expect(reboots()).toEqual(bootsBefore);
    NODES.forEach((n, i) => expect(crioReloads(n)).toBe((reloadsBefore[i] ?? 0) + 1));
    expect([...cordoned]).toEqual([]);
  }, 120_000);

  it('removing the mirror is not a safe change: nodes drain, CRI-O reloads, still no reboot', async () => {
    const before = (await pool('worker')).spec.configuration?.name;
    const beforeMaster = (await pool('master')).spec.configuration?.name;
    const bootsBefore = reboots();
    cordoned.clear();
    await tc.client.resource(ImageDigestMirrorSets).delete('release-mirror');
    await waitUpdated('worker', 2, before);
    await waitUpdated('master', 1, beforeMaster);
    for (const n of NODES) expect(registriesConf(n)).not.toContain('mirror.example.com');
    expect(reboots()).toEqual(bootsBefore);
    expect(cordoned.has('worker-0') && cordoned.has('worker-1')).toBe(true);
  }, 120_000);

  it('image.config blocked registries go to registries.conf and policy.json', async () => {
    const before = (await pool('worker')).spec.configuration?.name;
    const img = await tc.client.resource(ImageConfigs).get('cluster');
    await tc.client
      .resource(ImageConfigs)
      .update({ ...img, spec: { registrySources: { blockedRegistries: ['blocked.example.com'] } } });
    await waitUpdated('worker', 2, before);
    expect(registriesConf('worker-0')).toContain('  location = "blocked.example.com"\n  blocked = true\n');
    const policy = JSON.parse(readFileSync(join(dir, 'worker-0', 'etc/containers/policy.json'), 'utf8')) as {
      transports: Record<string, Record<string, unknown>>;
    };
    expect(policy.transports['docker']?.['blocked.example.com']).toEqual([{ type: 'reject' }]);
  }, 120_000);
});
