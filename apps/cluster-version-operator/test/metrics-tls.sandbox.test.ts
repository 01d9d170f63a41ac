/**
 * Issue 22 §5: `/metrics` on HTTPS with client-certificate authentication and Common Name authorization as upstream
 * release-4.20 (`pkg/cvo/metrics.go` `authHandler`), the client CA read from
 * `kube-system/extension-apiserver-authentication` `client-ca-file` and followed when it rotates. Real TLS over
 * loopback, certificates made with openssl.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type RunningCvo } from '../src/index.js';
import { startCluster, waitFor, writeFixturePayload } from './helpers.js';

const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
const PROMETHEUS_CN = 'system:serviceaccount:openshift-monitoring:prometheus-k8s';

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let certs: string;
let cvo: RunningCvo;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: certs, stdio: 'pipe' });
}
function makeLeaf(name: string, ca: string, cn: string, ext: string): void {
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${cn}`,
  ]);
  execFileSync('sh', ['-c', `printf '%s\\n' "$0" > ${name}.ext`, ext], { cwd: certs });
  openssl([
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
}

async function get(path: string, who?: string): Promise<{ status: number; body: string }> {
  const url = new URL(path, cvo.metricsUrl);
  const ca = await readFile(join(certs, 'serving-ca.crt'));
  const pair = who
    ? { cert: await readFile(join(certs, `${who}.crt`)), key: await readFile(join(certs, `${who}.key`)) }
    : {};
  return new Promise((resolve, reject) => {
    const req = https.request(url, { ca, ...pair, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function setClientCA(file: string): Promise<void> {
  const path = '/api/v1/namespaces/kube-system/configmaps';
  const body = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' },
    data: { 'client-ca-file': await readFile(join(certs, file), 'utf8') },
  };
  try {
    await client.request('PUT', `${path}/extension-apiserver-authentication`, { body });
  } catch {
    await client.request('POST', path, { body });
  }
}

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  certs = await mkdtemp(join(tmpdir(), 'cvo-metrics-tls-'));
  for (const ca of ['serving-ca', 'client-ca', 'other-ca']) {
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=${ca}`,
    ]);
  }
  makeLeaf('serving', 'serving-ca', '127.0.0.1', 'subjectAltName=IP:127.0.0.1');
  makeLeaf('prometheus', 'client-ca', PROMETHEUS_CN, 'extendedKeyUsage=clientAuth');
  makeLeaf('other-cn', 'client-ca', 'system:serviceaccount:default:nosy', 'extendedKeyUsage=clientAuth');
  makeLeaf('untrusted', 'other-ca', PROMETHEUS_CN, 'extendedKeyUsage=clientAuth');
  try {
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } },
    });
  } catch {
    // the sandbox may create it
  }
  await setClientCA('client-ca.crt');
  cvo = await startClusterVersionOperator({
    kubeconfig: await sandbox.writeKubeconfig(join(dir, 'kc')),
    payloadDir: await writeFixturePayload(join(dir, 'payload-a'), '4.18.0'),
    releaseImage: IMAGE_A,
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    servingCertFile: join(certs, 'serving.crt'),
    servingKeyFile: join(certs, 'serving.key'),
    updateService: 'http://127.0.0.1:9/graph',
    timeScale: 0.1,
    logger: nullLogger,
  });
}, 60_000);

afterAll(async () => {
  await cvo?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  if (certs) await rm(certs, { recursive: true, force: true });
});

describe('metrics over HTTPS with client certificates (upstream authHandler)', () => {
  it('serves Prometheus and refuses everyone else with upstream texts', async () => {
    expect(cvo.metricsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ok = await waitFor(
      () => get('/metrics', 'prometheus').then((r) => (r.status === 200 ? r : undefined)),
      20_000,
      'metrics with the client CA',
    );
    expect(ok.body).toContain('cluster_version{type="current",version="4.18.0"');
    expect(await get('/metrics')).toEqual({ status: 401, body: 'client certificate required\n' });
    expect(await get('/metrics', 'untrusted')).toEqual({ status: 401, body: 'client certificate not trusted\n' });
    expect(await get('/metrics', 'other-cn')).toEqual({
      status: 403,
      body: 'unauthorized common name: system:serviceaccount:default:nosy\n',
    });
    expect((await get('/healthz')).status).toBe(200);
  });

  it('follows a rotated client CA without a restart', async () => {
    await setClientCA('other-ca.crt');
    await waitFor(() => get('/metrics', 'untrusted').then((r) => r.status === 200), 20_000, 'the rotated CA');
    expect((await get('/metrics', 'prometheus')).status).toBe(401);
  });
});
