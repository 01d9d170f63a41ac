/**
 * Hostile-input suite, part 2: bombs and endless reads (issue 14 item 3) and links (item 5). Every case must end
 * quickly with a typed error; none may read forever or buffer far beyond the caps.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, lstat, mkdir, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { openPayload, PayloadError, unpackArchive, writePayloadFiles, type PayloadFiles } from '../../src/index.js';
import { gz, sha, tarBuffer, writeLayout } from '../helpers.js';
import { layout, payloadDir, payloadEntries, tmp } from './fixtures.js';

/** A gzip layer whose `manifests/` holds one file of `size` zero bytes, built by streaming (never held in memory). */
async function zeroBombLayer(size: number): Promise<Buffer> {
  const pack = tar.pack();
  const out: Buffer[] = [];
  const gzip = zlib.createGzip({ level: 9 });
  const done = (async () => {
    for await (const c of pack.pipe(gzip)) out.push(c as Buffer);
  })();
  for (const e of payloadEntries()) {
    if (e.type === 'directory') pack.entry({ name: e.name, type: 'directory' });
    else pack.entry({ name: e.name }, Buffer.from(e.data ?? ''));
  }
  const entry = pack.entry({ name: 'manifests/0000_00_zero.yaml', size });
  const chunk = Buffer.alloc(1024 * 1024);
  for (let left = size; left > 0; left -= chunk.length) {
    if (!entry.write(left >= chunk.length ? chunk : chunk.subarray(0, left)))
      await new Promise<void>((r) =>
        entry.once('drain', () => {
          r();
        }),
      );
  }
  (entry as unknown as { end(): void }).end();
  pack.finalize();
  await done;
  return Buffer.concat(out);
}

describe('bombs', () => {
  it('a small layer holding a 255 MiB manifest of zeros is refused by the per-manifest cap before it is buffered', async () => {
    const layer = await zeroBombLayer(255 * 1024 * 1024);
    expect(layer.length).toBeLessThan(1024 * 1024);
    const root = await tmp();
    await writeLayout(root, [{ data: layer, mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip' }]);
    const before = process.memoryUsage().rss;
    const e = await openPayload(root).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PayloadError);
    expect((e as PayloadError).code).toBe('ArchiveLimitExceeded');
    expect((e as Error).message).toMatch(/maxFileBytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it('the total of manifest bytes is capped across files', async () => {
    const files = Array.from({ length: 5 }, (_, i) => ({
      name: `manifests/f${i}.yaml`,
      data: Buffer.alloc(3000, 0x20),
    }));
    const root = await tmp();
    await writeLayout(root, [gz(await tarBuffer(payloadEntries(files)))]);
    const e = await openPayload(root, { limits: { maxTotalBytes: 10_000 } }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'ArchiveLimitExceeded' });
    expect((e as Error).message).toMatch(/maxTotalBytes/);
  });

  it('a layer blob that is a symlink to /dev/zero is refused, not read forever', async () => {
    const l = await layout(await tmp());
    await rm(l.layerBlob);
    await symlink('/dev/zero', l.layerBlob);
    await expect(openPayload(l.root)).rejects.toMatchObject({
      code: 'UnsafeArchive',
      message: expect.stringMatching(/not a regular file/),
    });
  });

  it('a layer blob that is a FIFO is refused without blocking', async () => {
    const l = await layout(await tmp());
    await rm(l.layerBlob);
    execFileSync('mkfifo', [l.layerBlob]);
    await expect(openPayload(l.root)).rejects.toMatchObject({ code: 'UnsafeArchive' });
  });

  it('a blob longer than its descriptor is refused after reading at most size+1 bytes', async () => {
    const l = await layout(await tmp());
    await appendFile(l.layerBlob, Buffer.alloc(4 * 1024 * 1024));
    await expect(openPayload(l.root)).rejects.toMatchObject({ code: 'DigestMismatch' });
  });

  it('an oci-archive with more entries than the cap is refused before anything is written', async () => {
    const entries = Array.from({ length: 1200 }, (_, i) => ({
      name: `blobs/sha256/${String(i).padStart(64, '0')}`,
      data: '',
    }));
    const arch = join(await tmp(), 'many.tar');
    await writeFile(
      arch,
      await tarBuffer([{ name: 'oci-layout', data: '{"imageLayoutVersion":"1.0.0"}' }, ...entries]),
    );
    const dest = await tmp();
    const e = await unpackArchive(arch, dest, { maxArchiveEntries: 1000 }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'ArchiveLimitExceeded', message: expect.stringMatching(/maxArchiveEntries/) });
    expect(await readdir(dest)).toEqual([]);
    await expect(openPayload(arch, { limits: { maxArchiveEntries: 1000 } })).rejects.toMatchObject({
      code: 'ArchiveLimitExceeded',
    });
  });

  it('a duplicate archive entry is refused', async () => {
    const arch = join(await tmp(), 'dup.tar');
    await writeFile(
      arch,
      await tarBuffer([
        { name: 'oci-layout', data: '{}' },
        { name: 'oci-layout', data: '{}' },
      ]),
    );
    await expect(unpackArchive(arch, await tmp())).rejects.toMatchObject({ code: 'UnsafeArchive' });
  });

  it('a descriptor size that is not an integer is refused', async () => {
    const l = await layout(await tmp());
    const blobs = join(l.root, 'blobs/sha256');
    const m = JSON.parse(await readFile(join(blobs, l.manifestDigest.slice(7)), 'utf8')) as {
      layers: { size: unknown }[];
    };
    (m.layers[0] as { size: unknown }).size = 1e300;
    const bytes = Buffer.from(JSON.stringify(m));
    await writeFile(join(blobs, sha(bytes).slice(7)), bytes);
    await writeFile(
      join(l.root, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: sha(bytes), size: bytes.length },
        ],
      }),
    );
    await expect(openPayload(l.root)).rejects.toMatchObject({ code: 'InvalidImageLayout' });
  });
});

describe('links', () => {
  it('a directory source refuses a manifest that links outside the payload', async () => {
    const root = await payloadDir(await tmp());
    await symlink('/etc/passwd', join(root, 'release-manifests/0000_50_passwd.yaml'));
    await expect(openPayload(root)).rejects.toMatchObject({
      code: 'UnsafeArchive',
      message: expect.stringMatching(/outside the payload/),
    });
  });

  it('a directory source refuses manifests/ itself linking outside the payload', async () => {
    const root = await payloadDir(await tmp());
    const elsewhere = await tmp();
    await rm(join(root, 'manifests'), { recursive: true });
    await symlink(elsewhere, join(root, 'manifests'));
    await expect(openPayload(root)).rejects.toMatchObject({ code: 'UnsafeArchive' });
  });

  it('a directory source follows links that stay inside the payload', async () => {
    const root = await payloadDir(await tmp());
    await symlink('0000_10_a.yaml', join(root, 'release-manifests/0000_20_b.yaml'));
    const p = await openPayload(root);
    expect(p.manifests.map((m) => m.filename)).toEqual(['0000_10_a.yaml', '0000_20_b.yaml']);
  });

  it('a FIFO in a directory source is refused without blocking', async () => {
    const root = await payloadDir(await tmp());
    execFileSync('mkfifo', [join(root, 'manifests/0000_00_fifo.yaml')]);
    await expect(openPayload(root)).rejects.toMatchObject({ code: 'UnsafeArchive' });
  });

  const files = (): PayloadFiles => ({
    manifests: new Map([['a.yaml', Buffer.from('x')]]),
    releaseManifests: new Map([['release-metadata', Buffer.from('{}')]]),
  });

  it('extract never writes through a link in the destination', async () => {
    const dest = await tmp();
    const victim = await tmp();
    await symlink(victim, join(dest, 'manifests'));
    await expect(writePayloadFiles(files(), dest)).rejects.toMatchObject({ code: 'ExtractError' });
    expect(await readdir(victim)).toEqual([]);
    expect((await lstat(join(dest, 'manifests'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(dest, 'manifests'))).toBe(victim);
    expect(await readdir(dest)).toEqual(['manifests']);
  });

  it('extract refuses a destination that is itself a link', async () => {
    const parent = await tmp();
    const victim = await tmp();
    await symlink(victim, join(parent, 'out'));
    await expect(writePayloadFiles(files(), join(parent, 'out'))).rejects.toMatchObject({ code: 'ExtractError' });
    expect(await readdir(victim)).toEqual([]);
  });

  it('extract writes beside the destination and renames: no partial output on failure, nothing left beside it', async () => {
    const parent = await tmp();
    const dest = join(parent, 'out');
    expect(await writePayloadFiles(files(), dest)).toBe(2);
    expect(await readdir(parent)).toEqual(['out']);
    expect((await readFile(join(dest, 'manifests/a.yaml'))).toString()).toBe('x');
    // a second extract into the same place is refused and leaves the first intact
    await expect(writePayloadFiles(files(), dest)).rejects.toMatchObject({ code: 'ExtractError' });
    expect(await readdir(parent)).toEqual(['out']);
    // a bad name is refused before anything is written
    const bad: PayloadFiles = {
      manifests: new Map([
        ['ok.yaml', Buffer.from('x')],
        ['../x', Buffer.from('y')],
      ]),
      releaseManifests: new Map(),
    };
    await expect(writePayloadFiles(bad, join(parent, 'out2'))).rejects.toMatchObject({ code: 'UnsafeArchive' });
    expect(await readdir(parent)).toEqual(['out']);
    // an existing empty directory is filled
    await mkdir(join(parent, 'empty'));
    await writePayloadFiles(files(), join(parent, 'empty'));
    expect((await readdir(join(parent, 'empty'))).sort()).toEqual(['manifests', 'release-manifests']);
  });

  it('a layer may not plant a manifest link pointing outside manifests/ and release-manifests/', async () => {
    const root = await tmp();
    await writeLayout(root, [
      gz(
        await tarBuffer(
          payloadEntries([{ name: 'manifests/x.yaml', type: 'symlink', linkname: '../../../../etc/passwd' }]),
        ),
      ),
    ]);
    await expect(openPayload(root)).rejects.toMatchObject({ code: 'UnsafeArchive' });
  });
});
