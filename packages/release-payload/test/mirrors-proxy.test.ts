/**
 * Pulling through registry mirrors, an HTTP proxy and per-registry CAs, against REAL components: Debian's
 * `docker-registry` (plain HTTP and HTTPS with a CA made here by `openssl`) filled by `skopeo`, and Debian's
 * `tinyproxy` as the cluster proxy. A small loopback HTTP front counts the requests that reach the "source" registry
 * (it forwards to the real one), so that a test can tell the source was or was not contacted.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as netServer } from 'node:net';
import { connect } from 'node:tls';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorRulesFromCluster, openPayload, parseRegistriesConf, PayloadError } from '../src/index.js';
import { gz, payloadEntries, tarBuffer, writeLayout } from './helpers.js';
import { freePort, makeTestPki } from './pki.js';

const run = promisify(execFile);
const DATA = fileURLToPath(new URL('./fixtures/upstream/payload/', import.meta.url));

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}

let work = '';
let regPort = 0;
let tlsPort = 0;
let digest = '';
let caPem = '';
let proxyPort = 0;
let proxyLog = '';
const children: ChildProcess[] = [];
let source: Server;
let sourcePort = 0;
const counts = { source: 0 };
/** A name for this machine that is not `localhost` nor a loopback IP, so Go's proxy rules do not exempt it. */
const HOST = hostname();

async function startRegistry(name: string, port: number, tls: boolean): Promise<void> {
  const tlsCfg = tls
    ? `  tls:\n    certificate: ${join(work, 'server.pem')}\n    key: ${join(work, 'server.key')}\n`
    : '';
  await writeFile(
    join(work, `${name}.yml`),
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(work, 'storage')}\nhttp:\n  addr: 127.0.0.1:${port}\n${tlsCfg}`,
  );
  children.push(spawn('/usr/bin/docker-registry', ['serve', join(work, `${name}.yml`)], { stdio: 'ignore' }));
  await waitFor(
    () =>
      tls
        ? new Promise<boolean>((res) => {
            const s = connect({ host: '127.0.0.1', port, ca: caPem }, () => {
              s.end();
              res(true);
            });
            s.on('error', () => res(false));
          })
        : fetch(`http://127.0.0.1:${port}/v2/`).then((r) => r.ok),
    `docker-registry ${name}`,
  );
}

async function makeCerts(): Promise<void> {
  caPem = (await makeTestPki(work, { caName: 'mirror CA', serverCn: HOST, sans: `DNS:${HOST},IP:127.0.0.1` })).caPem;
}

async function startTinyproxy(): Promise<void> {
  proxyPort = await freePort();
  proxyLog = join(work, 'tinyproxy.log');
  await writeFile(
    join(work, 'tinyproxy.conf'),
    [
      `Port ${proxyPort}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      `LogFile "${proxyLog}"`,
      'LogLevel Connect',
      'MaxClients 20',
      `PidFile "${join(work, 'tinyproxy.pid')}"`,
    ].join('\n') + '\n',
  );
  children.push(spawn('/usr/bin/tinyproxy', ['-d', '-c', join(work, 'tinyproxy.conf')], { stdio: 'ignore' }));
  await waitFor(
    () =>
      new Promise<boolean>((res) => {
        const s = netServer();
        s.once('error', () => res(true)); // the port is taken: tinyproxy listens
        s.listen(proxyPort, '127.0.0.1', () => s.close(() => res(false)));
      }),
    'tinyproxy',
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rp-mirror-'));
  await makeCerts();
  regPort = await freePort();
  tlsPort = await freePort();
  await startRegistry('plain', regPort, false);
  const layout = join(work, 'layout');
  const img = await writeLayout(layout, [gz(await tarBuffer(await payloadEntries(join(DATA, 'payloadtest'))))], {
    arch: 'amd64',
  });
  digest = img.manifestDigest;
  await run('skopeo', [
    '--insecure-policy',
    'copy',
    '--quiet',
    '--dest-tls-verify=false',
    `oci:${layout}`,
    `docker://127.0.0.1:${regPort}/mirror/ocp-release:4.18.1`,
  ]);
  await startRegistry('tls', tlsPort, true); // same storage: the same image, over HTTPS
  await startTinyproxy();
  source = createServer((req, res) => {
    counts.source++;
    void fetch(`http://127.0.0.1:${regPort}${(req.url ?? '/').replace('/v2/ocp/', '/v2/mirror/')}`, {
      headers: { accept: req.headers.accept ?? '*/*' },
    }).then(async (up) => {
      const h: Record<string, string> = {};
      for (const k of ['content-type', 'docker-content-digest']) {
        const v = up.headers.get(k);
        if (v) h[k] = v;
      }
      res.writeHead(up.status, h).end(Buffer.from(await up.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', () => r()));
  sourcePort = (source.address() as AddressInfo).port;
}, 90_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await new Promise<void>((r) => (source ? source.close(() => r()) : r()));
});

const idms = (src: string, mirrors: string[], policy?: string) => ({
  metadata: { name: 'release' },
  spec: {
    imageDigestMirrors: [{ source: src, mirrors, ...(policy ? { mirrorSourcePolicy: policy } : {}) }],
  },
});

describe('mirrors (IDMS / ICSP / ITMS, registries.conf)', () => {
  it('pulls a by-digest release from its ImageDigestMirrorSet mirror without contacting the source', async () => {
    const before = counts.source;
    const mirrors = mirrorRulesFromCluster({
      idms: [idms(`127.0.0.1:${sourcePort}/ocp`, [`127.0.0.1:${regPort}/mirror`])],
    });
    const p = await openPayload(`127.0.0.1:${sourcePort}/ocp/ocp-release@${digest}`, {
      mirrors,
      cacheDir: join(work, 'cache-1'),
    });
    expect(p.image?.digest).toBe(digest);
    expect(p.metadata.version).toBeTruthy();
    expect(counts.source).toBe(before);
  });

  it('falls back to the source when every mirror fails, unless NeverContactSource', async () => {
    const bad = [`127.0.0.1:${regPort}/nowhere`];
    const before = counts.source;
    const p = await openPayload(`127.0.0.1:${sourcePort}/ocp/ocp-release@${digest}`, {
      mirrors: mirrorRulesFromCluster({ idms: [idms(`127.0.0.1:${sourcePort}/ocp/ocp-release`, bad)] }),
      cacheDir: join(work, 'cache-2'),
    });
    expect(p.image?.digest).toBe(digest);
    expect(counts.source).toBeGreaterThan(before);
    const blockedBefore = counts.source;
    const err = await openPayload(`127.0.0.1:${sourcePort}/ocp/ocp-release@${digest}`, {
      mirrors: mirrorRulesFromCluster({
        idms: [idms(`127.0.0.1:${sourcePort}/ocp/ocp-release`, bad, 'NeverContactSource')],
      }),
      cacheDir: join(work, 'cache-3'),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadError);
    expect((err as Error).message).toMatch(/NeverContactSource/);
    expect((err as Error).message).toContain(`127.0.0.1:${regPort}/nowhere@${digest} (mirror): `);
    expect(counts.source).toBe(blockedBefore);
  });

  it('uses digest-only mirrors for digests only, tag-only (ITMS) mirrors for tags only', async () => {
    const before = counts.source;
    const rules = mirrorRulesFromCluster({
      icsp: [
        {
          metadata: { name: 'a' },
          spec: { repositoryDigestMirrors: [{ source: `127.0.0.1:${sourcePort}/ocp`, mirrors: ['x.invalid/m'] }] },
        },
      ],
      itms: [
        {
          metadata: { name: 'b' },
          spec: {
            imageTagMirrors: [{ source: `127.0.0.1:${sourcePort}/ocp`, mirrors: [`127.0.0.1:${regPort}/mirror`] }],
          },
        },
      ],
    });
    const p = await openPayload(`127.0.0.1:${sourcePort}/ocp/ocp-release:4.18.1`, {
      mirrors: rules,
      cacheDir: join(work, 'cache-4'),
      platform: { architecture: 'amd64' },
    });
    expect(p.image?.digest).toBe(digest);
    expect(counts.source).toBe(before); // the tag came from the ITMS mirror, the ICSP one was not tried for a tag
  });

  it("reads a node's registries.conf as the MCO renders it", async () => {
    const conf = `unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]
short-name-mode = ""

[[registry]]
  prefix = ""
  location = "127.0.0.1:${sourcePort}/ocp"
  blocked = true # NeverContactSource

  [[registry.mirror]]
    location = "127.0.0.1:${regPort}/nowhere"
    pull-from-mirror = "digest-only"

  [[registry.mirror]]
    location = "127.0.0.1:${regPort}/mirror"
    pull-from-mirror = "digest-only"
`;
    const rules = parseRegistriesConf(conf, '/etc/containers/registries.conf');
    expect(rules).toEqual([
      {
        source: `127.0.0.1:${sourcePort}/ocp`,
        blocked: true,
        mirrors: [
          { location: `127.0.0.1:${regPort}/nowhere`, pullFromMirror: 'digest-only' },
          { location: `127.0.0.1:${regPort}/mirror`, pullFromMirror: 'digest-only' },
        ],
      },
    ]);
    const before = counts.source;
    const p = await openPayload(`127.0.0.1:${sourcePort}/ocp/ocp-release@${digest}`, {
      mirrors: rules,
      cacheDir: join(work, 'cache-5'),
    });
    expect(p.image?.digest).toBe(digest);
    expect(counts.source).toBe(before);
    expect(
      parseRegistriesConf(
        "[[registry]]\nlocation = 'a.io:5000/x'\ninsecure = true\n[[registry.mirror]]\nlocation = 'b.io/y'\ninsecure = true\n",
      ),
    ).toEqual([
      {
        source: 'a.io:5000/x',
        blocked: false,
        insecure: true,
        mirrors: [{ location: 'b.io/y', pullFromMirror: 'all', insecure: true }],
      },
    ]);
    expect(() => parseRegistriesConf('[[registry]]\nlocation = 12\n', 'r.conf')).toThrow(
      /r\.conf:2: unsupported value/,
    );
    expect(() => parseRegistriesConf('[[registry.mirror]]\n', 'r.conf')).toThrow(/r\.conf:1: .*before any/);
  });
});

describe('image.config registrySources', () => {
  it('blockedRegistries: the source is not contacted, its mirror still is', async () => {
    const before = counts.source;
    const err = await openPayload(`127.0.0.1:${sourcePort}/ocp/ocp-release@${digest}`, {
      blockedRegistries: [`127.0.0.1:${sourcePort}`],
      cacheDir: join(work, 'cache-b1'),
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/blocked registry\) and no mirror applies/);
    const p = await openPayload(`127.0.0.1:${sourcePort}/ocp/ocp-release@${digest}`, {
      blockedRegistries: [`127.0.0.1:${sourcePort}`],
      mirrors: mirrorRulesFromCluster({ idms: [idms(`127.0.0.1:${sourcePort}/ocp`, [`127.0.0.1:${regPort}/mirror`])] }),
      cacheDir: join(work, 'cache-b2'),
    });
    expect(p.image?.digest).toBe(digest);
    expect(counts.source).toBe(before);
  });

  it('allowedRegistries refuses other references; insecureRegistries skips certificate checks', async () => {
    await expect(
      openPayload(`docker://${HOST}:${tlsPort}/mirror/ocp-release@${digest}`, {
        allowedRegistries: ['quay.io', '*.example.com'],
        cacheDir: join(work, 'cache-b3'),
      }),
    ).rejects.toThrow(/Source image rejected: .* is not in the allowed registries \(quay\.io, \*\.example\.com\)/);
    const p = await openPayload(`docker://${HOST}:${tlsPort}/mirror/ocp-release@${digest}`, {
      allowedRegistries: [`${HOST}:${tlsPort}/mirror`],
      insecureRegistries: [`${HOST}:${tlsPort}`],
      cacheDir: join(work, 'cache-b4'),
    });
    expect(p.image?.digest).toBe(digest);
  });
});

describe('cluster proxy and additional trusted CAs', () => {
  const target = () => `docker://${HOST}:${tlsPort}/mirror/ocp-release@${digest}`;

  it('pulls over HTTPS through the proxy (CONNECT), trusting the registry CA from image.config', async () => {
    const p = await openPayload(target(), {
      proxy: { httpsProxy: `http://127.0.0.1:${proxyPort}` },
      registryCAs: { [`${HOST}..${tlsPort}`]: caPem },
      cacheDir: join(work, 'cache-6'),
    });
    expect(p.image?.digest).toBe(digest);
    expect(await readFile(proxyLog, 'utf8')).toContain(`${HOST}:${tlsPort}`);
  });

  it('without the CA the registry certificate is refused; noProxy hosts do not use the proxy', async () => {
    await expect(
      openPayload(target(), {
        proxy: { httpsProxy: `http://127.0.0.1:${proxyPort}` },
        cacheDir: join(work, 'cache-7'),
      }),
    ).rejects.toThrow(/cannot verify the TLS certificate/);
    const closed = await freePort();
    await expect(
      openPayload(target(), {
        proxy: { httpsProxy: `http://127.0.0.1:${closed}` },
        trustedCA: caPem,
        cacheDir: join(work, 'cache-8'),
        retries: 1,
      }),
    ).rejects.toThrow(new RegExp(`proxy 127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED`));
    const p = await openPayload(target(), {
      proxy: { httpsProxy: `http://127.0.0.1:${closed}`, noProxy: `.example.com,${HOST}` },
      trustedCA: caPem,
      cacheDir: join(work, 'cache-9'),
    });
    expect(p.image?.digest).toBe(digest);
  });

  it('sends plain-HTTP registry requests to the proxy with the absolute URL', async () => {
    const p = await openPayload(`docker://${HOST}:${regPort}/mirror/ocp-release@${digest}`, {
      proxy: { httpProxy: `127.0.0.1:${proxyPort}` },
      plainHttp: true,
      cacheDir: join(work, 'cache-10'),
    });
    expect(p.image?.digest).toBe(digest);
    expect(await readFile(proxyLog, 'utf8')).toMatch(new RegExp(`GET http://${HOST}:${regPort}/v2/`));
  });
});
