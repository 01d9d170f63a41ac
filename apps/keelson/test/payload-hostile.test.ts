/**
 * `keelson payload info|extract|manifests|diff` and `graph serve --payload` on a tampered OCI layout (issue 14 item 1):
 * every command fails with the digest-mismatch error and exit code 1, prints nothing on stdout and leaves no temporary
 * directory. Real child processes; the layout is built here.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Run } from './cli-helpers.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A ustar archive of the given regular files (enough for a payload layer). */
function tar(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const h = Buffer.alloc(512);
    h.write(name, 0);
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(data.length.toString(8).padStart(11, '0') + '\0', 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0', 257);
    h.write('00', 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

async function tamperedLayout(root: string): Promise<void> {
  await mkdir(join(root, 'blobs/sha256'), { recursive: true });
  const put = async (b: Buffer) => {
    await writeFile(join(root, 'blobs/sha256', sha(b)), b);
    return `sha256:${sha(b)}`;
  };
  const layer = gzipSync(
    tar({
      'release-manifests/release-metadata': JSON.stringify({
        kind: 'cincinnati-metadata-v0',
        version: '1.0.0-abc',
        previous: [],
      }),
      'release-manifests/image-references':
        'kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0-abc\n',
      'release-manifests/0000_10_a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n',
    }),
  );
  const cfg = Buffer.from(
    JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [] } }),
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
  const md = await put(manifest);
  await writeFile(join(root, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  await writeFile(
    join(root, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: md, size: manifest.length }],
    }),
  );
  // the tampering of issue 14: one byte appended to the gzip layer blob
  await appendFile(join(root, 'blobs/sha256', sha(layer)), Buffer.from([0x41]));
}

let work = '';
let privTmp = '';
let layout = '';

function run(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, TMPDIR: privTmp }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'keelson-cli-hostile-'));
  privTmp = join(work, 'tmp');
  await mkdir(privTmp);
  layout = join(work, 'layout');
  await tamperedLayout(layout);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('keelson on a tampered OCI layout', () => {
  const commands: [string, () => string[]][] = [
    ['payload info', () => ['payload', 'info', layout]],
    ['payload extract', () => ['payload', 'extract', layout, '--to', join(work, 'out')]],
    ['payload manifests', () => ['payload', 'manifests', layout]],
    ['payload diff', () => ['payload', 'diff', layout, layout]],
    ['graph serve --payload', () => ['graph', 'serve', '--payload', layout, '--port', '0']],
  ];
  for (const [name, args] of commands) {
    it(`${name} fails with the digest mismatch and leaves nothing behind`, async () => {
      const r = await run(...args());
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/digest|declares/i);
      expect(r.stdout).toBe('');
      expect(await readdir(privTmp)).toEqual([]);
      expect((await readdir(work)).sort()).toEqual(['layout', 'tmp']);
    });
  }
});
