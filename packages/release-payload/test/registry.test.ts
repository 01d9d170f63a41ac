/**
 * Registry source against a REAL registry: Debian's `docker-registry` (CNCF distribution) started on 127.0.0.1 as a
 * child process, filled with Debian's `skopeo` from OCI layouts built here. The auth/flaky/tampering behaviours are
 * provided by a small loopback proxy in front of the real registry, because the packaged registry cannot issue
 * bearer tokens without an external token service (that proxy is the only stand-in, and it says so).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile, readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filterManifests,
  listRepositoryTags,
  nextTagsPage,
  openPayload,
  parseImageReference,
  PayloadError,
  RegistryClient,
  DEFAULT_CLUSTER_PROFILE,
} from '../src/index.js';
import { gz, payloadEntries, sha, tarBuffer, writeLayout } from './helpers.js';
import { readFile } from 'node:fs/promises';

const run = promisify(execFile);
const DATA = fileURLToPath(new URL('./fixtures/upstream/payload/', import.meta.url));
const FACTS = {
  excludeIdentifier: 'exclude-test',
  featureSet: '',
  profile: DEFAULT_CLUSTER_PROFILE,
  enabledFeatureGates: [],
};

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = netServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => res(p));
    });
  });
}

let registry: ChildProcess;
let regPort = 0;
let proxy: Server;
let proxyPort = 0;
let basic: Server;
let basicPort = 0;
let work = '';
let amdDigest = '';
let armDigest = '';
let indexDigest = '';
const stats = { blobGets: 0, tokenGets: 0, failNextBlob: false, tamper: false };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rp-reg-'));
  regPort = await freePort();
  await writeFile(
    join(work, 'config.yml'),
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(work, 'storage')}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:${regPort}\n`,
  );
  registry = spawn('/usr/bin/docker-registry', ['serve', join(work, 'config.yml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${regPort}/v2/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // multi-arch layout: amd64 = payloadtest, arm64 = payloadtestarch
  const layout = join(work, 'layout');
  const amd = await writeLayout(layout, [gz(await tarBuffer(await payloadEntries(join(DATA, 'payloadtest'))))], {
    arch: 'amd64',
  });
  const arm = await writeLayout(layout, [gz(await tarBuffer(await payloadEntries(join(DATA, 'payloadtestarch'))))], {
    arch: 'arm64',
  });
  amdDigest = amd.manifestDigest;
  armDigest = arm.manifestDigest;
  const size = async (d: string) => (await readFile(join(layout, 'blobs/sha256', d.slice(7)))).length;
  const idx = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: amdDigest,
          size: await size(amdDigest),
          platform: { os: 'linux', architecture: 'amd64' },
        },
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: armDigest,
          size: await size(armDigest),
          platform: { os: 'linux', architecture: 'arm64' },
        },
      ],
    }),
  );
  indexDigest = sha(idx);
  await writeFile(join(layout, 'blobs/sha256', indexDigest.slice(7)), idx);
  await writeFile(
    join(layout, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.index.v1+json',
          digest: indexDigest,
          size: idx.length,
          annotations: { 'org.opencontainers.image.ref.name': 'multi' },
        },
      ],
    }),
  );
  await run('skopeo', [
    '--insecure-policy',
    'copy',
    '--all',
    '--quiet',
    '--dest-tls-verify=false',
    `oci:${layout}:multi`,
    `docker://127.0.0.1:${regPort}/ocp/release:4.18.1`,
  ]);

  // auth proxy in front of the real registry: bearer tokens issued for basic credentials
  proxy = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/token') {
        stats.tokenGets++;
        if (req.headers.authorization !== `Basic ${Buffer.from('alice:s3cret').toString('base64')}`) {
          res.writeHead(401).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: 'tok-123' }));
        return;
      }
      if (req.headers.authorization !== 'Bearer tok-123') {
        res
          .writeHead(401, {
            'www-authenticate': `Bearer realm="http://127.0.0.1:${proxyPort}/token",service="test",scope="repository:ocp/release:pull"`,
          })
          .end();
        return;
      }
      if (url.pathname.includes('/blobs/')) {
        stats.blobGets++;
        if (stats.failNextBlob) {
          stats.failNextBlob = false;
          res.writeHead(503).end();
          return;
        }
      }
      const up = await fetch(`http://127.0.0.1:${regPort}${url.pathname}`, {
        headers: { accept: req.headers.accept ?? '*/*' },
      });
      let body = Buffer.from(await up.arrayBuffer());
      if (stats.tamper && url.pathname.includes('/blobs/') && body.length > 0) {
        body = Buffer.from(body);
        body[body.length - 1] = (body[body.length - 1] ?? 0) ^ 1;
      }
      const h: Record<string, string> = {};
      for (const k of ['content-type', 'docker-content-digest']) {
        const v = up.headers.get(k);
        if (v) h[k] = v;
      }
      res.writeHead(up.status, h).end(body);
    })();
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyPort = (proxy.address() as AddressInfo).port;

  // basic-auth front of the same registry
  basic = createServer((req, res) => {
    void (async () => {
      if (req.headers.authorization !== `Basic ${Buffer.from('bob:pw').toString('base64')}`) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="registry"' }).end();
        return;
      }
      const up = await fetch(`http://127.0.0.1:${regPort}${req.url ?? '/'}`, {
        headers: { accept: req.headers.accept ?? '*/*' },
      });
      const h: Record<string, string> = {};
      for (const k of ['content-type', 'docker-content-digest']) {
        const v = up.headers.get(k);
        if (v) h[k] = v;
      }
      res.writeHead(up.status, h).end(Buffer.from(await up.arrayBuffer()));
    })();
  });
  await new Promise<void>((r) => basic.listen(0, '127.0.0.1', () => r()));
  basicPort = (basic.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  registry?.kill('SIGTERM');
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  await new Promise<void>((r) => (basic ? basic.close(() => r()) : r()));
});

describe('image references', () => {
  it('parses registries, tags, digests and Docker Hub names', () => {
    expect(parseImageReference('quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64')).toEqual({
      registry: 'quay.io',
      repository: 'openshift-release-dev/ocp-release',
      tag: '4.18.1-x86_64',
    });
    expect(parseImageReference('127.0.0.1:5000/a/b@sha256:' + 'a'.repeat(64))).toEqual({
      registry: '127.0.0.1:5000',
      repository: 'a/b',
      digest: 'sha256:' + 'a'.repeat(64),
    });
    expect(parseImageReference('busybox')).toEqual({
      registry: 'docker.io',
      repository: 'library/busybox',
      tag: 'latest',
    });
    expect(() => parseImageReference('quay.io/UPPER/x:1')).toThrow(PayloadError);
    expect(() => parseImageReference('quay.io/x@sha256:abc')).toThrow(/digest/);
  });
});

describe('registry source (real docker-registry on loopback)', () => {
  it('resolves a tag through the manifest list by architecture', async () => {
    const cacheDir = join(work, 'cache-a');
    const amd = await openPayload(`docker://127.0.0.1:${regPort}/ocp/release:4.18.1`, {
      cacheDir,
      platform: { architecture: 'amd64' },
    });
    expect(amd.image?.digest).toBe(amdDigest);
    expect(filterManifests(amd, FACTS).versionHash).toBe('DL-FFQ2Uem8=');
    const arm = await openPayload(`127.0.0.1:${regPort}/ocp/release:4.18.1`, {
      cacheDir,
      platform: { architecture: 'arm64' },
    });
    expect(arm.image?.digest).toBe(armDigest);
    expect(arm.metadata.architecture).toBe('Multi');
    // by digest
    const byDigest = await openPayload(`docker://127.0.0.1:${regPort}/ocp/release@${armDigest}`, { cacheDir });
    expect(byDigest.image?.digest).toBe(armDigest);
    expect((await readdir(join(cacheDir, 'sha256'))).length).toBeGreaterThanOrEqual(4);
    await expect(openPayload(`docker://127.0.0.1:${regPort}/ocp/release:nope`, { cacheDir })).rejects.toThrow(
      /HTTP 404/,
    );
    await expect(
      openPayload(`docker://127.0.0.1:${regPort}/ocp/release:4.18.1`, {
        cacheDir,
        platform: { architecture: 's390x' },
      }),
    ).rejects.toThrow(/no image for linux\/s390x/);
  });

  it("lists a repository's tags page by page, following the registry's Link header", async () => {
    for (const tag of ['4.18.2', '4.18.3'])
      await run('skopeo', [
        '--insecure-policy',
        'copy',
        '--all',
        '--quiet',
        '--src-tls-verify=false',
        '--dest-tls-verify=false',
        `docker://127.0.0.1:${regPort}/ocp/release:4.18.1`,
        `docker://127.0.0.1:${regPort}/ocp/release:${tag}`,
      ]);
    const repo = `127.0.0.1:${regPort}/ocp/release`;
    expect((await listRepositoryTags(repo)).sort()).toEqual(['4.18.1', '4.18.2', '4.18.3']);
    // two tags a page: distribution answers with a Link to the next page, twice
    const client = new RegistryClient(parseImageReference(repo), {});
    expect((await client.tags(2)).sort()).toEqual(['4.18.1', '4.18.2', '4.18.3']);
    await expect(listRepositoryTags(`${repo}:4.18.1`)).rejects.toThrow(/without a tag or digest/);
    await expect(listRepositoryTags(`127.0.0.1:${regPort}/ocp/none`)).rejects.toThrow(/HTTP 404/);
    expect(nextTagsPage('</v2/ocp/release/tags/list?last=b&n=2>; rel="next"', 'ocp/release')).toBe(
      'tags/list?last=b&n=2',
    );
    expect(nextTagsPage(null, 'ocp/release')).toBeUndefined();
    expect(() => nextTagsPage('</v2/other/tags/list?last=b>; rel="next"', 'ocp/release')).toThrow(/outside/);
  });

  it('authenticates with bearer tokens from docker config.json, retries, caches and verifies digests', async () => {
    const authFile = join(work, 'config.json');
    await writeFile(
      authFile,
      JSON.stringify({
        auths: { [`127.0.0.1:${proxyPort}`]: { auth: Buffer.from('alice:s3cret').toString('base64') } },
      }),
    );
    const cacheDir = join(work, 'cache-b');
    stats.failNextBlob = true;
    const progress: number[] = [];
    const p = await openPayload(`docker://127.0.0.1:${proxyPort}/ocp/release:4.18.1`, {
      authFile,
      cacheDir,
      platform: { architecture: 'amd64' },
      onProgress: (d) => progress.push(d),
    });
    expect(p.image?.digest).toBe(amdDigest);
    expect(stats.tokenGets).toBeGreaterThan(0);
    expect(progress.length).toBeGreaterThan(0);
    const before = stats.blobGets;
    await openPayload(`docker://127.0.0.1:${proxyPort}/ocp/release:4.18.1`, {
      authFile,
      cacheDir,
      platform: { architecture: 'amd64' },
    });
    expect(stats.blobGets).toBe(before); // served from the content-addressed cache

    const wrong = join(work, 'wrong.json');
    await writeFile(
      wrong,
      JSON.stringify({ auths: { [`127.0.0.1:${proxyPort}`]: { auth: Buffer.from('alice:nope').toString('base64') } } }),
    );
    await expect(
      openPayload(`docker://127.0.0.1:${proxyPort}/ocp/release:4.18.1`, {
        authFile: wrong,
        cacheDir: join(work, 'c2'),
      }),
    ).rejects.toThrow(/token request .* failed: HTTP 401/);

    stats.tamper = true;
    try {
      await expect(
        openPayload(`docker://127.0.0.1:${proxyPort}/ocp/release:4.18.1`, {
          authFile,
          cacheDir: join(work, 'cache-c'),
          platform: { architecture: 'amd64' },
        }),
      ).rejects.toMatchObject({ code: 'DigestMismatch' });
    } finally {
      stats.tamper = false;
    }
  });

  it('uses basic auth from an auth file and names the missing credentials otherwise', async () => {
    const authFile = join(work, 'basic.json');
    await writeFile(
      authFile,
      JSON.stringify({ auths: { [`127.0.0.1:${basicPort}`]: { username: 'bob', password: 'pw' } } }),
    );
    const p = await openPayload(`docker://127.0.0.1:${basicPort}/ocp/release@${amdDigest}`, {
      authFile,
      cacheDir: join(work, 'cache-basic'),
    });
    expect(p.metadata.version).toBe('1.0.0-abc');
    const none = join(work, 'none.json');
    await writeFile(none, JSON.stringify({ auths: {} }));
    await expect(
      openPayload(`docker://127.0.0.1:${basicPort}/ocp/release@${amdDigest}`, {
        authFile: none,
        cacheDir: join(work, 'cache-basic2'),
      }),
    ).rejects.toThrow(/requires credentials/);
  });
});
