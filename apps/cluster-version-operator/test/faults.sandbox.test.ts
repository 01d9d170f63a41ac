/**
 * Failure interpretation over time end to end (upstream pkg/cvo/sync_worker.go) on a compressed clock
 * (timeScale 0.002: 40 min -> 4.8 s, 30 min -> 3.6 s), with --enable-auto-update starting the update from the
 * local update service.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, nullLogger, type KubeClient } from '@keelson/kube';
import type { OperatorFault, Sandbox } from '@keelson/kube-sandbox';
import { createGraphServer, type GraphServer } from '@keelson/update-graph';
import { startClusterVersionOperator, type RunningCvo } from '../src/index.js';
import { RestartableOperatorSimulator, startCluster, waitFor, writeSignedReleasePair } from './helpers.js';

interface CV {
  spec: { desiredUpdate?: { version?: string } };
  status?: {
    history?: { state: string; version: string }[];
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}
const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let cvo: RunningCvo;
let graph: GraphServer;
let kubeconfig: string;

/** The upgrade-sim cluster-operator simulator (from @keelson/kube-sandbox), restarted to change faults. */
const simulator = new RestartableOperatorSimulator(() => kubeconfig);
const simulate = (faults: Record<string, OperatorFault> = {}): Promise<void> => simulator.simulate(faults);
const getCv = () => client.request<CV>('GET', '/apis/config.openshift.io/v1/clusterversions/version');
const cond = (cv: CV, t: string) => cv.status?.conditions?.find((c) => c.type === t);

beforeAll(async () => {
  ({ sandbox, client, kubeconfig, dir } = await startCluster({ channel: 'stable-4.18' }));
  const { payloadA, imageB } = await writeSignedReleasePair(dir);
  graph = createGraphServer({
    releases: [
      { version: '4.18.0', payload: IMAGE_A, arch: 'amd64', previous: [] },
      { version: '4.18.1', payload: imageB, arch: 'amd64', previous: ['4.18.0'] },
    ],
    graphData: {
      version: '1.2.0',
      rawMetadata: {},
      blockedEdges: [],
      conditionalEdges: [],
      channels: [{ file: 'channels/stable-4.18.yaml', name: 'stable-4.18', versions: ['4.18.0', '4.18.1'] }],
      warnings: [],
    },
  });
  const url = await graph.listen();
  await simulate({ dns: { kind: 'degraded', reason: 'TestDegraded', message: 'simulated' } });
  cvo = await startClusterVersionOperator({
    kubeconfig,
    payloadDir: payloadA,
    releaseImage: IMAGE_A,
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    updateService: `${url}/graph`,
    enableAutoUpdate: true,
    timeScale: 0.002,
    intervals: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
    logger: process.env['CVO_TEST_LOG'] ? createLogger({ level: 'info' }) : nullLogger,
  });
}, 60_000);

afterAll(async () => {
  await simulator.stop();
  await cvo?.stop();
  await graph?.close();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('failure interpretation over time', () => {
  it('a Degraded operator does not block Initializing; auto-update starts the update to B', async () => {
    const cv = await waitFor(
      async () => {
        const c = await getCv();
        return c.spec.desiredUpdate?.version === '4.18.1' ? c : undefined;
      },
      30_000,
      'auto-update',
    );
    expect(cv.status?.history?.some((h) => h.version === '4.18.0' && h.state === 'Completed')).toBe(true);
  });

  it('Degraded during an update: tolerated for 40 (scaled) minutes, then Failing=True ClusterOperatorDegraded', async () => {
    // keep console (run level 70) at 4.18.0 for the next test
    await simulate({
      dns: { kind: 'degraded', reason: 'TestDegraded', message: 'simulated' },
      console: { kind: 'never' },
    });
    const waiting = await waitFor(
      async () => {
        const c = await getCv();
        return cond(c, 'Progressing')?.message?.includes('waiting up to 40 minutes on dns') ? c : undefined;
      },
      30_000,
      'waiting up to 40 minutes',
    );
    expect(cond(waiting, 'Failing')?.status).toBe('False');
    expect(cond(waiting, 'Progressing')?.message).toMatch(
      /^Working towards 4\.18\.1: \d+ of \d+ done \(\d+% complete\), waiting up to 40 minutes on dns$/,
    );
    const failing = await waitFor(
      async () => {
        const c = await getCv();
        return cond(c, 'Failing')?.status === 'True' ? c : undefined;
      },
      30_000,
      'Failing=True',
    );
    expect(cond(failing, 'Failing')).toMatchObject({
      reason: 'ClusterOperatorDegraded',
      message: 'wait has exceeded 40 minutes for these operators: dns',
    });
    expect(cond(failing, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'ClusterOperatorDegraded',
      message: 'Unable to apply 4.18.1: the cluster operator dns is degraded',
    });
  });

  it('an operator that does not report: waiting on it, then Failing=Unknown SlowClusterOperator; then completes', async () => {
    await simulate({ console: { kind: 'never' } });
    await waitFor(
      async () => cond(await getCv(), 'Progressing')?.message?.endsWith('waiting on console'),
      30_000,
      'waiting on console',
    );
    const slow = await waitFor(
      async () => {
        const c = await getCv();
        return cond(c, 'Failing')?.status === 'Unknown' ? c : undefined;
      },
      30_000,
      'SlowClusterOperator',
    );
    expect(cond(slow, 'Failing')).toMatchObject({
      reason: 'SlowClusterOperator',
      message: 'waiting on console over 30 minutes which is longer than expected',
    });
    await simulate();
    const done = await waitFor(
      async () => {
        const c = await getCv();
        return c.status?.history?.[0]?.state === 'Completed' && c.status.history[0].version === '4.18.1'
          ? c
          : undefined;
      },
      30_000,
      'completed',
    );
    expect(cond(done, 'Failing')?.status).toBe('False');
    expect(cond(done, 'Progressing')).toMatchObject({ status: 'False', message: 'Cluster version is 4.18.1' });
  });
});
