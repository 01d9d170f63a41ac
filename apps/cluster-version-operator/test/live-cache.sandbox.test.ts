/**
 * The install creates objects without reading them first, and reconcile passes read the applied objects from watches,
 * not by a GET each: once release A is installed, further
 * reconciling passes issue no GET of the payload's objects (their informers list and watch them), and a drifted
 * object is still restored (the watch shows the drift). No other GET either: CRDs, Proxy / Infrastructure `cluster`
 * and the ClusterVersion are read from watches. Real operator on the embedded API server, requests counted by
 * a loopback proxy.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type CvoEvent, type RunningCvo } from '../src/index.js';
import { OperatorReporterDouble, startCluster, waitFor, writeFixturePayload } from './helpers.js';

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let cvo: RunningCvo;
let reporter: OperatorReporterDouble;
let proxy: Server;
const counts = new Map<string, number>();
const events: CvoEvent[] = [];
/** GETs of payload objects, and creates answered 409 AlreadyExists, when the install (Initializing) finished. */
let install: { gets: number; existed: number } | undefined;
let createsFound = 0;

beforeAll(async () => {
  let kubeconfig: string;
  ({ sandbox, client, kubeconfig, dir } = await startCluster());
  const target = new URL(sandbox.url);
  proxy = createServer((req, res) => {
    const key = `${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const up = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (r) => {
        if (req.method === 'POST' && r.statusCode === 409) createsFound++;
        res.writeHead(r.statusCode ?? 502, r.headers);
        res.flushHeaders();
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const proxied = join(dir, 'kubeconfig-proxy');
  await writeFile(
    proxied,
    (await readFile(kubeconfig, 'utf8')).replace(
      /server: \S+/,
      `server: http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    ),
  );
  const payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0');
  reporter = new OperatorReporterDouble(client);
  reporter.start();
  cvo = await startClusterVersionOperator({
    kubeconfig: proxied,
    payloadDir: payloadA,
    releaseImage: 'quay.io/keelson/release@sha256:' + 'a'.repeat(64),
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    timeScale: 0.002,
    intervals: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
    logger: nullLogger,
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'syncFinished' && e.mode === 'initializing' && e.error === undefined)
        install ??= { gets: objectGets(), existed: createsFound };
    },
  });
}, 60_000);

afterAll(async () => {
  reporter?.stop();
  await cvo?.stop();
  proxy?.closeAllConnections();
  proxy?.close();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const reconciled = (): number =>
  events.filter((e) => e.type === 'syncFinished' && e.mode === 'reconciling' && e.error === undefined).length;
// the signature persister's GET of openshift-config-managed/signatures-managed (upstream's Store GETs it each time) is
// not a payload object
const objectGets = (): number =>
  [...counts]
    .filter(([k]) => !k.endsWith('/configmaps/signatures-managed'))
    .filter(([k]) =>
      /^GET \/api\/v1\/namespaces\/[^/]+\/configmaps\/[^/]+$|^GET \/apis\/apps\/v1\/namespaces\/[^/]+\/deployments\/[^/]+$|^GET \/api\/v1\/namespaces\/[^/]+$/.test(
        k,
      ),
    )
    .reduce((n, [, v]) => n + v, 0);

/** `/api/v1/…` or `/apis/<group>/<version>/…` naming one object (not a collection, so not a list or watch). */
const isObjectPath = (path: string): boolean => {
  const segs = path.split('/').filter((x) => x !== '');
  const rest = segs[0] === 'api' ? segs.slice(2) : segs.slice(3);
  return rest.length > 0 && rest.length % 2 === 0;
};

/** GETs of single objects since `snapshot` (but the signature persister's), by path. */
const gets = (snapshot: Map<string, number>): Record<string, number> =>
  Object.fromEntries(
    [...counts]
      .filter(
        ([k]) => k.startsWith('GET ') && isObjectPath(k.slice(4)) && !k.endsWith('/configmaps/signatures-managed'),
      )
      .map(([k, v]) => [k, v - (snapshot.get(k) ?? 0)] as const)
      .filter(([, v]) => v > 0),
  );

describe('reconcile passes read applied objects from watches', () => {
  it('installs without a GET before each create: only an object that already exists is read', async () => {
    const done = await waitFor(() => Promise.resolve(install), 30_000, 'installed');
    // an object is read only after its create answered AlreadyExists (it existed: created before the CVO, or by an
    // earlier manifest of the same identity); every other object is created straight away
    expect(done.gets).toBeLessThanOrEqual(done.existed);
  });

  it('issues no GET of payload objects in later passes and still restores drift', async () => {
    await waitFor(() => Promise.resolve(reconciled() >= 2 ? true : undefined), 30_000, 'two reconciling passes');
    const before = objectGets();
    const after = new Map(counts);
    const passes = reconciled();
    await waitFor(
      () => Promise.resolve(reconciled() >= passes + 3 ? true : undefined),
      30_000,
      'three more reconciling passes',
    );
    expect(objectGets()).toBe(before);
    // nor any other GET: the CRDs, Proxy / Infrastructure `cluster` and the ClusterVersion come from watches too
    expect(gets(after)).toEqual({});
    expect(counts.get('GET /api/v1/configmaps')).toBeGreaterThanOrEqual(1);

    await client.request('PATCH', '/api/v1/namespaces/openshift-dns/configmaps/dns-config', {
      body: { data: { version: 'hacked' } },
      contentType: 'application/merge-patch+json',
    });
    await waitFor(
      async () => {
        const cm = await client.request<{ data: Record<string, string> }>(
          'GET',
          '/api/v1/namespaces/openshift-dns/configmaps/dns-config',
        );
        return cm.data['version'] === '4.18.0' ? true : undefined;
      },
      30_000,
      'drift repaired',
    );
  });
});
