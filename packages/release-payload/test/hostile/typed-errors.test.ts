/**
 * Hostile-input suite, part 3: every hostile source ends in a typed {@link PayloadError} with a stable code (never a
 * raw SyntaxError, ENOENT, ReferenceError or EMFILE), invalid UTF-8 is rejected with file and byte offset (issue 14
 * item 6), and large manifests parse with correct line numbers (item 4).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  openPayload,
  readImageArchive,
  readOciLayout,
  readPayloadDirectory,
  unpackArchive,
  parseManifestFile,
  PayloadError,
  PayloadIntegrityError,
  renderTemplate,
  TemplateError,
  type PayloadIssue,
} from '../../src/index.js';
import { gz, sha, tarBuffer, tarDir, writeLayout } from '../helpers.js';
import { dockerArchiveDir, layout, payloadDir, payloadEntries, tmp } from './fixtures.js';

type Case = [name: string, make: () => Promise<string>, code: RegExp];

async function layoutWith(edit: (root: string) => Promise<void>): Promise<string> {
  const l = await layout(await tmp());
  await edit(l.root);
  return l.root;
}

async function dockerWith(edit: (root: string) => Promise<void>): Promise<string> {
  const root = await dockerArchiveDir(await tmp(), false);
  await edit(root);
  const arch = join(await tmp(), 'd.tar');
  await writeFile(arch, await tarDir(root));
  return `docker-archive:${arch}`;
}

async function dirWith(edit: (root: string) => Promise<void>): Promise<string> {
  const root = await payloadDir(await tmp());
  await edit(root);
  return root;
}

async function manifestDoc(root: string): Promise<{ path: string; doc: Record<string, unknown> }> {
  const idx = JSON.parse(await readFile(join(root, 'index.json'), 'utf8')) as { manifests: { digest: string }[] };
  const path = join(root, 'blobs/sha256', (idx.manifests[0]?.digest ?? '').slice(7));
  return { path, doc: JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown> };
}

/** Rewrites the image manifest with `edit` and points index.json at the new blob. */
async function editManifest(root: string, edit: (doc: Record<string, unknown>) => unknown): Promise<void> {
  const { doc } = await manifestDoc(root);
  const bytes = Buffer.from(JSON.stringify(edit(doc)));
  await writeFile(join(root, 'blobs/sha256', sha(bytes).slice(7)), bytes);
  await writeFile(
    join(root, 'index.json'),
    JSON.stringify({ schemaVersion: 2, manifests: [{ digest: sha(bytes), size: bytes.length }] }),
  );
}

const cases: Case[] = [
  ['missing source', async () => join(await tmp(), 'nope'), /UnsupportedSource/],
  [
    'index.json is not JSON',
    () => layoutWith((r) => writeFile(join(r, 'index.json'), '{"manifests": [')),
    /InvalidImageLayout/,
  ],
  ['index.json missing', () => layoutWith((r) => rm(join(r, 'index.json'))), /InvalidImageLayout/],
  [
    'oci-layout is not JSON',
    () => layoutWith((r) => writeFile(join(r, 'oci-layout'), 'nope')),
    /InvalidImageLayout|UnsupportedSource/,
  ],
  [
    'index.json manifests is a string',
    () => layoutWith((r) => writeFile(join(r, 'index.json'), '{"manifests":"x"}')),
    /InvalidImageLayout/,
  ],
  [
    'index.json manifest entry is null',
    () => layoutWith((r) => writeFile(join(r, 'index.json'), '{"manifests":[null]}')),
    /InvalidImageLayout/,
  ],
  [
    'index.json digest with another algorithm',
    () => layoutWith((r) => writeFile(join(r, 'index.json'), '{"manifests":[{"digest":"md5:abc"}]}')),
    /InvalidImageLayout/,
  ],
  [
    'manifest blob missing',
    () =>
      layoutWith(async (r) => {
        const { path } = await manifestDoc(r);
        await rm(path);
      }),
    /InvalidImageLayout/,
  ],
  [
    'manifest blob is a directory',
    () =>
      layoutWith(async (r) => {
        const { path } = await manifestDoc(r);
        await rm(path);
        await mkdir(path);
      }),
    /UnsafeArchive/,
  ],
  [
    'manifest layers is an object',
    () => layoutWith((r) => editManifest(r, (d) => ({ ...d, layers: {} }))),
    /InvalidImageLayout/,
  ],
  [
    'manifest config digest is a number',
    () => layoutWith((r) => editManifest(r, (d) => ({ ...d, config: { digest: 7 } }))),
    /InvalidImageLayout/,
  ],
  [
    'layer blob missing',
    () =>
      layoutWith((r) => editManifest(r, (d) => ({ ...d, layers: [{ digest: 'sha256:' + 'e'.repeat(64), size: 3 }] }))),
    /InvalidImageLayout/,
  ],
  [
    'layer that is not a tar (correct digest)',
    async () => {
      const root = await tmp();
      await writeLayout(root, [
        {
          data: Buffer.from('this is not a tar archive at all, just text'.repeat(20)),
          mediaType: 'application/vnd.oci.image.layer.v1.tar',
        },
      ]);
      return root;
    },
    /UnsafeArchive/,
  ],
  [
    'gzip layer truncated (correct digest)',
    async () => {
      const root = await tmp();
      const layer = gz(await tarBuffer(payloadEntries()));
      await writeLayout(root, [{ ...layer, data: layer.data.subarray(0, layer.data.length - 30) }]);
      return root;
    },
    /UnsafeArchive/,
  ],
  [
    'docker-archive manifest.json not JSON',
    () => dockerWith((r) => writeFile(join(r, 'manifest.json'), '[{')),
    /InvalidImageLayout/,
  ],
  [
    'docker-archive manifest.json an object',
    () => dockerWith((r) => writeFile(join(r, 'manifest.json'), '{"Config":"cfg.json"}')),
    /InvalidImageLayout/,
  ],
  ['docker-archive config missing', () => dockerWith((r) => rm(join(r, 'cfg.json'))), /InvalidImageLayout/],
  [
    'docker-archive config not JSON',
    () => dockerWith((r) => writeFile(join(r, 'cfg.json'), '{')),
    /InvalidImageLayout/,
  ],
  ['docker-archive layer missing', () => dockerWith((r) => rm(join(r, 'layer.tar'))), /InvalidImageLayout/],
  [
    'docker-archive Layers hold a number',
    () => dockerWith((r) => writeFile(join(r, 'manifest.json'), '[{"Config":"cfg.json","Layers":[1]}]')),
    /InvalidImageLayout/,
  ],
  [
    'docker-archive Config path escapes',
    () => dockerWith((r) => writeFile(join(r, 'manifest.json'), '[{"Config":"../../etc/passwd","Layers":[]}]')),
    /UnsafeArchive/,
  ],
  [
    'truncated tar file',
    async () => {
      const arch = join(await tmp(), 't.tar');
      const full = await tarBuffer([{ name: 'oci-layout', data: 'x'.repeat(5000) }]);
      await writeFile(arch, full.subarray(0, 1024));
      return arch;
    },
    /UnsafeArchive/,
  ],
  [
    'a FIFO as the source',
    async () => {
      const p = join(await tmp(), 'fifo');
      execFileSync('mkfifo', [p]);
      return p;
    },
    /UnsupportedSource/,
  ],
  [
    'a dangling link in a payload directory',
    () => dirWith((r) => symlink('nowhere.yaml', join(r, 'release-manifests/0000_30_x.yaml'))),
    /PayloadMissingFile/,
  ],
  [
    'release-metadata is a directory',
    () =>
      dirWith(async (r) => {
        await rm(join(r, 'release-manifests/release-metadata'));
        await mkdir(join(r, 'release-manifests/release-metadata'));
      }),
    /PayloadMissingFile/,
  ],
  [
    'release-metadata not JSON',
    () => dirWith((r) => writeFile(join(r, 'release-manifests/release-metadata'), '{')),
    /InvalidReleaseMetadata/,
  ],
  [
    'release-metadata invalid UTF-8',
    () => dirWith((r) => writeFile(join(r, 'release-manifests/release-metadata'), Buffer.from([0x7b, 0xff, 0x7d]))),
    /InvalidReleaseMetadata/,
  ],
  [
    'image-references not YAML',
    () => dirWith((r) => writeFile(join(r, 'release-manifests/image-references'), ': : :\n\t- [')),
    /InvalidImageReferences/,
  ],
];

describe('typed errors for hostile sources', () => {
  for (const [name, make, code] of cases) {
    it(name, async () => {
      const source = await make();
      const e = await openPayload(source).then(
        () => new Error('accepted'),
        (x: unknown) => x,
      );
      expect(e, String(e)).toBeInstanceOf(PayloadError);
      expect((e as PayloadError).code).toMatch(code);
    });
  }

  it('the exported readers raise typed errors too, not raw ENOENT / EISDIR', async () => {
    const missing = join(await tmp(), 'missing');
    const d = await tmp();
    const dest = await tmp();
    const calls: (() => Promise<unknown>)[] = [
      () => readPayloadDirectory(missing),
      () => readOciLayout(missing),
      () => readImageArchive(missing),
      () => unpackArchive(d, dest),
    ];
    for (const call of calls) {
      const e = await call().then(
        () => new Error('accepted'),
        (x: unknown) => x,
      );
      expect(e, String(e)).toBeInstanceOf(PayloadError);
    }
  });

  it('many files in a payload directory are read with bounded concurrency (no EMFILE)', async () => {
    const root = await payloadDir(await tmp());
    for (let i = 0; i < 3000; i++) await writeFile(join(root, 'manifests', `x${i}`), 'not a manifest');
    const p = await openPayload(root);
    expect(p.manifests).toHaveLength(1);
  });
});

describe('invalid UTF-8', () => {
  it('a manifest with an invalid byte is rejected with its file, line and byte offset', async () => {
    const root = await payloadDir(await tmp());
    const bad = Buffer.concat([
      Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: "'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"\n'),
    ]);
    await writeFile(join(root, 'release-manifests/0000_20_bad.yaml'), bad);
    const e = await openPayload(root).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PayloadIntegrityError);
    const issue = (e as PayloadIntegrityError).issues[0] as PayloadIssue;
    expect(issue).toMatchObject({ file: 'release-manifests/0000_20_bad.yaml', line: 6, offset: 63 });
    expect(issue.message).toMatch(/invalid UTF-8 at byte offset 63/);
  });

  it('overlong encodings, surrogates and truncated sequences are invalid too; valid multi-byte text passes', async () => {
    for (const bytes of [
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
    ]) {
      const root = await payloadDir(await tmp());
      await writeFile(join(root, 'manifests/0000_00_x.yaml'), Buffer.concat([Buffer.from('a: "'), Buffer.from(bytes)]));
      await expect(openPayload(root)).rejects.toBeInstanceOf(PayloadIntegrityError);
    }
    const root = await payloadDir(await tmp());
    await writeFile(
      join(root, 'release-manifests/0000_20_ok.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ü€😀\n',
    );
    expect((await openPayload(root)).manifests).toHaveLength(2);
  });
});

describe('large manifests (linear line numbers)', () => {
  it('reports the right line for an action at the end of a 4 MB template', () => {
    const body = 'x: "{{.ReleaseImage}}"\n'.repeat(200_000);
    const cfg = { ReleaseImage: 'r', ClusterProfile: 'p', Images: {} };
    expect(renderTemplate(body, cfg).length).toBe(200_000 * 7);
    const e = (() => {
      try {
        renderTemplate(body + '{{.Nope}}\n', cfg, 'big.yaml');
      } catch (x) {
        return x;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(TemplateError);
    expect((e as TemplateError).line).toBe(200_001);
  });

  it('reports the right line of a bad document at the end of 100 000 concatenated JSON objects', () => {
    const ok = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}\n';
    const text = Array.from({ length: 100_000 }, (_, i) => ok.replace('"a"', `"a${i}"`)).join('') + '{"broken": }\n';
    const issues: PayloadIssue[] = [];
    parseManifestFile(text, 'big.json', 'release-manifests', issues);
    expect(issues[0]?.line).toBe(100_001);
  });

  it('Go trim markers trim only spaces, tabs and newlines, linearly', () => {
    const cfg = { ReleaseImage: 'r', ClusterProfile: 'p', Images: {} };
    expect(renderTemplate('a \t\n {{- .ReleaseImage -}} \n b', cfg)).toBe('arb');
    expect(renderTemplate(' '.repeat(100_000) + 'x{{- .ReleaseImage}}', cfg)).toBe(' '.repeat(100_000) + 'xr');
  });
});
