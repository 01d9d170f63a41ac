/**
 * SIGKILL of the machine-config-controller process in the middle of a rollout (built dist/bin, real child
 * processes): a new controller process takes the Lease over once it expires, finishes the rollout, and at no
 * instant are more worker nodes unavailable than maxUnavailable (observed from the API). Nodes are played by the
 * FakeNodeUpdater TEST DOUBLE (test/helpers/node-updater.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMaps, Informer, MachineConfigPools, MachineConfigs, nullLogger } from '@keelson/kube';
import { defaultPool, isNodeUnavailable, NodeAnnotations } from '@keelson/machineconfig';
import { Nodes, startMachineConfigOperator, type MachineConfigPool, type Node, type Running } from '../../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from '../helpers/cluster.js';
import { FakeNodeUpdater } from '../helpers/node-updater.js';

const NS = 'openshift-machine-config-operator';
const BIN = fileURLToPath(new URL('../../dist/bin/machine-config-controller.js', import.meta.url));
let tc: TestCluster;
let dir: string;
let kubeconfig: string;
let operator: Running;
let updater: FakeNodeUpdater;
let observer: Informer<Node>;
let maxUnavailable = 0;
const children: ChildProcess[] = [];

function startController(): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'start',
      '--kubeconfig',
      kubeconfig,
      '--leader-elect-lease-duration',
      '2s',
      '--leader-elect-renew-deadline',
      '1500ms',
      '--leader-elect-retry-period',
      '200ms',
      '--metrics-listen-address',
      '127.0.0.1:0',
    ],
    {
      env: {
        ...process.env,
        KEELSON_CONTROLLER_DURATIONS: JSON.stringify({
          renderDelayMs: 100,
          nodeSyncDelayMs: 50,
          drainDelayMs: 20,
          evictionRetryMs: 50,
          drainAttemptTimeoutMs: 1000,
          podDeletePollMs: 20,
          cordonBackoffInitialMs: 20,
        }),
      },
      stdio: 'ignore',
    },
  );
  children.push(child);
  return child;
}
const pool = (name: string): Promise<MachineConfigPool> => tc.client.resource(MachineConfigPools).get(name);
async function waitUpdated(name: string, count: number, not?: string): Promise<MachineConfigPool> {
  return waitFor(
    `pool ${name} updated`,
    async () => {
      const p = await pool(name);
      const t = p.spec.configuration?.name ?? '';
      return t !== '' &&
        t !== not &&
        p.status?.machineCount === count &&
        p.status.configuration?.name === t &&
        p.status.conditions?.some((c) => c.type === 'Updated' && c.status === 'True')
        ? p
        : undefined;
    },
    60_000,
    100,
  );
}

beforeAll(async () => {
  tc = await startTestCluster();
  dir = mkdtempSync(join(tmpdir(), 'mco-kill-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, tc.sandbox.kubeconfigYaml(), { mode: 0o600 });
  await tc.client.resource(ConfigMaps).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: NS },
    data: {
      baseOSContainerImage: 'quay.io/os@sha256:1',
      baseOSExtensionsContainerImage: '',
      releaseVersion: '4.99.0',
    },
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
  startController();
  const rendered = (await waitUpdated('worker', 0)).spec.configuration?.name ?? '';
  for (let i = 0; i < 6; i++) {
    tc.sandbox.setNodeReady(`worker-${String(i)}`, true, { 'node-role.kubernetes.io/worker': '' });
    await tc.client.resource(Nodes).patch(
      `worker-${String(i)}`,
      {
        metadata: {
          annotations: {
            [NodeAnnotations.currentConfig]: rendered,
            [NodeAnnotations.desiredConfig]: rendered,
            [NodeAnnotations.state]: 'Done',
          },
        },
      },
      { type: 'merge' },
    );
  }
  await waitUpdated('worker', 6);
  observer = new Informer<Node>(tc.client, Nodes, { logger: nullLogger });
  observer.addHandlers({
    update: () => {
      maxUnavailable = Math.max(maxUnavailable, observer.store.list().filter(isNodeUnavailable).length);
    },
  });
  observer.start();
  await observer.waitForSync();
  updater = new FakeNodeUpdater(tc.client, 300);
  updater.start();
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await updater.stop();
  await observer.stop();
  await operator.stop();
  await tc.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('controller SIGKILLed mid-rollout', () => {
  it('a new process finishes the rollout without exceeding maxUnavailable', async () => {
    const old = (await pool('worker')).spec.configuration?.name;
    await tc.client.resource(MachineConfigs).create({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '50-worker-x', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: { kernelArguments: ['x=1'] },
    });
    // kill while nodes are being updated
    await waitFor('two nodes targeted', async () =>
      (await tc.client.resource(Nodes).list()).items.filter(
        (n) => n.metadata.annotations?.[NodeAnnotations.desiredConfig] !== old,
      ).length >= 2
        ? true
        : undefined,
    );
    const first = children[0];
    first?.kill('SIGKILL');
    await new Promise<void>((r) =>
      first?.once('exit', () => {
        r();
      }),
    );
    startController();
    const p = await waitUpdated('worker', 6, old);
    expect(p.status?.updatedMachineCount).toBe(6);
    expect(maxUnavailable).toBe(2);
  }, 90_000);
});
