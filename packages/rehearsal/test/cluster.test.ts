/**
 * The rehearsal's cluster-side plumbing against the real embedded API server: bootstrap (CRDs of release A and
 * ClusterVersion), the counting / error-injecting proxy (evictions and PDB refusals counted from real eviction calls),
 * and the observer turning object changes into timeline events.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, KubeApiError } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { generateRehearsalReleases } from '../src/release/index.js';
import { openPayload } from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProxy, type ApiProxy } from '../src/api-proxy.js';
import { startObserver, type Observer } from '../src/observer.js';
import { bootstrapCluster, kubeconfigFor } from '../src/cluster-bootstrap.js';
import type { TimelineEvent } from '../src/timeline.js';
import { waitFor } from '../src/testing/index.js';

let work = '';
let sandbox: Sandbox;
let proxy: ApiProxy;
let client: KubeClient;
let observer: Observer;
const events: TimelineEvent[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rehearse-cluster-'));
  const rel = await generateRehearsalReleases({ out: work });
  sandbox = await startSandbox({ simulatePods: true });
  proxy = await startApiProxy({ target: sandbox.url });
  client = KubeClient.fromKubeconfigString(kubeconfigFor(sandbox, proxy.url));
  await bootstrapCluster(
    client,
    { payload: await openPayload(rel.from.dir) },
    { channel: 'stable-4.18', upstream: 'http://127.0.0.1:1/graph' },
  );
  observer = startObserver(KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml()), Date.now(), (e) =>
    events.push(e),
  );
  await observer.synced();
}, 60_000);

afterAll(async () => {
  await observer.stop();
  await proxy.close();
  await sandbox.stop();
  await rm(work, { recursive: true, force: true });
});

describe('rehearsal cluster plumbing', { timeout: 30_000 }, () => {
  it('bootstraps the CRDs of release A and ClusterVersion version', async () => {
    const cv = await client.request<{ spec: { channel: string; clusterID: string } }>(
      'GET',
      '/apis/config.openshift.io/v1/clusterversions/version',
    );
    expect(cv.spec.channel).toBe('stable-4.18');
    expect(cv.spec.clusterID).toMatch(/^[0-9a-f-]{36}$/);
    await client.request('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools');
    expect(proxy.counts().byVerb['create']).toBeGreaterThanOrEqual(10);
  });

  it('observes pools, nodes and ClusterVersion status as timeline events', async () => {
    sandbox.setNodeReady('worker-0', true, { 'node-role.kubernetes.io/worker': '' });
    await client.request('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools', {
      body: {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfigPool',
        metadata: { name: 'worker' },
        spec: {
          nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
          machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } },
        },
      },
    });
    await client.request('PATCH', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker/status', {
      body: {
        status: {
          machineCount: 1,
          updatedMachineCount: 1,
          readyMachineCount: 1,
          unavailableMachineCount: 0,
          configuration: { name: 'rendered-worker-x' },
          conditions: [{ type: 'Updated', status: 'True', lastTransitionTime: new Date().toISOString() }],
        },
      },
      contentType: 'application/merge-patch+json',
    });
    await waitFor('pool event', () => events.some((e) => e.type === 'pool' && e.pool.config === 'rendered-worker-x'));
    await client.request('PATCH', '/api/v1/nodes/worker-0', {
      body: {
        metadata: {
          annotations: {
            'machineconfiguration.openshift.io/currentConfig': 'rendered-worker-x',
            'machineconfiguration.openshift.io/desiredConfig': 'rendered-worker-y',
            'machineconfiguration.openshift.io/state': 'Working',
          },
        },
        spec: { unschedulable: true },
      },
      contentType: 'application/merge-patch+json',
    });
    await waitFor('node event', () =>
      events.some(
        (e) =>
          e.type === 'node' &&
          e.node.name === 'worker-0' &&
          e.node.phase === 'updating' &&
          e.node.pool === 'worker' &&
          e.node.unavailable,
      ),
    );
    await client.request('PATCH', '/apis/config.openshift.io/v1/clusterversions/version/status', {
      body: {
        status: {
          availableUpdates: [],
          observedGeneration: 1,
          versionHash: 'abc',
          desired: { version: '4.18.8', image: 'r@sha256:' + 'b'.repeat(64) },
          history: [
            {
              version: '4.18.8',
              image: 'r@sha256:' + 'b'.repeat(64),
              state: 'Partial',
              startedTime: new Date().toISOString(),
              completionTime: null,
              verified: true,
            },
          ],
          conditions: [
            {
              type: 'Progressing',
              status: 'True',
              message: 'Working towards 4.18.8: 30 of 191 done (15% complete)',
              lastTransitionTime: new Date().toISOString(),
            },
          ],
        },
      },
      contentType: 'application/merge-patch+json',
    });
    await waitFor('progress event', () =>
      events.some((e) => e.type === 'progress' && e.done === 30 && e.total === 191),
    );
    expect(events.some((e) => e.type === 'history' && e.version === '4.18.8' && e.state === 'Partial')).toBe(true);
  });

  it('counts evictions and PDB refusals from real eviction calls', async () => {
    await client.request('POST', '/api/v1/namespaces/default/pods', {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'app-0', labels: { app: 'x' } },
        spec: { nodeName: 'worker-0', containers: [{ name: 'c', image: 'i' }] },
      },
    });
    await client.request('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', {
      body: {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'x' },
        spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'x' } } },
      },
    });
    await sandbox.settle();
    const before = proxy.counts();
    const err = await client
      .request('POST', '/api/v1/namespaces/default/pods/app-0/eviction', {
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'app-0', namespace: 'default' } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(429);
    const after = proxy.counts();
    expect(after.evictions - before.evictions).toBe(1);
    expect(after.pdbRefusals - before.pdbRefusals).toBe(1);
  });

  it('injects API errors at the given rate as 500 InternalError', async () => {
    proxy.setErrorRate(0.9);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.request('GET', '/api/v1/nodes').then(
          () => 'ok',
          (e: unknown) => e,
        ),
      ),
    );
    proxy.setErrorRate(0);
    const failures = results.filter((r): r is KubeApiError => r instanceof KubeApiError);
    expect(failures.length).toBeGreaterThan(10);
    expect(failures[0]?.status).toBe(500);
    expect(failures[0]?.message).toContain('injected API error');
    expect(proxy.counts().injectedErrors).toBe(failures.length);
    expect(await client.request('GET', '/api/v1/nodes')).toBeDefined();
  });
});
