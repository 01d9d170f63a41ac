import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import tar from 'tar-stream';

export interface TarEntry {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'block-device' | 'fifo';
  data?: Buffer | string;
  linkname?: string;
}

export async function tarBuffer(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const e of entries) {
    const type = e.type ?? 'file';
    const header: Partial<tar.Header> & { name: string } = {
      name: e.name,
      type,
      mode: type === 'directory' ? 0o755 : 0o644,
      mtime: new Date(0),
    };
    if (e.linkname !== undefined) header.linkname = e.linkname;
    if (type === 'file') {
      await new Promise<void>((res, rej) =>
        pack.entry(header, Buffer.from(e.data ?? ''), (err) => (err ? rej(err) : res())),
      );
    } else {
      await new Promise<void>((res, rej) => pack.entry(header, (err) => (err ? rej(err) : res())));
    }
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

export const sha = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

export async function payloadEntries(dir: string, prefix = ''): Promise<TarEntry[]> {
  const out: TarEntry[] = [];
  for (const sub of ['manifests', 'release-manifests']) {
    out.push({ name: `${prefix}${sub}/`, type: 'directory' });
    for (const n of (await readdir(join(dir, sub))).sort())
      out.push({ name: `${prefix}${sub}/${n}`, data: await readFile(join(dir, sub, n)) });
  }
  return out;
}

export interface Layer {
  data: Buffer;
  mediaType: string;
}

export function gz(b: Buffer): Layer {
  return { data: zlib.gzipSync(b), mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip' };
}
export function zst(b: Buffer): Layer {
  const f = (zlib as unknown as { zstdCompressSync: (b: Buffer) => Buffer }).zstdCompressSync;
  return { data: f(b), mediaType: 'application/vnd.oci.image.layer.v1.tar+zstd' };
}

export async function writeLayout(
  root: string,
  layers: Layer[],
  opts: { labels?: Record<string, string>; arch?: string; refName?: string; index?: boolean } = {},
): Promise<{ manifestDigest: string }> {
  await mkdir(join(root, 'blobs/sha256'), { recursive: true });
  const put = async (b: Buffer) => {
    const d = sha(b);
    await writeFile(join(root, 'blobs/sha256', d.slice(7)), b);
    return d;
  };
  const config = Buffer.from(
    JSON.stringify({
      created: '2026-01-02T03:04:05Z',
      architecture: opts.arch ?? 'amd64',
      os: 'linux',
      config: { Labels: { 'io.openshift.release': '1.0.0-abc', ...(opts.labels ?? {}) } },
      rootfs: { type: 'layers', diff_ids: layers.map((l) => sha(l.data)) },
    }),
  );
  const configDigest = await put(config);
  const layerDescs = [];
  for (const l of layers) layerDescs.push({ mediaType: l.mediaType, digest: await put(l.data), size: l.data.length });
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
      layers: layerDescs,
    }),
  );
  const manifestDigest = await put(manifest);
  let top = {
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    digest: manifestDigest,
    size: manifest.length,
  } as Record<string, unknown>;
  if (opts.index) {
    const idx = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.index.v1+json',
        manifests: [{ ...top, platform: { os: 'linux', architecture: opts.arch ?? 'amd64' } }],
      }),
    );
    top = { mediaType: 'application/vnd.oci.image.index.v1+json', digest: await put(idx), size: idx.length };
  }
  if (opts.refName) top['annotations'] = { 'org.opencontainers.image.ref.name': opts.refName };
  await writeFile(join(root, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(join(root, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests: [top] }));
  return { manifestDigest };
}

/** Tar of a whole directory tree (files only, relative names). */
export async function tarDir(root: string): Promise<Buffer> {
  const entries: TarEntry[] = [];
  const walk = async (rel: string) => {
    for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        entries.push({ name: p + '/', type: 'directory' });
        await walk(p);
      } else entries.push({ name: p, data: await readFile(join(root, p)) });
    }
  };
  await walk('');
  return tarBuffer(entries);
}
