/**
 * TLS options of the registry source against a REAL registry: Debian's `docker-registry` serving HTTPS on 127.0.0.1
 * with a server certificate issued by a throw-away CA made here with `openssl`, filled with `skopeo --dest-cert-dir`.
 * No mocks.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, writeFile, copyFile, readFile } from 'node:fs/promises';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPayload, RegistryTlsError, PayloadError } from '../src/index.js';
import { gz, payloadEntries, tarBuffer, writeLayout } from './helpers.js';
import { freePort, issueClientCert, makeTestPki } from './pki.js';

const run = promisify(execFile);
const DATA = fileURLToPath(new URL('./fixtures/upstream/payload/', import.meta.url));

let registry: ChildProcess;
let mtls: ChildProcess;
let mtlsHost = '';
let port = 0;
let work = '';
let host = '';
let digest = '';
let caFile = '';
let certDir = '';

async function startRegistry(name: string, addr: string, extraTls = ''): Promise<ChildProcess> {
  await writeFile(
    join(work, `${name}.yml`),
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(work, 'storage')}\nhttp:\n  addr: ${addr}\n  tls:\n    certificate: ${join(work, 'server.pem')}\n    key: ${join(work, 'server.key')}\n${extraTls}`,
  );
  const child = spawn('/usr/bin/docker-registry', ['serve', join(work, `${name}.yml`)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ca = await readFile(caFile, 'utf8');
  const port = Number(addr.split(':')[1]);
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((res) => {
      const s = connect({ host: '127.0.0.1', port, ca }, () => {
        s.end();
        res(true);
      });
      s.on('error', () => res(false));
    });
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`docker-registry ${name} did not come up with TLS on ${addr}`);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rp-tls-'));
  port = await freePort();
  host = `127.0.0.1:${port}`;
  const pki = await makeTestPki(work, {
    caName: 'keelson test CA',
    serverCn: '127.0.0.1',
    sans: 'IP:127.0.0.1,DNS:localhost',
  });
  caFile = pki.caFile;
  certDir = join(work, 'certs');
  await mkdir(certDir);
  await copyFile(caFile, join(certDir, 'ca.crt'));
  registry = await startRegistry('plain-tls', host);
  // a second registry on the same storage that requires a client certificate issued by the same CA
  await issueClientCert(pki, 'keelson client');
  mtlsHost = `127.0.0.1:${await freePort()}`;
  mtls = await startRegistry('mtls', mtlsHost, `    clientcas:\n      - ${caFile}\n`);
  const layout = join(work, 'layout');
  digest = (
    await writeLayout(layout, [gz(await tarBuffer(await payloadEntries(join(DATA, 'payloadtest'))))], {
      arch: 'amd64',
      refName: 'r',
    })
  ).manifestDigest;
  await run('skopeo', [
    '--insecure-policy',
    'copy',
    '--quiet',
    '--dest-cert-dir',
    certDir,
    `oci:${layout}:r`,
    `docker://${host}/ocp/release:4.18.1`,
  ]);
}, 60_000);

afterAll(() => {
  registry?.kill('SIGTERM');
  mtls?.kill('SIGTERM');
});

describe('registry TLS (real docker-registry over HTTPS on loopback)', () => {
  it('opens the payload when the registry CA is given with caFile', async () => {
    const p = await openPayload(`docker://${host}/ocp/release:4.18.1`, {
      caFile,
      certsDirs: [],
      cacheDir: join(work, 'c1'),
    });
    expect(p.image?.digest).toBe(digest);
    expect(p.metadata.version).toBe('1.0.0-abc');
  });

  it('opens the payload with a skopeo-style certDir and with a certs.d/<host:port>/ca.crt root', async () => {
    const p = await openPayload(`docker://${host}/ocp/release@${digest}`, { certDir, cacheDir: join(work, 'c2') });
    expect(p.image?.digest).toBe(digest);
    const root = join(work, 'certs.d');
    await mkdir(join(root, host), { recursive: true });
    await copyFile(caFile, join(root, host, 'ca.crt'));
    const q = await openPayload(`docker://${host}/ocp/release:4.18.1`, {
      certsDirs: [root],
      cacheDir: join(work, 'c3'),
    });
    expect(q.image?.digest).toBe(digest);
  });

  it('refuses an unknown CA with a typed error naming the host and suggesting --ca-file', async () => {
    const err = await openPayload(`docker://${host}/ocp/release:4.18.1`, {
      certsDirs: [],
      cacheDir: join(work, 'c4'),
      retries: 1,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RegistryTlsError);
    const t = err as RegistryTlsError;
    expect(t.code).toBe('RegistryTLSError');
    expect(t.host).toBe(host);
    expect(t.reason).toMatch(/SELF_SIGNED|UNABLE_TO_(VERIFY|GET_ISSUER)/);
    expect(t.message).toContain(`registry ${host}`);
    expect(t.message).toContain('--ca-file');
    // a CA that did not sign the server certificate fails the same way
    await run(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'other.key',
        '-out',
        'other.pem',
        '-days',
        '1',
        '-subj',
        '/CN=other',
      ],
      { cwd: work },
    );
    await expect(
      openPayload(`docker://${host}/ocp/release:4.18.1`, {
        caFile: join(work, 'other.pem'),
        certsDirs: [],
        cacheDir: join(work, 'c5'),
      }),
    ).rejects.toMatchObject({
      code: 'RegistryTLSError',
      host,
      message: expect.stringContaining(join(work, 'other.pem')),
    });
  });

  it('opens the payload without verification when tlsVerify is false (or insecure)', async () => {
    const p = await openPayload(`docker://${host}/ocp/release:4.18.1`, {
      tlsVerify: false,
      certsDirs: [],
      cacheDir: join(work, 'c6'),
    });
    expect(p.image?.digest).toBe(digest);
    const q = await openPayload(`docker://${host}/ocp/release@${digest}`, {
      insecure: true,
      certsDirs: [],
      cacheDir: join(work, 'c7'),
    });
    expect(q.metadata.version).toBe('1.0.0-abc');
  });

  it('rejects unreadable or non-PEM CA files and lone client keys with typed errors', async () => {
    await expect(
      openPayload(`docker://${host}/ocp/release:4.18.1`, {
        caFile: join(work, 'missing.pem'),
        cacheDir: join(work, 'c8'),
      }),
    ).rejects.toMatchObject({
      code: 'RegistryTLSError',
      message: expect.stringMatching(/cannot read CA file .*missing\.pem/),
    });
    await writeFile(join(work, 'bad.pem'), 'not a certificate');
    await expect(
      openPayload(`docker://${host}/ocp/release:4.18.1`, { caFile: join(work, 'bad.pem'), cacheDir: join(work, 'c8') }),
    ).rejects.toThrow(/is not PEM/);
    const lone = join(work, 'lone');
    await mkdir(lone);
    await copyFile(join(work, 'server.key'), join(lone, 'client.key'));
    await expect(
      openPayload(`docker://${host}/ocp/release:4.18.1`, { certDir: lone, cacheDir: join(work, 'c8') }),
    ).rejects.toThrow(PayloadError);
    await expect(
      openPayload(`docker://${host}/ocp/release:4.18.1`, { certDir: lone, cacheDir: join(work, 'c8') }),
    ).rejects.toThrow(/client key .*client\.key has no matching certificate/);
  });

  it('presents the client certificate from a certDir to a registry that requires one', async () => {
    const dir = join(work, 'client-certs');
    await mkdir(dir);
    await copyFile(caFile, join(dir, 'ca.crt'));
    await copyFile(join(work, 'client.pem'), join(dir, 'client.cert'));
    await copyFile(join(work, 'client.key'), join(dir, 'client.key'));
    const p = await openPayload(`docker://${mtlsHost}/ocp/release:4.18.1`, {
      certDir: dir,
      cacheDir: join(work, 'm1'),
    });
    expect(p.image?.digest).toBe(digest);
    const err = await openPayload(`docker://${mtlsHost}/ocp/release:4.18.1`, {
      caFile,
      certsDirs: [],
      cacheDir: join(work, 'm2'),
      retries: 1,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PayloadError);
    expect((err as PayloadError).message).toContain(mtlsHost);
    expect((err as PayloadError).code).toBe('RegistryTLSError');
    expect((err as PayloadError).message).toMatch(
      /refused the TLS handshake.*client\.cert \+ client\.key in --cert-dir/,
    );
  });
});
