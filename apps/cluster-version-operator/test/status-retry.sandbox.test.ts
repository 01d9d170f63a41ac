/**
 * Retrying an unchanged failure writes no ClusterVersion status (upstream `statusWrapper.Report`: after a failed
 * attempt, progress reports earlier than the failure are dropped, "Dropping status report from earlier in sync
 * loop"). During an update one operator never reports, so every attempt stops at the same place ("Working towards
 * 4.18.1: N of M done (…), waiting on console"); after the first failed attempts, further attempts leave the status as
 * it is. Real operator, cluster-operator simulator, embedded server.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type CvoEvent, type RunningCvo } from '../src/index.js';
import { RestartableOperatorSimulator, startCluster, waitFor, writeSignedReleasePair } from './helpers.js';

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let kubeconfig: string;
let cvo: RunningCvo;
let imageB: string;
const events: CvoEvent[] = [];
const simulator = new RestartableOperatorSimulator(() => kubeconfig);

beforeAll(async () => {
  ({ sandbox, client, kubeconfig, dir } = await startCluster());
  const pair = await writeSignedReleasePair(dir);
  imageB = pair.imageB;
  await simulator.simulate();
  cvo = await startClusterVersionOperator({
    kubeconfig,
    payloadDir: pair.payloadA,
    releaseImage: 'quay.io/keelson/release@sha256:' + 'a'.repeat(64),
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    // 30 min (slow operator) -> 18 s: the failure's interpretation does not change while the test watches
    timeScale: 0.01,
    intervals: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
    logger: nullLogger,
    onEvent: (e) => events.push(e),
  });
}, 60_000);

afterAll(async () => {
  await simulator.stop();
  await cvo?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const failedPasses = (): number =>
  events.filter((e) => e.type === 'syncFinished' && e.mode === 'updating' && e.error !== undefined).length;
const getCv = () =>
  client.request<{ status?: { history?: { state: string }[]; conditions?: { type: string; message?: string }[] } }>(
    'GET',
    '/apis/config.openshift.io/v1/clusterversions/version',
  );

describe('status while an attempt keeps failing at the same place', () => {
  it('writes no status for later attempts that get no further', async () => {
    await waitFor(async () => (await getCv()).status?.history?.[0]?.state === 'Completed', 60_000, 'A installed');
    await simulator.simulate({ console: { kind: 'never' } });
    await client.request('PATCH', '/apis/config.openshift.io/v1/clusterversions/version', {
      body: { spec: { desiredUpdate: { image: imageB, version: '4.18.1' } } },
      contentType: 'application/merge-patch+json',
    });
    // the attempts stop at console (run level 70) once the earlier operators report 4.18.1
    await waitFor(
      async () =>
        (await getCv()).status?.conditions
          ?.find((c) => c.type === 'Progressing')
          ?.message?.endsWith('waiting on console')
          ? true
          : undefined,
      60_000,
      'waiting on console',
    );
    const first = failedPasses();
    await waitFor(() => Promise.resolve(failedPasses() >= first + 1 ? true : undefined), 60_000, 'one more attempt');
    const writesBefore = events.filter((e) => e.type === 'statusWritten').length;
    const cvBefore = await getCv();
    expect(cvBefore.status?.conditions?.find((c) => c.type === 'Progressing')?.message).toMatch(
      /^Working towards 4\.18\.1: \d+ of \d+ done \(\d+% complete\), waiting on console$/,
    );
    const passes = failedPasses();
    await waitFor(() => Promise.resolve(failedPasses() >= passes + 3 ? true : undefined), 60_000, '3 more attempts');
    expect(events.filter((e) => e.type === 'statusWritten').length).toBe(writesBefore);
    const cvAfter = await getCv();
    expect(cvAfter.status).toEqual(cvBefore.status);
  });
});
