/**
 * Hostile-input suite, part 1: tampered blobs must fail with the typed `DigestMismatch` error in every source form
 * and leave no temporary directory behind (issue 14 items 1 and 2). The registry form uses a small loopback server
 * speaking the distribution API: a real registry refuses to store a blob whose digest does not match, so a hostile
 * registry can only be played by a stand-in.
 */
import { appendFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPayload, PayloadError, UnsafeArchiveError } from '../../src/index.js';
import { tarDir } from '../helpers.js';
import { dockerArchiveDir, layout, tmp } from './fixtures.js';

let privateTmp = '';
const savedTmp = process.env['TMPDIR'];

beforeAll(async () => {
  // a private TMPDIR: the check "nothing left behind" must not see other processes' directories
  privateTmp = await tmp();
  process.env['TMPDIR'] = privateTmp;
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = savedTmp;
  await rm(privateTmp, { recursive: true, force: true });
});

/** Temporary directories of the library (`keelson-*`) left in the private TMPDIR. */
async function leftovers(): Promise<string[]> {
  return (await readdir(privateTmp)).filter((n) => n.startsWith('keelson-'));
}

async function expectMismatch(
  source: string,
  opts: Parameters<typeof openPayload>[1] = {},
): Promise<UnsafeArchiveError> {
  const err = await openPayload(source, opts).then(
    () => new Error('accepted a tampered payload'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnsafeArchiveError);
  expect((err as PayloadError).code).toBe('DigestMismatch');
  expect((err as Error).message).not.toMatch(/Digest already called/);
  expect(await leftovers()).toEqual([]);
  return err as UnsafeArchiveError;
}

describe('tampered layers', () => {
  it('OCI layout: one byte appended to the gzip layer blob', async () => {
    const l = await layout(join(await tmp(), 'l'));
    await appendFile(l.layerBlob, Buffer.from([0x41]));
    const e = await expectMismatch(l.root);
    expect(e.message).toMatch(/declares|digest mismatch/);
  });

  it('OCI layout: a byte changed inside the layer (same size)', async () => {
    const l = await layout(join(await tmp(), 'l'));
    const data = await readFile(l.layerBlob);
    data[20] = (data[20] ?? 0) ^ 0x01;
    await writeFile(l.layerBlob, data);
    await expectMismatch(l.root);
  });

  it('OCI layout: a tampered manifest blob', async () => {
    const l = await layout(join(await tmp(), 'l'));
    await appendFile(join(l.root, 'blobs/sha256', l.manifestDigest.slice(7)), ' ');
    await expectMismatch(l.root);
  });

  it('oci-archive: one byte appended to the layer blob', async () => {
    const l = await layout(join(await tmp(), 'l'));
    await appendFile(l.layerBlob, Buffer.from([0x00]));
    const arch = join(await tmp(), 'release.tar');
    await writeFile(arch, await tarDir(l.root));
    await expectMismatch(arch);
    await expectMismatch(`oci-archive:${arch}`);
  });

  for (const compress of [true, false]) {
    it(`docker-archive: a ${compress ? 'gzip' : 'plain'} layer that does not match rootfs.diff_ids`, async () => {
      const root = await dockerArchiveDir(await tmp(), compress, (layer) => {
        if (!compress) {
          const b = Buffer.from(layer);
          const at = b.indexOf('name: a');
          b.write('name: b', at);
          return b;
        }
        // recompress a changed tar: a valid gzip stream whose content differs from the diff_id
        return Buffer.concat([layer.subarray(0, layer.length - 8), Buffer.from([1, 2, 3, 4, 5, 6, 7, 8])]);
      });
      const arch = join(await tmp(), 'docker.tar');
      await writeFile(arch, await tarDir(root));
      const e = await openPayload(`docker-archive:${arch}`).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(PayloadError);
      expect((e as PayloadError).code).toMatch(compress ? /DigestMismatch|UnsafeArchive/ : /DigestMismatch/);
      expect(await leftovers()).toEqual([]);
    });
  }

  it('docker-archive: a gzip layer whose tar content was changed and recompressed', async () => {
    const zlib = await import('node:zlib');
    const root = await dockerArchiveDir(await tmp(), true, (layer) => {
      const t = Buffer.from(zlib.gunzipSync(layer));
      t.write('name: z', t.indexOf('name: a'));
      return zlib.gzipSync(t);
    });
    const arch = join(await tmp(), 'docker.tar');
    await writeFile(arch, await tarDir(root));
    const e = await expectMismatch(`docker-archive:${arch}`);
    expect(e.message).toMatch(/diff_ids/);
  });

  it('docker-archive without rootfs.diff_ids is refused (its layers cannot be verified)', async () => {
    const root = await dockerArchiveDir(await tmp(), false);
    await writeFile(join(root, 'cfg.json'), JSON.stringify({ architecture: 'amd64', os: 'linux' }));
    const arch = join(await tmp(), 'docker.tar');
    await writeFile(arch, await tarDir(root));
    await expect(openPayload(`docker-archive:${arch}`)).rejects.toMatchObject({ code: 'InvalidImageLayout' });
  });
});

describe('tampered registry blobs', () => {
  let server: Server;
  let root = '';
  let port = 0;
  beforeAll(async () => {
    const l = await layout(join(await tmp(), 'l'));
    root = l.root;
    await appendFile(l.layerBlob, Buffer.from([0x41]));
    const index = JSON.parse(await readFile(join(root, 'index.json'), 'utf8')) as { manifests: { digest: string }[] };
    const top = index.manifests[0]?.digest ?? '';
    server = createServer((req, res) => {
      const url = req.url ?? '';
      if (url === '/v2/') return void res.writeHead(200).end('{}');
      const m = /^\/v2\/ocp\/release\/(manifests|blobs)\/(.+)$/.exec(url);
      if (!m) return void res.writeHead(404).end();
      const digest = m[1] === 'manifests' && m[2] === 'latest' ? top : (m[2] ?? '');
      readFile(join(root, 'blobs/sha256', digest.replace(/^sha256:/, ''))).then(
        (b) => {
          const headers: Record<string, string> = { 'content-length': String(b.length) };
          if (m[1] === 'manifests') headers['content-type'] = 'application/vnd.oci.image.manifest.v1+json';
          res.writeHead(200, headers).end(b);
        },
        () => res.writeHead(404).end(),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('registry: a layer blob that does not match its digest, and nothing is cached', async () => {
    const cacheDir = join(await tmp(), 'cache');
    await mkdir(cacheDir);
    await expectMismatch(`docker://127.0.0.1:${port}/ocp/release:latest`, { cacheDir, plainHttp: true, retries: 1 });
    const cached = await readdir(join(cacheDir, 'sha256')).catch(() => []);
    expect(cached.filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
