/**
 * End to end against the embedded API server (real HTTP): the real operator in-process installs release A
 * (Initializing) and updates to a signed release B pulled from an OCI layout (Updating); an unchanged cluster is
 * reconciled without writes; an unsigned C is refused unless forced.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { createGraphServer, type GraphServer } from '@keelson/update-graph';
import { startClusterVersionOperator, type CvoEvent, type RunningCvo } from '../src/index.js';
import {
  OperatorReporterDouble,
  Signer,
  startCluster,
  waitFor,
  writeFixturePayload,
  writeOciLayout,
} from './helpers.js';

interface CV {
  metadata: { generation?: number };
  spec: Record<string, unknown>;
  status?: {
    desired?: { version?: string; image?: string };
    history?: {
      state: string;
      version: string;
      image: string;
      verified: boolean;
      acceptedRisks?: string;
      completionTime: string | null;
    }[];
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    versionHash?: string;
    observedGeneration?: number;
  };
}

let sandbox: Sandbox;
let client: KubeClient;
let kubeconfig: string;
let dir: string;
let cvo: RunningCvo;
let reporter: OperatorReporterDouble;
const events: CvoEvent[] = [];
let imageB = '';
let imageC = '';
let graph: GraphServer;
let promql: Server;
let promqlQueries = 0;
const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);

const getCv = () => client.request<CV>('GET', '/apis/config.openshift.io/v1/clusterversions/version');
const cond = (cv: CV, t: string) => cv.status?.conditions?.find((c) => c.type === t);
const patchDesired = (desiredUpdate: unknown) =>
  client.request('PATCH', '/apis/config.openshift.io/v1/clusterversions/version', {
    body: { spec: { desiredUpdate } },
    contentType: 'application/merge-patch+json',
  });

beforeAll(async () => {
  ({ sandbox, client, kubeconfig, dir } = await startCluster({ channel: 'stable-4.18' }));
  const signer = await Signer.create();
  const store = join(dir, 'signatures');
  const verification = { publicKey: signer.publicKey(), store: `file://${store}` };
  const payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0', { verification });
  await writeFixturePayload(join(dir, 'payload-b'), '4.18.1', { verification, deleteObsolete: true });
  await writeFixturePayload(join(dir, 'payload-c'), '4.18.2', { verification, deleteObsolete: true });
  const digestB = await writeOciLayout(join(dir, 'payload-b'), join(dir, 'layout-b'));
  const digestC = await writeOciLayout(join(dir, 'payload-c'), join(dir, 'layout-c'));
  imageB = `oci:${join(dir, 'layout-b')}@${digestB}`;
  imageC = `oci:${join(dir, 'layout-c')}@${digestC}`;
  await signer.sign(store, digestB, 'quay.io/keelson/release:4.18.1');
  const risk = {
    url: 'https://example.com/risk',
    name: 'BadThing',
    message: 'C breaks things',
    matchingRules: [{ type: 'PromQL', promql: { promql: 'group(cluster_thing{_id=""})' } }],
  };
  graph = createGraphServer({
    releases: [
      { version: '4.18.0', payload: IMAGE_A, arch: 'amd64', previous: [] },
      // the release metadata names the channel the channel file adds too: listed once (a repeated channel is a
      // `listType: set` duplicate the server refuses, issue 18 defect 1)
      {
        version: '4.18.1',
        payload: imageB,
        arch: 'amd64',
        previous: ['4.18.0'],
        metadata: { 'io.openshift.upgrades.graph.release.channels': 'stable-4.18' },
      },
      { version: '4.18.2', payload: imageC, arch: 'amd64', previous: ['4.18.0'] },
    ],
    graphData: {
      version: '1.2.0',
      rawMetadata: {},
      blockedEdges: [],
      conditionalEdges: [{ file: 'blocked-edges/4.18.2-BadThing.yaml', to: '4.18.2', from: '4\\.18\\.0', risk }],
      channels: [{ file: 'channels/stable-4.18.yaml', name: 'stable-4.18', versions: ['4.18.0', '4.18.1', '4.18.2'] }],
      warnings: [],
    },
  });
  const graphUrl = await graph.listen();
  promql = createServer((req, res) => {
    promqlQueries++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        status: 'success',
        data: { resultType: 'vector', result: [{ metric: {}, value: [Date.now() / 1000, '1'] }] },
      }),
    );
  });
  await new Promise<void>((r) => promql.listen(0, '127.0.0.1', () => r()));
  reporter = new OperatorReporterDouble(client);
  reporter.start();
  cvo = await startClusterVersionOperator({
    kubeconfig,
    payloadDir: payloadA,
    releaseImage: IMAGE_A,
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    updateService: `${graphUrl}/graph`,
    promqlTarget: `http://127.0.0.1:${(promql.address() as AddressInfo).port}`,
    timeScale: 0.002,
    intervals: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
    logger: process.env['CVO_TEST_LOG'] ? createLogger({ level: 'debug' }) : nullLogger,
    onEvent: (e) => events.push(e),
  });
}, 60_000);

afterAll(async () => {
  reporter?.stop();
  await cvo?.stop();
  await graph?.close();
  promql?.close();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('cluster-version-operator against the sandbox', () => {
  it('installs release A (Initializing) to Available with a Completed history entry', async () => {
    const cv = await waitFor(
      async () => {
        const c = await getCv();
        return c.status?.history?.[0]?.state === 'Completed' && cond(c, 'Available')?.status === 'True' ? c : undefined;
      },
      30_000,
      'A installed',
    );
    expect(cv.status?.desired).toMatchObject({ version: '4.18.0', image: IMAGE_A });
    expect(cond(cv, 'Available')?.message).toBe('Done applying 4.18.0');
    expect(cond(cv, 'Progressing')).toMatchObject({ status: 'False', message: 'Cluster version is 4.18.0' });
    expect(cond(cv, 'Failing')?.status).toBe('False');
    expect(cond(cv, 'ReleaseAccepted')).toMatchObject({ status: 'True', reason: 'PayloadLoaded' });
    expect(cond(cv, 'Upgradeable')).toBeUndefined();
    expect(cv.status?.versionHash).toMatch(/^[A-Za-z0-9_-]+=*$/);
    expect(events.some((e) => e.type === 'syncStarted' && e.mode === 'initializing')).toBe(true);
    const cm = await client.request<{
      data: Record<string, string>;
      metadata: { ownerReferences?: { kind: string }[] };
    }>('GET', '/api/v1/namespaces/openshift-ingress/configmaps/ingress-config');
    expect(cm.data['version']).toBe('4.18.0');
    expect(cm.metadata.ownerReferences?.[0]?.kind).toBe('ClusterVersion');
    await client.request('GET', '/api/v1/namespaces/openshift-ingress/configmaps/ingress-obsolete');
    const dep = await client.request<{ spec: { template: { spec: { containers: { image: string }[] } } } }>(
      'GET',
      '/apis/apps/v1/namespaces/openshift-cluster-version/deployments/cluster-version-operator',
    );
    expect(dep.spec.template.spec.containers[0]?.image).toBe(IMAGE_A);
  });

  it('polls the update service: B recommended, C conditional and not recommended (PromQL risk matches)', async () => {
    const cv = await waitFor(
      async () => {
        const c = await getCv();
        return cond(c, 'RetrievedUpdates')?.status === 'True' &&
          (c.status as { conditionalUpdates?: unknown[] } | undefined)?.conditionalUpdates?.length
          ? c
          : undefined;
      },
      30_000,
      'updates retrieved',
    );
    const st = cv.status as unknown as {
      availableUpdates: { version: string; image: string }[];
      conditionalUpdates: {
        release: { version: string };
        conditions: { type: string; status: string; reason: string; message: string }[];
      }[];
    };
    expect(st.availableUpdates).toEqual([{ version: '4.18.1', image: imageB, channels: ['stable-4.18'] }]);
    expect(st.conditionalUpdates[0]?.release.version).toBe('4.18.2');
    expect(st.conditionalUpdates[0]?.conditions[0]).toMatchObject({
      type: 'Recommended',
      status: 'False',
      reason: 'BadThing',
      message: 'C breaks things https://example.com/risk',
    });
    expect(promqlQueries).toBeGreaterThan(0);
  });

  it('reconciles an unchanged cluster with zero writes and restores drifted objects', async () => {
    await waitFor(
      () =>
        Promise.resolve(
          events.some((e) => e.type === 'syncFinished' && e.mode === 'reconciling' && e.error === undefined),
        ),
      30_000,
      'a reconciling pass',
    );
    const clean = await waitFor(
      () => {
        const idx = events.findLastIndex((e) => e.type === 'syncFinished' && e.mode === 'reconciling');
        const e = events[idx];
        return Promise.resolve(e?.type === 'syncFinished' && e.writes === 0 ? e : undefined);
      },
      30_000,
      'a reconciling pass without writes',
    );
    expect(clean.writes).toBe(0);
    // drift: extra ConfigMap key survives, changed key is restored; scaled deployment is scaled back
    await client.request('PATCH', '/api/v1/namespaces/openshift-dns/configmaps/dns-config', {
      body: { data: { version: 'hacked', extra: 'kept' } },
      contentType: 'application/merge-patch+json',
    });
    await client.request('PATCH', '/apis/apps/v1/namespaces/openshift-dns/deployments/dns-operator', {
      body: { spec: { replicas: 3 } },
      contentType: 'application/merge-patch+json',
    });
    await waitFor(
      async () => {
        const cm = await client.request<{ data: Record<string, string> }>(
          'GET',
          '/api/v1/namespaces/openshift-dns/configmaps/dns-config',
        );
        const dep = await client.request<{ spec: { replicas: number } }>(
          'GET',
          '/apis/apps/v1/namespaces/openshift-dns/deployments/dns-operator',
        );
        return cm.data['version'] === '4.18.0' && cm.data['extra'] === 'kept' && dep.spec.replicas === 1;
      },
      30_000,
      'drift repaired',
    );
  });

  it('updates to signed release B in run-level order to history [B Completed, A Completed]', async () => {
    const start = events.length;
    await patchDesired({ version: '4.18.1' });
    const cv = await waitFor(
      async () => {
        const c = await getCv();
        return c.status?.history?.[0]?.version === '4.18.1' && c.status.history[0].state === 'Completed'
          ? c
          : undefined;
      },
      60_000,
      'B completed',
    );
    expect(cv.status?.history?.map((h) => `${h.version} ${h.state}`)).toEqual(['4.18.1 Completed', '4.18.0 Completed']);
    expect(cv.status?.history?.[0]?.verified).toBe(true);
    expect(cv.status?.history?.[1]?.completionTime).not.toBeNull();
    expect(cond(cv, 'ReleaseAccepted')?.message).toBe(
      `Payload loaded version="4.18.1" image="${imageB}" architecture="amd64"`,
    );
    const mine = events.slice(start);
    expect(mine.some((e) => e.type === 'syncStarted' && e.mode === 'updating')).toBe(true);
    // run levels: a level's manifests start only after every ClusterOperator of earlier levels reported 4.18.1
    const reportedAt = new Map(reporter.reports.filter((r) => r.version === '4.18.1').map((r) => [r.name, r.at]));
    const order = mine
      .filter((e) => e.type === 'runLevelStarted')
      .map((e) => (e.type === 'runLevelStarted' ? e.runLevel : ''));
    expect(order.indexOf('10')).toBeLessThan(order.indexOf('50'));
    expect(order.indexOf('50')).toBeLessThan(order.indexOf('70'));
    // release.openshift.io/delete in B: the object is gone
    await expect(
      client.request('GET', '/api/v1/namespaces/openshift-ingress/configmaps/ingress-obsolete'),
    ).rejects.toThrow(/404/);
    const cm70 = await client.request<{ data: Record<string, string> }>(
      'GET',
      '/api/v1/namespaces/openshift-console/configmaps/console-config',
    );
    expect(cm70.data['version']).toBe('4.18.1');
    expect(reportedAt.get('config-operator')).toBeLessThan(reportedAt.get('console') ?? 0);
    // the signature that verified B is written back as upstream's persister does (openshift-config-managed)
    await client
      .request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-config-managed' } },
      })
      .catch(() => undefined);
    const key = `${(imageB.split('@')[1] ?? '').replace(':', '-')}-0`;
    const persisted = await waitFor(
      () =>
        client
          .request<{ metadata: { labels?: Record<string, string> }; binaryData?: Record<string, string> }>(
            'GET',
            '/api/v1/namespaces/openshift-config-managed/configmaps/signatures-managed',
          )
          .then((c) => (c.binaryData?.[key] ? c : undefined)),
      20_000,
      'signatures-managed',
    );
    expect(persisted.metadata.labels).toEqual({ 'release.openshift.io/verification-signatures': '' });
    expect(Buffer.from(persisted.binaryData?.[key] ?? '', 'base64').length).toBeGreaterThan(100);
  });

  it('refuses an unsigned release C, and accepts it when forced with the risk recorded', async () => {
    await patchDesired({ image: imageC, version: '4.18.2' });
    const refused = await waitFor(
      async () => {
        const c = await getCv();
        const ra = cond(c, 'ReleaseAccepted');
        return ra?.status === 'False' ? c : undefined;
      },
      30_000,
      'C refused',
    );
    const ra = cond(refused, 'ReleaseAccepted');
    expect(ra?.reason).toBe('RetrievePayload');
    expect(ra?.message).toContain(
      `Retrieving payload failed version="4.18.2" image="${imageC}" failure=The update cannot be verified: unable to verify sha256:`,
    );
    expect(refused.status?.desired?.version).toBe('4.18.1');
    const evs = await client.request<{ items: { reason: string; type: string; involvedObject: { kind: string } }[] }>(
      'GET',
      '/api/v1/namespaces/openshift-cluster-version/events',
    );
    expect(
      evs.items.some(
        (e) =>
          e.reason === 'RetrievePayloadFailed' && e.type === 'Warning' && e.involvedObject.kind === 'ClusterVersion',
      ),
    ).toBe(true);
    await patchDesired({ image: imageC, version: '4.18.2', force: true });
    const forced = await waitFor(
      async () => {
        const c = await getCv();
        return c.status?.history?.[0]?.version === '4.18.2' && c.status.history[0].state === 'Completed'
          ? c
          : undefined;
      },
      60_000,
      'C forced',
    );
    expect(forced.status?.history?.[0]?.verified).toBe(false);
    expect(forced.status?.history?.[0]?.acceptedRisks).toContain(
      'cannot be verified, but continuing anyway because the update was forced',
    );
  });

  it('serves metrics and health', async () => {
    const m = await (await fetch(`${cvo.metricsUrl}/metrics`)).text();
    expect(m).toMatch(/cluster_version\{type="current",version="4\.18\.0"/);
    expect(m).toMatch(/cluster_operator_up\{name="ingress",version="4\.18\.2",reason="AsExpected"\} 1/);
    expect(m).toContain('cluster_version_payload{version="4.18.2",type="applied"}');
    expect((await fetch(`${cvo.metricsUrl}/healthz`)).status).toBe(200);
    expect(cvo.isLeader()).toBe(true);
  });
});
