/**
 * `keelson payload info|extract|manifests|diff|verify` run as a child process of the built CLI, against upstream payload
 * trees, OCI layouts built here, a real `docker-registry` on loopback (filled with `skopeo`) and gpg-made signatures.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect as tlsConnect } from 'node:tls';
import { createServer, type Server } from 'node:http';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, UPSTREAM_PAYLOADS } from './cli-helpers.js';

const PAYLOADS = UPSTREAM_PAYLOADS;

const sha = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** Minimal ustar writer for test layers (regular files and directories only). */
function tar(entries: { name: string; data?: Buffer }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const h = Buffer.alloc(512);
    const isDir = e.data === undefined;
    h.write(e.name, 0, 100, 'utf8');
    h.write(isDir ? '0000755\0' : '0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write((e.data?.length ?? 0).toString(8).padStart(11, '0') + '\0', 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write(isDir ? '5' : '0', 156);
    h.write('ustar\0', 257);
    h.write('00', 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(h);
    if (e.data) {
      blocks.push(e.data);
      const padLen = (512 - (e.data.length % 512)) % 512;
      blocks.push(Buffer.alloc(padLen));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

async function layoutFrom(dir: string, root: string): Promise<string> {
  const entries: { name: string; data?: Buffer }[] = [];
  for (const sub of ['manifests', 'release-manifests']) {
    entries.push({ name: `${sub}/` });
    for (const n of (await readdir(join(dir, sub))).sort())
      entries.push({ name: `${sub}/${n}`, data: await readFile(join(dir, sub, n)) });
  }
  const layer = gzipSync(tar(entries));
  await mkdir(join(root, 'blobs/sha256'), { recursive: true });
  const put = async (b: Buffer) => {
    await writeFile(join(root, 'blobs/sha256', sha(b).slice(7)), b);
    return sha(b);
  };
  const cfg = Buffer.from(
    JSON.stringify({
      created: '2026-03-04T05:06:07Z',
      os: 'linux',
      architecture: 'amd64',
      config: { Labels: { 'io.openshift.release': 'x' } },
      rootfs: { type: 'layers', diff_ids: [sha(tar(entries))] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: await put(cfg), size: cfg.length },
      layers: [
        { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: await put(layer), size: layer.length },
      ],
    }),
  );
  const digest = await put(manifest);
  await writeFile(join(root, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(
    join(root, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest,
          size: manifest.length,
          annotations: { 'org.opencontainers.image.ref.name': 'release' },
        },
      ],
    }),
  );
  return digest;
}

let work = '';
let layout = '';
let digest = '';
let registry: ChildProcess | undefined;
let regPort = 0;
let sigServer: Server;
let sigBase = '';
let gnupg = '';

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`pnpm --filter keelson-cli build\` first`);
  work = await mkdtemp(join(tmpdir(), 'keelson-payload-cli-'));
  layout = join(work, 'layout');
  digest = await layoutFrom(join(PAYLOADS, 'payloadtest'), layout);
  regPort = await new Promise<number>((res) => {
    const s = netServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => res(p));
    });
  });
  await writeFile(
    join(work, 'registry.yml'),
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(work, 'storage')}\nhttp:\n  addr: 127.0.0.1:${regPort}\n`,
  );
  registry = spawn('/usr/bin/docker-registry', ['serve', join(work, 'registry.yml')], { stdio: 'ignore' });
  for (
    let i = 0;
    i < 100 &&
    !(await fetch(`http://127.0.0.1:${regPort}/v2/`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
  execFileSync('skopeo', [
    '--insecure-policy',
    'copy',
    '--quiet',
    '--dest-tls-verify=false',
    `oci:${layout}:release`,
    `docker://127.0.0.1:${regPort}/ocp/release:1.0.0-abc`,
  ]);

  gnupg = join(work, 'gnupg');
  await mkdir(gnupg, { mode: 0o700 });
  const gpg = (args: string[], input?: string) =>
    execFileSync(
      'gpg',
      ['--homedir', gnupg, '--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args],
      { input, stdio: ['pipe', 'pipe', 'ignore'] },
    );
  gpg(['--quick-gen-key', 'CLI Release <cli@example.com>', 'ed25519', 'sign', 'never']);
  await writeFile(join(work, 'pub.gpg'), gpg(['--export', 'cli@example.com']));
  const sig = gpg(
    ['--local-user', 'cli@example.com', '--sign'],
    JSON.stringify({
      critical: {
        type: 'atomic container signature',
        image: { 'docker-manifest-digest': digest },
        identity: { 'docker-reference': 'example.com/ocp/release:1.0.0-abc' },
      },
      optional: { creator: 'cli-test' },
    }),
  );
  sigServer = createServer((req, res) => {
    if (req.url === `/sha256=${digest.slice(7)}/signature-1`) res.writeHead(200).end(sig);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => sigServer.listen(0, '127.0.0.1', () => r()));
  sigBase = `http://127.0.0.1:${(sigServer.address() as AddressInfo).port}`;
}, 90_000);

/** Stops a child process and waits until it has exited (so that its files can be removed). */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  await stop(registry);
  await new Promise<void>((r) => (sigServer ? sigServer.close(() => r()) : r()));
  // the throwaway GNUPGHOME's gpg-agent would outlive the test run
  if (gnupg) execFileSync('gpgconf', ['--homedir', gnupg, '--kill', 'all'], { stdio: 'ignore' });
  if (work) await rm(work, { recursive: true, force: true });
});

describe('keelson payload', { timeout: 60_000 }, () => {
  it('info on a directory and on an OCI layout', async () => {
    const d = await cli('payload', 'info', join(PAYLOADS, 'payloadtest'));
    expect(d.code).toBe(0);
    // oc adm release info's layout (tabwriter, padding 1)
    expect(d.stdout).toContain(
      'Name:      1.0.0-abc\nManifests: 4\n\nRelease Metadata:\n  Version:  1.0.0-abc\n  Upgrades: 1.1.1, 1.2.2\n  Metadata:\n',
    );
    expect(d.stdout).toContain('    io.openshift.upgrades.graph.release.channels: channel-c,channel-a,channel-b\n');
    expect(d.stdout).toMatch(/\nImages:\n {2}NAME +DIGEST\n/);
    const o = await cli('payload', 'info', '--json', layout);
    expect(o.code).toBe(0);
    const j = JSON.parse(o.stdout) as Record<string, unknown>;
    expect(j['digest']).toBe(digest);
    expect(j['created']).toBe('2026-03-04T05:06:07Z');
    expect(j['manifests']).toBe(4);
  });

  it('info from a real registry with progress', async () => {
    const r = await cli(
      'payload',
      'info',
      '--progress',
      '--arch',
      'amd64',
      '--cache-dir',
      join(work, 'cache'),
      `docker://127.0.0.1:${regPort}/ocp/release:1.0.0-abc`,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\nDigest: +${digest}\\n`));
    expect(r.stdout).toContain(`\n\nPull From: 127.0.0.1:${regPort}/ocp/release@${digest}\n`);
    expect(r.stderr).toMatch(/downloaded .* MiB \(100%\)/);
  });

  it('extract writes manifests/ and release-manifests/', async () => {
    const to = join(work, 'out');
    const r = await cli('payload', 'extract', layout, '--to', to);
    expect(r.code).toBe(0);
    expect((await readdir(join(to, 'release-manifests'))).sort()).toEqual([
      '0000_10_a_file',
      '0000_10_a_file.json',
      '0000_10_a_file.yaml',
      '0000_10_a_file.yml',
      '0000_20_a_exclude.yml',
      'image-references',
      'release-metadata',
    ]);
    const again = await cli('payload', 'info', '--json', to);
    expect(JSON.parse(again.stdout)['versionHash']).toBe(
      JSON.parse((await cli('payload', 'info', '--json', join(PAYLOADS, 'payloadtest'))).stdout)['versionHash'],
    );
  });

  it('manifests with filters and --explain', async () => {
    const r = await cli(
      'payload',
      'manifests',
      '--exclude',
      'exclude-test',
      '--explain',
      join(PAYLOADS, 'payloadtest'),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3 included, 1 excluded; version hash DL-FFQ2Uem8=');
    expect(r.stdout).toMatch(
      /0000_20_a_exclude\.yml .*exclude-identifier: exclude\.release\.openshift\.io\/exclude-test=true/,
    );
    const g = await cli(
      'payload',
      'manifests',
      '--json',
      '--explain',
      '--feature-gates',
      'ExperimentalFeature',
      join(PAYLOADS, 'featuregatetest'),
    );
    const j = JSON.parse(g.stdout) as { included: { name: string }[]; excluded: unknown[] };
    expect(j.included.map((m) => m.name)).toEqual(['always-included', 'experimental-feature', 'legacy-excluded']);
    const h = await cli('payload', 'manifests', '--profile', 'hypershift', '--explain', join(PAYLOADS, 'paralleltest'));
    expect(h.stdout).toContain('include.release.openshift.io/hypershift unset');
    const bad = await cli('payload', 'manifests', '--baseline-capability-set', 'v9', join(PAYLOADS, 'paralleltest'));
    expect(bad.code).toBe(2);
  });

  it('diff between two payloads', async () => {
    const r = await cli('payload', 'diff', join(PAYLOADS, 'payloadtest'), join(PAYLOADS, 'payloadtest-2'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Version: 1.0.0-abc -> 1.0.1-abc');
    expect(r.stdout).toContain('- /Test//file-20-yml (release-manifests/0000_20_a_exclude.yml)');
    const j = JSON.parse(
      (await cli('payload', 'diff', '--json', join(PAYLOADS, 'payloadtest'), join(PAYLOADS, 'payloadtest-2'))).stdout,
    ) as { previous: { added: string[]; removed: string[] } };
    expect(j.previous).toEqual({ added: ['1.0.0-abc'], removed: ['1.1.1', '1.2.2'] });
  });

  it('verify reports the key and store, or every failure', async () => {
    const ok = await cli('payload', 'verify', layout, '--keyring', join(work, 'pub.gpg'), '--store', sigBase);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`verified ${digest}`);
    expect(ok.stdout).toContain(`from ${sigBase}`);
    const bad = await cli(
      'payload',
      'verify',
      join(PAYLOADS, 'payloadtest'),
      '--digest',
      'sha256:' + '0'.repeat(64),
      '--keyring',
      join(work, 'pub.gpg'),
      '--store',
      sigBase,
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('NOT verified');
    expect(bad.stdout).toContain('no signatures found');
    const usage = await cli(
      'payload',
      'verify',
      join(PAYLOADS, 'payloadtest'),
      '--keyring',
      join(work, 'pub.gpg'),
      '--store',
      sigBase,
    );
    expect(usage.code).toBe(2);
  });

  it('reports integrity errors naming every bad file', async () => {
    const dir = join(work, 'broken');
    await mkdir(join(dir, 'manifests'), { recursive: true });
    await mkdir(join(dir, 'release-manifests'), { recursive: true });
    await writeFile(
      join(dir, 'release-manifests/release-metadata'),
      '{"kind":"cincinnati-metadata-v0","version":"1.0.0"}',
    );
    await writeFile(
      join(dir, 'release-manifests/image-references'),
      '{"kind":"ImageStream","apiVersion":"image.openshift.io/v1","metadata":{"name":"1.0.0"}}',
    );
    await writeFile(join(dir, 'release-manifests/a.yaml'), 'kind: [');
    await writeFile(join(dir, 'release-manifests/b.yaml'), 'kind: A\nmetadata: {}\n');
    const r = await cli('payload', 'info', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('release-manifests/a.yaml:');
    expect(r.stderr).toContain('release-manifests/b.yaml:1');
  });
});

/** The same CLI against a real docker-registry serving HTTPS with a certificate from a CA made here with openssl. */
describe('keelson payload over TLS', { timeout: 60_000 }, () => {
  let tlsRegistry: ChildProcess | undefined;
  let host = '';
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keelson-payload-tls-'));
    const port = await new Promise<number>((res) => {
      const s = netServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => res(p));
      });
    });
    host = `127.0.0.1:${port}`;
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=keelson cli test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    ssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    );
    await writeFile(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    ssl(
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
    await mkdir(join(dir, 'certs'));
    await copyFile(join(dir, 'ca.pem'), join(dir, 'certs', 'ca.crt'));
    await writeFile(
      join(dir, 'registry.yml'),
      `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'storage')}\nhttp:\n  addr: ${host}\n  tls:\n    certificate: ${join(dir, 'server.pem')}\n    key: ${join(dir, 'server.key')}\n`,
    );
    tlsRegistry = spawn('/usr/bin/docker-registry', ['serve', join(dir, 'registry.yml')], { stdio: 'ignore' });
    const ca = await readFile(join(dir, 'ca.pem'), 'utf8');
    for (let i = 0; i < 100; i++) {
      const ok = await new Promise<boolean>((res) => {
        const s = tlsConnect({ host: '127.0.0.1', port, ca }, () => {
          s.end();
          res(true);
        });
        s.on('error', () => res(false));
      });
      if (ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    execFileSync('skopeo', [
      '--insecure-policy',
      'copy',
      '--quiet',
      '--dest-tls-verify=false',
      `oci:${layout}:release`,
      `docker://${host}/ocp/release:1.0.0-abc`,
    ]);
  }, 60_000);
  afterAll(async () => {
    await stop(tlsRegistry);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('info with --ca-file or --cert-dir verifies the registry certificate', async () => {
    const r = await cli(
      'payload',
      'info',
      '--ca-file',
      join(dir, 'ca.pem'),
      '--cache-dir',
      join(dir, 'c1'),
      `docker://${host}/ocp/release:1.0.0-abc`,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Digest:    ${digest}`);
    const c = await cli(
      'payload',
      'manifests',
      '--cert-dir',
      join(dir, 'certs'),
      '--cache-dir',
      join(dir, 'c2'),
      `docker://${host}/ocp/release@${digest}`,
    );
    expect(c.code).toBe(0);
    expect(c.stdout).toContain('0000_10_a_file');
  });

  it('fails clearly without the CA and works with --tls-verify=false / --insecure', async () => {
    const r = await cli('payload', 'info', '--cache-dir', join(dir, 'c3'), `docker://${host}/ocp/release:1.0.0-abc`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`RegistryTLSError: cannot verify the TLS certificate of registry ${host}`);
    expect(r.stderr).toContain('--ca-file');
    const off = await cli(
      'payload',
      'info',
      '--tls-verify=false',
      '--cache-dir',
      join(dir, 'c4'),
      `docker://${host}/ocp/release:1.0.0-abc`,
    );
    expect(off.code).toBe(0);
    expect(off.stdout).toContain(`Digest:    ${digest}`);
    const ins = await cli(
      'payload',
      'info',
      '--insecure',
      '--cache-dir',
      join(dir, 'c5'),
      `docker://${host}/ocp/release:1.0.0-abc`,
    );
    expect(ins.code).toBe(0);
    const bad = await cli('payload', 'info', '--tls-verify=maybe', `docker://${host}/ocp/release:1.0.0-abc`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tls-verify');
  });
});

describe('keelson payload info as oc adm release info', { timeout: 60_000 }, () => {
  it('upgrades in SemVer order, images as digests, --pullspecs, --commits', async () => {
    const dir = join(work, 'oc-layout');
    await mkdir(join(dir, 'manifests'), { recursive: true });
    await mkdir(join(dir, 'release-manifests'), { recursive: true });
    await writeFile(
      join(dir, 'release-manifests/release-metadata'),
      JSON.stringify({
        kind: 'cincinnati-metadata-v0',
        version: '4.18.8',
        previous: ['4.18.7', '4.17.11', '4.17.2', '4.18.0-rc.1', '4.18.0'],
        metadata: { url: 'https://errata/4.18.8', empty: '' },
      }),
    );
    const a = 'a'.repeat(64);
    await writeFile(
      join(dir, 'release-manifests/image-references'),
      `kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 4.18.8\nspec:\n  tags:\n  - name: cli\n    annotations:\n      io.openshift.build.source-location: https://github.com/openshift/oc\n      io.openshift.build.commit.id: 0123456789abcdef\n    from:\n      kind: DockerImage\n      name: quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${a}\n`,
    );
    const r = await cli('payload', 'info', dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('  Upgrades: 4.17.2, 4.17.11, 4.18.0-rc.1, 4.18.0, 4.18.7\n');
    expect(r.stdout).toContain('  Metadata:\n    url: https://errata/4.18.8\n');
    expect(r.stdout).not.toContain('empty');
    expect(r.stdout).toContain(`Images:\n  NAME DIGEST\n  cli  sha256:${a}\n`);
    expect((await cli('payload', 'info', '--pullspecs', dir)).stdout).toContain(
      `  NAME PULL SPEC\n  cli  quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${a}\n`,
    );
    expect((await cli('payload', 'info', '--commits', dir)).stdout).toContain(
      '  NAME REPO                            COMMIT\n  cli  https://github.com/openshift/oc 0123456789abcdef\n',
    );
    expect((await cli('payload', 'info', '--commits', '--pullspecs', dir)).code).toBe(2);
  });
});
