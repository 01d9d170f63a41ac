/**
 * Issue 22 §4: signature stores reached through the cluster's Proxy and trusted CA bundle (upstream
 * `Operator.HTTPClient`, shared by the payload's `store-*` stores and `customsignaturestore.Store`), and ClusterVersion
 * `spec.signatureStores[].ca` (an `openshift-config` ConfigMap, key `ca.crt`; the store is not honoured when it is
 * missing). The embedded API server holds Proxy (upstream CRD), ConfigMaps and ClusterVersion; an HTTPS store with
 * an `openssl` CA and a CONNECT proxy on loopback; signatures made by Debian's `gpg`.
 */
import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { openPayload, type Manifest } from '@keelson/release-payload';
import type { ClusterVersion } from '../src/api-types.js';
import { readStoreCA, verifyTarget } from '../src/payload/verify.js';
import { FIXTURES, Signer, startCluster, waitFor, writeFixturePayload } from './helpers.js';

// resolves to loopback on the test machine but is not "localhost"/127.x, so the proxy rules apply to it
const HOST = hostname();
const DIGEST = `sha256:${'5a'.repeat(32)}`;
const IMAGE = `quay.io/openshift-release-dev/ocp-release@${DIGEST}`;
let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let store: https.Server;
let proxy: http.Server;
let storeUrl = '';
let proxyUrl = '';
let caPem = '';
let otherCaPem = '';
let current: readonly Manifest[] = [];
const tunnels: string[] = [];

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function makeCerts(): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=sig-ca']);
  openssl(['req', '-x509', ...ec, '-keyout', 'o.key', '-out', 'other.crt', '-days', '2', '-subj', '/CN=other']);
  openssl(['req', ...ec, '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', `/CN=${HOST}`]);
  execFileSync('sh', ['-c', `printf "subjectAltName=DNS:${HOST}\\n" > ext.cnf`], { cwd: dir });
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
}

async function startProxy(): Promise<void> {
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
}

async function createConfigMap(ns: string, name: string, data: Record<string, string>): Promise<void> {
  await client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data },
  });
}

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  makeCerts();
  caPem = await readFile(join(dir, 'ca.crt'), 'utf8');
  otherCaPem = await readFile(join(dir, 'other.crt'), 'utf8');
  const signer = await Signer.create();
  await signer.sign(join(dir, 'sigs'), DIGEST, 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64');
  const key = await readFile(join(dir, 'srv.key'));
  const cert = await readFile(join(dir, 'srv.crt'));
  store = https.createServer({ key, cert }, (req, res) => {
    const m = /^\/sigs\/(sha256=[0-9a-f]{64})\/(signature-\d+)$/.exec(req.url ?? '');
    if (!m) return void res.writeHead(404).end();
    readFile(join(dir, 'sigs', m[1] ?? '', m[2] ?? '')).then(
      (b) => res.writeHead(200).end(b),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((r) => store.listen(0, '127.0.0.1', () => r()));
  storeUrl = `https://${HOST}:${(store.address() as AddressInfo).port}/sigs`;
  await startProxy();
  const verification = { publicKey: signer.publicKey(), store: storeUrl };
  current = (await openPayload(await writeFixturePayload(join(dir, 'payload-a'), '4.18.0', { verification })))
    .manifests;
  const crd = parseYaml(
    await readFile(join(FIXTURES, 'upstream', '0000_03_config-operator_01_proxies.crd.yaml'), 'utf8'),
  ) as Record<string, unknown>;
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  await waitFor(
    () => client.request('GET', '/apis/config.openshift.io/v1/proxies').then(() => true),
    10_000,
    'proxies',
  );
  for (const name of ['openshift-config-managed', 'openshift-config'])
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
}, 60_000);

afterAll(async () => {
  store?.close();
  proxy?.close();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const cvWith = (spec: Record<string, unknown>): ClusterVersion => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ClusterVersion',
  metadata: { name: 'version' },
  spec: { clusterID: 'c0ffee00-1234-4abc-8def-0123456789ab', ...spec },
});

describe('signature stores with the cluster egress settings', () => {
  it('reaches the payload store through the Proxy with the trusted CA bundle as roots', async () => {
    const untrusted = await verifyTarget(client, IMAGE, current, cvWith({}));
    expect(untrusted.verified).toBe(false);
    expect(untrusted.error).toMatch(/certificate/i);
    const created = await client.request<Record<string, unknown>>('POST', '/apis/config.openshift.io/v1/proxies', {
      body: { apiVersion: 'config.openshift.io/v1', kind: 'Proxy', metadata: { name: 'cluster' }, spec: {} },
    });
    await client.request('PUT', '/apis/config.openshift.io/v1/proxies/cluster/status', {
      body: { ...created, status: { httpsProxy: proxyUrl, noProxy: '.cluster.local' } },
    });
    await createConfigMap('openshift-config-managed', 'trusted-ca-bundle', { 'ca-bundle.crt': caPem });
    const ok = await verifyTarget(client, IMAGE, current, cvWith({}));
    expect(ok.error).toBeUndefined();
    expect(ok.verified).toBe(true);
    // one tunnel per GET (signature-1, then the 404 of signature-2 that ends the store)
    expect(tunnels.length).toBeGreaterThan(0);
    expect(new Set(tunnels)).toEqual(new Set([`${HOST}:${new URL(storeUrl).port}`]));
  });

  it('honours spec.signatureStores[].ca, and does not honour a store whose CA ConfigMap is missing', async () => {
    // the shared bundle no longer trusts the store: only the store's own CA can
    await client.request('PUT', '/api/v1/namespaces/openshift-config-managed/configmaps/trusted-ca-bundle', {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'trusted-ca-bundle', namespace: 'openshift-config-managed' },
        data: { 'ca-bundle.crt': otherCaPem },
      },
    });
    const cv = cvWith({ signatureStores: [{ url: storeUrl, ca: { name: 'sig-store-ca' } }] });
    const missing = await verifyTarget(client, IMAGE, current, cv);
    expect(missing.verified).toBe(false);
    expect(missing.error).toContain(
      `${storeUrl}: signature store not honoured: ca ConfigMap openshift-config/sig-store-ca: not found`,
    );
    await createConfigMap('openshift-config', 'sig-store-ca', { 'ca.crt': caPem });
    const before = tunnels.length;
    const ok = await verifyTarget(client, IMAGE, current, cv);
    expect(ok.error).toBeUndefined();
    expect(ok.verified).toBe(true);
    expect(tunnels.length).toBeGreaterThan(before); // still through the proxy
    const noCa = await verifyTarget(client, IMAGE, current, cvWith({ signatureStores: [{ url: storeUrl }] }));
    expect(noCa.verified).toBe(false);
  });

  it('reads the CA ConfigMap strictly (key ca.crt, valid PEM)', async () => {
    await createConfigMap('openshift-config', 'no-key', { 'ca-bundle.crt': caPem });
    await createConfigMap('openshift-config', 'garbage', {
      'ca.crt': '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n',
    });
    await expect(readStoreCA(client, 'no-key')).rejects.toThrow('key ca.crt not found');
    await expect(readStoreCA(client, 'garbage')).rejects.toThrow('key ca.crt: certificate 1 is invalid');
    expect(await readStoreCA(client, 'sig-store-ca')).toBe(caPem);
  });
});
