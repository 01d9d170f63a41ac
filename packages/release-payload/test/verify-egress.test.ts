/**
 * Signature stores reached as the CVO reaches them (upstream `Operator.HTTPClient`: the cluster Proxy and the trusted
 * CA bundle) and ClusterVersion `spec.signatureStores[].ca`: an HTTPS store served on loopback with a CA made here by
 * Debian's `openssl`, signatures made by Debian's `gpg`, and Debian's `tinyproxy` as the cluster proxy.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { type AddressInfo, createServer as netServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifestFile, verifyRelease, verifyTargetRelease, type PayloadIssue } from '../src/index.js';

const run = promisify(execFile);
const HOST = hostname(); // resolves to loopback here, but is not "localhost": the proxy rules apply to it
const HEX = 'ef'.repeat(32);
const DIGEST = `sha256:${HEX}`;

let work = '';
let home = '';
let pub = '';
let caPem = '';
let otherCaPem = '';
let sig: Buffer;
let server: Server;
let storeUrl = '';
let proxyPort = 0;
let proxyLog = '';
let proxy: ChildProcess | undefined;

function gpg(args: string[], input?: string): Buffer {
  return execFileSync(
    'gpg',
    ['--homedir', home, '--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args],
    { input, stdio: ['pipe', 'pipe', 'ignore'] },
  );
}

async function freePort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function makeCa(name: string): Promise<void> {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ssl = (...a: string[]) => run('openssl', a, { cwd: work });
  await ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  );
}

async function makeServing(): Promise<void> {
  const ssl = (...a: string[]) => run('openssl', a, { cwd: work });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await ssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${HOST}`);
  await writeFile(join(work, 'ext.cnf'), `subjectAltName=DNS:${HOST},IP:127.0.0.1\nbasicConstraints=CA:FALSE\n`);
  await ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
}

async function startTinyproxy(): Promise<void> {
  proxyPort = await freePort();
  proxyLog = join(work, 'tinyproxy.log');
  const conf = [`Port ${proxyPort}`, 'Listen 127.0.0.1', `LogFile "${proxyLog}"`, 'LogLevel Connect', 'MaxClients 20'];
  await writeFile(join(work, 'tinyproxy.conf'), `${conf.join('\n')}\n`);
  proxy = spawn('/usr/bin/tinyproxy', ['-d', '-c', join(work, 'tinyproxy.conf')], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const taken = await new Promise<boolean>((res) => {
      const s = netServer();
      s.once('error', () => res(true));
      s.listen(proxyPort, '127.0.0.1', () => s.close(() => res(false)));
    });
    if (taken) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('tinyproxy did not start');
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rp-sig-egress-'));
  home = join(work, 'gnupg');
  await run('mkdir', ['-m', '700', home]);
  gpg(['--quick-gen-key', 'Release <r@example.com>', 'ed25519', 'sign', 'never']);
  pub = gpg(['--armor', '--export', 'r@example.com']).toString();
  const claims = JSON.stringify({
    critical: {
      type: 'atomic container signature',
      image: { 'docker-manifest-digest': DIGEST },
      identity: { 'docker-reference': 'quay.io/openshift-release-dev/ocp-release:4.20.1-x86_64' },
    },
  });
  sig = gpg(['--local-user', 'r@example.com', '--sign'], claims);
  await makeCa('ca');
  await makeCa('other');
  await makeServing();
  caPem = await readFile(join(work, 'ca.pem'), 'utf8');
  otherCaPem = await readFile(join(work, 'other.pem'), 'utf8');
  const [key, cert] = await Promise.all([readFile(join(work, 'server.key')), readFile(join(work, 'server.pem'))]);
  server = createServer({ key, cert }, (req, res) => {
    if (req.url === `/sigs/sha256=${HEX}/signature-1`) return void res.writeHead(200).end(sig);
    // upstream sigstore tries the next index after a failed one
    if (req.url === `/flaky/sha256=${HEX}/signature-1`) return void res.writeHead(503).end();
    if (req.url === `/flaky/sha256=${HEX}/signature-2`) return void res.writeHead(200).end(sig);
    if (req.url === `/huge/sha256=${HEX}/signature-1`) {
      // a hostile store: an endless body (stopped when the client goes away)
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 1);
      const more = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  storeUrl = `https://${HOST}:${(server.address() as AddressInfo).port}/sigs`;
  await startTinyproxy();
}, 60_000);

afterAll(async () => {
  proxy?.kill('SIGTERM');
  await new Promise<void>((r) => server.close(() => r()));
  execFileSync('gpgconf', ['--homedir', home, '--kill', 'all'], { stdio: 'ignore' });
  await rm(work, { recursive: true, force: true });
});

const keyrings = () => [{ name: 'r', data: pub }];

describe('HTTP(S) signature stores with the cluster egress settings', () => {
  it('trusts the given CA bundle as roots, and refuses the store without it', async () => {
    const ok = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: storeUrl }],
      http: { ca: caPem },
    });
    expect(ok.verified).toBe(true);
    const bad = await verifyRelease({ digest: DIGEST, keyrings: keyrings(), stores: [{ url: storeUrl }] });
    expect(bad.verified).toBe(false);
    expect(bad.failures.map((f) => f.reason).join('\n')).toMatch(/certificate/i);
  });

  it('goes through the proxy (CONNECT) and honours noProxy', async () => {
    const httpsProxy = `http://127.0.0.1:${proxyPort}`;
    const viaProxy = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: storeUrl }],
      http: { ca: caPem, proxy: { httpsProxy } },
    });
    expect(viaProxy.verified).toBe(true);
    expect(await readFile(proxyLog, 'utf8')).toContain(`CONNECT ${HOST}:`);
    const dead = `http://127.0.0.1:${await freePort()}`;
    const refused = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: storeUrl }],
      http: { ca: caPem, proxy: { httpsProxy: dead } },
    });
    expect(refused.verified).toBe(false);
    expect(refused.failures.map((f) => f.reason).join('\n')).toContain(`proxy 127.0.0.1:`);
    const bypassed = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: storeUrl }],
      http: { ca: caPem, proxy: { httpsProxy: dead, noProxy: HOST } },
    });
    expect(bypassed.verified).toBe(true);
  });

  it('tries the next index after a failed one, and bounds an endless body', async () => {
    const base = storeUrl.replace(/\/sigs$/, '');
    const flaky = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: `${base}/flaky` }],
      http: { ca: caPem },
    });
    expect(flaky.verified).toBe(true);
    expect(flaky.failures).toContainEqual({
      store: `${base}/flaky`,
      index: '1',
      reason: `unable to retrieve signature from ${base}/flaky/sha256=${HEX}/signature-1: response status 503`,
    });
    const huge = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: `${base}/huge` }],
      http: { ca: caPem },
    });
    expect(huge.verified).toBe(false);
    expect(huge.failures).toContainEqual({
      store: `${base}/huge`,
      index: '1',
      reason: 'signature larger than 51200 bytes',
    });
  });

  it('fails every HTTP(S) store when no client can be built, and still reads ConfigMap stores', async () => {
    const r = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: storeUrl }],
      http: { ca: caPem, unavailable: 'no proxy settings' },
    });
    expect(r.verified).toBe(false);
    expect(r.failures).toContainEqual({ store: storeUrl, reason: 'no proxy settings' });
    const cm = {
      metadata: { name: 'signatures-managed' },
      binaryData: { [`sha256-${HEX}-1`]: sig.toString('base64') },
    };
    const withCm = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ name: 'openshift-config-managed', configMaps: [cm] }, { url: storeUrl }],
      http: { unavailable: 'no proxy settings' },
    });
    expect(withCm.verified).toBe(true);
    expect(withCm.signatures[0]?.store).toBe('openshift-config-managed');
  });

  it('a store CA replaces the shared bundle for that store', async () => {
    const r = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: storeUrl, ca: caPem }],
      http: { ca: otherCaPem },
    });
    expect(r.verified).toBe(true);
    const wrong = await verifyRelease({
      digest: DIGEST,
      keyrings: keyrings(),
      stores: [{ url: storeUrl, ca: otherCaPem }],
      http: { ca: caPem },
    });
    expect(wrong.verified).toBe(false);
  });
});

describe('verifyTargetRelease with spec.signatureStores[].ca', () => {
  const current = () => {
    const issues: PayloadIssue[] = [];
    const yaml = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: release-verification',
      '  namespace: openshift-config-managed',
      '  annotations:',
      '    release.openshift.io/verification-config-map: ""',
      'data:',
      '  store-default: https://default.invalid/sigs',
      '  verifier-public-key-r: |',
      ...pub.split('\n').map((l) => `    ${l}`),
      '',
    ].join('\n');
    const ms = parseManifestFile(yaml, '0000_90_verification.yaml', 'release-manifests', issues);
    expect(issues).toEqual([]);
    return ms;
  };
  const image = `quay.io/openshift-release-dev/ocp-release@${DIGEST}`;

  it('reads the named CA and verifies through it', async () => {
    const names: string[] = [];
    const r = await verifyTargetRelease({
      image,
      current: current(),
      signatureStores: [{ url: storeUrl, ca: { name: 'sig-ca' } }],
      resolveStoreCA: (name) => {
        names.push(name);
        return Promise.resolve(caPem);
      },
      http: { ca: otherCaPem },
    });
    expect(r.error).toBeUndefined();
    expect(r.verified).toBe(true);
    expect(names).toEqual(['sig-ca']);
  });

  it('does not honour a store whose CA cannot be read, and says why', async () => {
    const r = await verifyTargetRelease({
      image,
      current: current(),
      signatureStores: [{ url: storeUrl, ca: { name: 'missing' } }],
      resolveStoreCA: () => Promise.reject(new Error('not found')),
      http: { ca: caPem },
    });
    expect(r.verified).toBe(false);
    expect(r.error).toContain(
      `${storeUrl}: signature store not honoured: ca ConfigMap openshift-config/missing: not found`,
    );
    expect(r.error).toContain('ClusterVersion spec.signatureStores exhausted without finding a valid signature.');
  });

  it('refuses an empty list with upstream text, and ignores ca when the caller cannot read ConfigMaps', async () => {
    const empty = await verifyTargetRelease({ image, current: current(), signatureStores: [] });
    expect(empty.error).toBe(
      'The update cannot be verified: ClusterVersion spec.signatureStores is an empty array.  Unset signatureStores entirely if you want to to enable the default signature stores.',
    );
    const noResolver = await verifyTargetRelease({
      image,
      current: current(),
      signatureStores: [{ url: storeUrl, ca: { name: 'unreadable' } }],
      http: { ca: caPem },
    });
    expect(noResolver.verified).toBe(true);
  });

  it('uses the shared bundle when ca is empty', async () => {
    const r = await verifyTargetRelease({
      image,
      current: current(),
      signatureStores: [{ url: storeUrl, ca: { name: '' } }],
      http: { ca: caPem },
    });
    expect(r.verified).toBe(true);
  });
});
