/**
 * The virtual kubelet's status writes against the embedded API server, when the API server refuses some of them (as
 * `keelson rehearse --fault api-errors=…` makes it do): like the kubelet's status manager, a status the API server
 * did not take is written again at the next status sync, so the Pod's final phase is never lost and the CVO waiting
 * for the Pod (`waitForPodCompletion`) sees it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError, nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { payloadHash, versionPod, type PodObject } from '../src/payload/pod-retrieval.js';
import { startPayloadKubelet, type PayloadKubelet } from '../src/virtual/payload-kubelet.js';
import { startCluster, waitFor } from './helpers.js';
import { freePort } from './registry-helpers.js';

const NS = 'openshift-cluster-version';

/** A client whose first `failures` status writes of a Failed Pod answer 500, as the rehearsal's fault proxy does. */
function refusingFinalStatus(client: KubeClient, failures: number): { client: KubeClient; refused: () => number } {
  let refused = 0;
  const wrapped = Object.create(client) as KubeClient;
  const request = client.request.bind(client);
  wrapped.request = async (method: string, path: string, opts?: { body?: unknown }) => {
    const phase = (opts?.body as PodObject | undefined)?.status?.phase;
    if (method === 'PUT' && path.endsWith('/status') && phase === 'Failed' && refused < failures) {
      refused++;
      throw new KubeApiError(method, path, 500, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'InternalError',
        message: 'an error on the server ("injected") has prevented the request from succeeding',
        code: 500,
      });
    }
    return request(method, path, opts);
  };
  return { client: wrapped, refused: () => refused };
}

describe('virtual kubelet status writes (the kubelet status manager)', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let kubelet: PayloadKubelet | undefined;
  let dir = '';

  beforeAll(async () => {
    ({ sandbox, client, dir } = await startCluster());
  }, 60_000);

  afterAll(async () => {
    await kubelet?.stop();
    await sandbox?.stop();
  });

  it('writes a refused final status again until the API server takes it', async () => {
    const closed = `127.0.0.1:${await freePort()}`;
    const image = `${closed}/ocp/release@sha256:${'b'.repeat(64)}`;
    const failing = refusingFinalStatus(client, 2);
    kubelet = await startPayloadKubelet({
      client: failing.client,
      nodeName: 'master-0',
      root: join(dir, 'nodes', 'master-0'),
      log: nullLogger,
      timeScale: 40, // activeDeadlineSeconds 120 s → 3 s; the 10 s status sync → 250 ms
      minDeadlineMs: 0,
    });
    const name = 'version-4.18.9-kbltx';
    const pod = versionPod({
      name,
      namespace: NS,
      image,
      nodeName: 'master-0',
      dir: `/etc/cvo/updatepayloads/${payloadHash(image)}`,
      suffix: 'sfx42',
    });
    await client.request('POST', `/api/v1/namespaces/${NS}/pods`, { body: pod });
    const failed = await waitFor(
      async () => {
        const p = await client.request<PodObject>('GET', `/api/v1/namespaces/${NS}/pods/${name}`);
        return p.status?.phase === 'Failed' ? p : undefined;
      },
      60_000,
      'the Pod Failed with DeadlineExceeded',
    );
    expect(failing.refused()).toBe(2);
    expect(failed.status).toMatchObject({
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
    expect(kubelet.finished.get(name)).toBe('Failed');
  }, 90_000);
});
