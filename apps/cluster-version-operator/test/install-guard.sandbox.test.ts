/**
 * Issue 22 §5: a `desiredUpdate` set while the cluster is still installing is ignored until the install completes,
 * with upstream's warning (`pkg/cvo/sync_worker.go` `SyncWorker.Update`: "Ignoring detected version change from … to
 * … during payload initialization").
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type CvoEvent, type RunningCvo } from '../src/index.js';
import type { ClusterVersion } from '../src/api-types.js';
import { startCluster, waitFor, writeFixturePayload } from './helpers.js';

const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
const IMAGE_B = 'quay.io/keelson/release@sha256:' + 'b'.repeat(64);
const CV = '/apis/config.openshift.io/v1/clusterversions/version';

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let cvo: RunningCvo;
const lines: string[] = [];
const events: CvoEvent[] = [];

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  // no ClusterOperator ever reports: the install stays in Initializing
  cvo = await startClusterVersionOperator({
    kubeconfig: await sandbox.writeKubeconfig(join(dir, 'kc')),
    payloadDir: await writeFixturePayload(join(dir, 'payload-a'), '4.18.0'),
    releaseImage: IMAGE_A,
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    updateService: 'http://127.0.0.1:9/graph',
    timeScale: 0.005,
    logger: createLogger({ level: 'warn', stream: { write: (l: string) => lines.push(l) } }),
    onEvent: (e) => events.push(e),
  });
}, 60_000);

afterAll(async () => {
  await cvo?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('desiredUpdate during the install (issue 22 §5)', () => {
  it('keeps installing the current release and logs upstream warning', async () => {
    await waitFor(
      () => Promise.resolve(events.some((e) => e.type === 'syncStarted' && e.mode === 'initializing')),
      20_000,
      'install',
    );
    await client.request('PATCH', CV, {
      body: { spec: { desiredUpdate: { version: '4.18.1', image: IMAGE_B, force: true } } },
      contentType: 'application/merge-patch+json',
    });
    const warning = await waitFor(
      () => Promise.resolve(lines.find((l) => l.includes('Ignoring detected version change'))),
      20_000,
      'the warning',
    );
    expect((JSON.parse(warning) as { msg: string }).msg).toBe(
      `Ignoring detected version change from { 4.18.0 ${IMAGE_A} false} to { 4.18.1 ${IMAGE_B} true} during payload initialization`,
    );
    const cv = await client.request<ClusterVersion>('GET', CV);
    expect(cv.status?.desired.image).toBe(IMAGE_A);
    expect(cv.status?.history?.map((h) => h.image)).toEqual([IMAGE_A]);
    expect(
      events.some((e) => e.type === 'payloadRejected' || (e.type === 'payloadLoaded' && e.image === IMAGE_B)),
    ).toBe(false);
  });
});
