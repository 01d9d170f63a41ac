/**
 * `keelson upgrade plan --kubeconfig` as a real child process against the embedded API server (upstream CRDs, real
 * HTTP): a cluster on release A (4.18.7, published as a signed image by the in-process registry) with an etcd operator
 * reporting Upgradeable=False, sized pools and its own MachineConfigs, planning the minor update to B (4.19.0). The
 * verdict must be the CVO's: the same precondition functions, the same texts.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterOperator, ClusterVersion, MachineConfigPool } from '@keelson/api';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { publishRehearsalReleases, type PublishedReleases } from '@keelson/payload-gen';
import { openPayload } from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configsOf, type UpgradePlan } from '../src/plan/compute-plan.js';
import { cli } from './cli-helpers.js';

const T = '2026-01-01T00:00:00Z';
const ETCD_REASON = 'RecentBackupMissing';
const ETCD_MESSAGE = 'etcd has no backup taken in the last 24 hours';

let work = '';
let pub: PublishedReleases;
let sb: Sandbox;
let kubeconfig = '';
let workerRendered = '';

const USER_MC = {
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfig',
  metadata: { name: '99-worker-custom', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
  spec: {
    config: {
      ignition: { version: '3.2.0' },
      storage: { files: [{ path: '/etc/custom.conf', mode: 420, contents: { source: 'data:,custom' } }] },
    },
  },
};

async function req(method: string, path: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = {
    method,
    headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${sb.url}${path}`, init);
  const out: unknown = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${String(res.status)} ${JSON.stringify(out)}`);
  return out;
}

/** Creates a cluster-scoped object, then writes its status through the /status subresource. */
async function create(base: string, obj: { metadata: { name?: string }; status?: unknown }): Promise<void> {
  const { status, ...rest } = obj;
  const created = (await req('POST', base, rest)) as Record<string, unknown>;
  if (status !== undefined) await req('PUT', `${base}/${obj.metadata.name ?? ''}/status`, { ...created, status });
}

const cond = (
  type: string,
  status: 'True' | 'False',
  reason?: string,
  message?: string,
): { type: string; status: 'True' | 'False'; lastTransitionTime: string; reason?: string; message?: string } => ({
  type,
  status,
  lastTransitionTime: T,
  ...(reason !== undefined ? { reason } : {}),
  ...(message !== undefined ? { message } : {}),
});

function clusterVersion(): ClusterVersion {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version' },
    spec: { clusterID: '6d8a2a5e-4a8b-4c39-9d64-2a1b4b9f3c11', channel: 'stable-4.19' },
    status: {
      desired: { version: pub.from.version, image: pub.from.pullSpec },
      history: [
        {
          state: 'Completed',
          startedTime: T,
          completionTime: T,
          version: pub.from.version,
          image: pub.from.pullSpec,
          verified: true,
        },
      ],
      observedGeneration: 1,
      versionHash: 'h',
      availableUpdates: [{ version: pub.to.version, image: pub.to.pullSpec }],
      conditions: [
        cond('Available', 'True', undefined, `Done applying ${pub.from.version}`),
        cond('Failing', 'False'),
        cond('Progressing', 'False'),
        cond('RetrievedUpdates', 'True'),
      ],
    },
  };
}

function operator(name: string, upgradeable: ReturnType<typeof cond>): ClusterOperator {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterOperator',
    metadata: { name },
    spec: {},
    status: {
      conditions: [cond('Available', 'True'), cond('Degraded', 'False'), cond('Progressing', 'False'), upgradeable],
      versions: [{ name: 'operator', version: pub.from.version }],
    },
  };
}

function pool(name: string, machines: number, rendered: string, maxUnavailable?: number): MachineConfigPool {
  const selector = { matchLabels: { 'machineconfiguration.openshift.io/role': name } };
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name },
    spec: {
      machineConfigSelector: selector,
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
      configuration: { name: rendered },
      ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
    },
    status: {
      machineCount: machines,
      updatedMachineCount: machines,
      readyMachineCount: machines,
      unavailableMachineCount: 0,
      degradedMachineCount: 0,
      configuration: { name: rendered },
    },
  };
}

async function populate(): Promise<void> {
  const CV = '/apis/config.openshift.io/v1/clusterversions';
  const CO = '/apis/config.openshift.io/v1/clusteroperators';
  const MCP = '/apis/machineconfiguration.openshift.io/v1/machineconfigpools';
  const MC = '/apis/machineconfiguration.openshift.io/v1/machineconfigs';
  await create(CV, clusterVersion());
  await create(CO, operator('etcd', cond('Upgradeable', 'False', ETCD_REASON, ETCD_MESSAGE)));
  await create(CO, operator('kube-apiserver', cond('Upgradeable', 'True', 'AsExpected')));
  await create(MCP, pool('worker', 5, workerRendered, 2));
  await create(MCP, pool('master', 3, 'rendered-master-00000000000000000000000000000000'));
  // the cluster's MachineConfigs: release A's (applied by the CVO), the admin's, and a rendered one (to be ignored)
  const a = await openPayload(pub.from.dir);
  for (const mc of configsOf(a))
    await req('POST', MC, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: mc.metadata.name, labels: mc.metadata.labels },
      spec: mc.spec,
    });
  await req('POST', MC, USER_MC);
  await req('POST', MC, {
    ...USER_MC,
    metadata: { name: workerRendered, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
    spec: {
      config: {
        ignition: { version: '3.2.0' },
        storage: { files: [{ path: '/etc/rendered-only', mode: 420, contents: { source: 'data:,x' } }] },
      },
    },
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'upgrade-plan-cluster-'));
  pub = await publishRehearsalReleases({ out: join(work, 'releases'), fromVersion: '4.18.7', toVersion: '4.19.0' });
  // what the render controller would have produced for the worker pool on A with the admin's MachineConfig
  const mcs = join(work, 'mcs');
  await mkdir(mcs);
  await writeFile(join(mcs, 'user.json'), JSON.stringify(USER_MC));
  const offline = await cli(
    'upgrade',
    'plan',
    '--from',
    pub.from.dir,
    '--to',
    pub.to.dir,
    '--machineconfigs',
    mcs,
    '-o',
    'json',
  );
  workerRendered = (JSON.parse(offline.stdout) as UpgradePlan).pools.find((p) => p.name === 'worker')?.from ?? '';
  sb = await startSandbox({
    openshiftCrds: ['ClusterVersion', 'ClusterOperator', 'MachineConfigPool', 'MachineConfig'],
  });
  kubeconfig = await sb.writeKubeconfig(join(work, 'kubeconfig'));
  await populate();
}, 90_000);

afterAll(async () => {
  await sb.stop();
  await pub.close();
  await rm(work, { recursive: true, force: true });
});

describe('keelson upgrade plan --kubeconfig', { timeout: 60_000 }, () => {
  it('judges a minor update like the CVO: Upgradeable=False from etcd blocks it, with the CVO texts', async () => {
    expect(workerRendered).toMatch(/^rendered-worker-[0-9a-f]{32}$/);
    const r = await cli(
      'upgrade',
      'plan',
      '--to',
      `docker://${pub.to.pullSpec}`,
      '--kubeconfig',
      kubeconfig,
      '-o',
      'json',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as UpgradePlan;
    expect(plan.basis).toBe('cluster');
    expect(plan.from).toBe('4.18.7');
    expect(plan.signature?.verified).toBe(true);
    const upgradeable = `Cluster operator etcd should not be upgraded between minor versions: ${ETCD_MESSAGE}`;
    expect(plan.preconditions).toEqual([
      { name: 'ClusterVersionRollback', state: 'Passed' },
      { name: 'ClusterVersionGiantHop', state: 'Passed' },
      { name: 'ClusterVersionUpgradeable', state: 'Failed', reason: ETCD_REASON, message: upgradeable },
      { name: 'ClusterVersionRecommendedUpdate', state: 'Passed' },
    ]);
    expect(plan.acceptance).toEqual({
      verdict: 'Blocked',
      reason: 'PreconditionChecks',
      message: `Preconditions failed for payload loaded version="4.19.0" image="${pub.to.pullSpec}": Precondition "ClusterVersionUpgradeable" failed because of "${ETCD_REASON}": ${upgradeable}`,
    });
    expect(plan.operatorsNotUpgradeable).toEqual([{ name: 'etcd', reason: ETCD_REASON, message: ETCD_MESSAGE }]);
  });

  it('plans the cluster pools: sizes, maxUnavailable, the rendered config they run, the admin MachineConfigs', async () => {
    const plan = JSON.parse(
      (await cli('upgrade', 'plan', '--to', pub.to.dir, '--kubeconfig', kubeconfig, '-o', 'json')).stdout,
    ) as UpgradePlan;
    const worker = plan.pools.find((p) => p.name === 'worker');
    expect(worker).toMatchObject({ nodes: 5, maxUnavailable: 2, batches: 3, action: 'reboot', from: workerRendered });
    expect(worker?.cluster).toEqual({
      current: workerRendered,
      fromMatchesCluster: true,
      machines: { updated: 5, ready: 5, unavailable: 0, degraded: 0 },
    });
    expect(worker?.to).not.toBe(workerRendered);
    const master = plan.pools.find((p) => p.name === 'master');
    expect(master).toMatchObject({ nodes: 3, maxUnavailable: 1, cluster: { fromMatchesCluster: false } });
    expect(plan.estimatedSeconds).toBe(3 * (60 + 15 + 240));
    // B read from a directory: no digest, no signature check, said so
    expect(plan.signature).toBeUndefined();
    expect(plan.notes.join('\n')).toMatch(/signature was not checked/);
  });

  it('--force turns the blocking precondition into an accepted risk; the text output shows oc-style blocks and tables', async () => {
    const forced = JSON.parse(
      (
        await cli(
          'upgrade',
          'plan',
          '--to',
          `docker://${pub.to.pullSpec}`,
          '--kubeconfig',
          kubeconfig,
          '--force',
          '-o',
          'json',
        )
      ).stdout,
    ) as UpgradePlan;
    expect(forced.acceptance.verdict).toBe('AcceptedWithRisks');
    expect(forced.acceptance.message).toBe(
      `Forced through blocking failures: Precondition "ClusterVersionUpgradeable" failed because of "${ETCD_REASON}": Cluster operator etcd should not be upgraded between minor versions: ${ETCD_MESSAGE}`,
    );
    const text = await cli('upgrade', 'plan', '--to', `docker://${pub.to.pullSpec}`, '--kubeconfig', kubeconfig);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'ReleaseAccepted=False\n\n  Reason: PreconditionChecks\n  Message: Preconditions failed for payload loaded version="4.19.0"',
    );
    expect(text.stdout).toMatch(/\n {2}NAME {3,}RESULT {3,}REASON\n {2}ClusterVersionRollback {3,}Passed/);
    expect(text.stdout).toMatch(/\n {2}ClusterVersionUpgradeable {3,}Blocking {3,}RecentBackupMissing\n/);
    expect(text.stdout).toMatch(/\n {2}worker {3,}5 {3,}2 {3,}false {3,}drain and reboot {3,}3 {3,}15m 45s\n/);
    expect(text.stdout).toContain(
      `cluster: targets ${workerRendered} (matches the current release's render); 5 updated, 5 ready, 0 unavailable, 0 degraded`,
    );
  });

  it('without the cluster the same minor update leaves Upgradeable not evaluated', async () => {
    const plan = JSON.parse(
      (await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '-o', 'json')).stdout,
    ) as UpgradePlan;
    expect(plan.basis).toBe('release');
    expect(plan.preconditions.find((p) => p.name === 'ClusterVersionUpgradeable')?.state).toBe('NotEvaluated');
    expect(plan.acceptance).toEqual({
      verdict: 'Accepted',
      notEvaluated: ['ClusterVersionUpgradeable', 'ClusterVersionRecommendedUpdate'],
    });
  });

  it('reports an unreachable cluster as an input error', async () => {
    const bad = join(work, 'bad-kubeconfig');
    await writeFile(bad, sb.kubeconfigYaml().replace(sb.url, 'https://127.0.0.1:1'));
    const r = await cli('upgrade', 'plan', '--to', pub.to.dir, '--kubeconfig', bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot read the cluster/);
  });
});
