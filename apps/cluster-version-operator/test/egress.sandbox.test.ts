/**
 * Issue 22 §4: the update service reached through the cluster's Proxy and trusted CA bundle as upstream
 * (`pkg/cvo/egress.go`): Proxy `cluster` status `httpsProxy`/`noProxy` and `openshift-config-managed/trusted-ca-bundle`
 * read from the embedded API server (upstream's Proxy CRD); a real CONNECT proxy and a TLS update service on loopback.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import type { ClusterVersion } from '../src/api-types.js';
import { readEgress, transportFor } from '../src/cluster/egress.js';
import { UpdatesPoller } from '../src/updates/poll.js';
import { FIXTURES, startCluster, waitFor } from './helpers.js';

const DIGEST = (c: string): string => `quay.io/openshift-release-dev/ocp-release@sha256:${c.repeat(64)}`;
let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let certs: string;
let graph: https.Server;
let proxy: http.Server;
let graphUrl = '';
let proxyUrl = '';
const tunnels: string[] = [];

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: certs, stdio: 'pipe' });
}

const cv = {
  apiVersion: 'config.openshift.io/v1',
  kind: 'ClusterVersion',
  metadata: { name: 'version' },
  spec: { clusterID: 'c0ffee00-1234-4abc-8def-0123456789ab', channel: 'stable-4.18' },
} as unknown as ClusterVersion;

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  certs = await mkdtemp(join(tmpdir(), 'cvo-egress-'));
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=egress-ca',
  ]);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1']);
  execFileSync('sh', ['-c', 'printf "subjectAltName=IP:127.0.0.1\\n" > ext.cnf'], { cwd: certs });
  openssl([
    'x509',
    '-req',
    '-in',
    'srv.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'srv.crt',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
  const body = JSON.stringify({
    nodes: [
      { version: '4.18.0', payload: DIGEST('a'), metadata: {} },
      { version: '4.18.1', payload: DIGEST('b'), metadata: {} },
    ],
    edges: [[0, 1]],
  });
  graph = https.createServer(
    { key: await readFile(join(certs, 'srv.key')), cert: await readFile(join(certs, 'srv.crt')) },
    (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
  );
  await new Promise<void>((r) => graph.listen(0, '127.0.0.1', () => r()));
  graphUrl = `https://127.0.0.1:${(graph.address() as AddressInfo).port}/graph`;
  // an HTTP CONNECT proxy that records each tunnel
  proxy = http.createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req: http.IncomingMessage, sock: import('node:stream').Duplex, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const up = connect(Number(port), host, () => {
      sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(sock);
      sock.pipe(up);
    });
    up.on('error', () => sock.destroy());
    sock.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const crd = parseYaml(
    await readFile(join(FIXTURES, 'upstream', '0000_03_config-operator_01_proxies.crd.yaml'), 'utf8'),
  ) as Record<string, unknown>;
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  await waitFor(
    () => client.request('GET', '/apis/config.openshift.io/v1/proxies').then(() => true),
    10_000,
    'proxies',
  );
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-config-managed' } },
  });
}, 60_000);

afterAll(async () => {
  graph?.close();
  proxy?.close();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  if (certs) await rm(certs, { recursive: true, force: true });
});

describe('update service through the cluster proxy and trusted CA (upstream egress.go)', () => {
  it('reads nothing special from a cluster without Proxy or bundle', async () => {
    expect(await readEgress(client)).toEqual({ httpProxy: '', httpsProxy: '', noProxy: '', ca: undefined });
    expect(transportFor({ httpProxy: 'p:1', httpsProxy: '', noProxy: 'a,b', ca: undefined }, 'https://x')).toEqual({});
    expect(transportFor({ httpProxy: 'p:1', httpsProxy: '', noProxy: 'a, b', ca: 'C' }, 'http://x')).toEqual({
      ca: 'C',
      proxy: 'http://p:1',
      noProxy: ['a', 'b'],
    });
  });

  it('fails without the trusted CA, then polls through the proxy with it, and bypasses it for noProxy hosts', async () => {
    const poller = new UpdatesPoller({
      updateService: graphUrl,
      transport: async (upstream, signal) => transportFor(await readEgress(client, signal), upstream),
    });
    try {
      const untrusted = await poller.poll(cv, '4.18.0');
      expect(untrusted.retrievedUpdates).toMatchObject({ status: 'False', reason: 'RemoteFailed' });
      const created = await client.request<Record<string, unknown>>('POST', '/apis/config.openshift.io/v1/proxies', {
        body: { apiVersion: 'config.openshift.io/v1', kind: 'Proxy', metadata: { name: 'cluster' }, spec: {} },
      });
      await client.request('PUT', '/apis/config.openshift.io/v1/proxies/cluster/status', {
        body: { ...created, status: { httpProxy: '', httpsProxy: proxyUrl, noProxy: '.cluster.local' } },
      });
      await client.request('POST', '/api/v1/namespaces/openshift-config-managed/configmaps', {
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'trusted-ca-bundle', namespace: 'openshift-config-managed' },
          data: { 'ca-bundle.crt': await readFile(join(certs, 'ca.crt'), 'utf8') },
        },
      });
      const ok = await poller.poll(cv, '4.18.0');
      expect(ok.retrievedUpdates.status).toBe('True');
      expect(ok.availableUpdates?.map((u) => u.version)).toEqual(['4.18.1']);
      expect(tunnels).toEqual([`127.0.0.1:${new URL(graphUrl).port}`]);
      // 127.0.0.1 in noProxy: direct again
      const proxyObj = await client.request<Record<string, unknown>>(
        'GET',
        '/apis/config.openshift.io/v1/proxies/cluster',
      );
      await client.request('PUT', '/apis/config.openshift.io/v1/proxies/cluster/status', {
        body: { ...proxyObj, status: { httpsProxy: proxyUrl, noProxy: '.cluster.local,127.0.0.1' } },
      });
      const direct = await poller.poll(cv, '4.18.0');
      expect(direct.retrievedUpdates.status).toBe('True');
      expect(tunnels).toHaveLength(1);
    } finally {
      await poller.close();
    }
  });
});
