import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyLayerBuffers,
  parseManifestFile,
  PayloadError,
  unpackArchive,
  writePayloadFiles,
  type PayloadIssue,
} from '../src/index.js';
import { tarBuffer, type TarEntry } from './helpers.js';

const hostileName = fc.oneof(
  fc.constantFrom(
    'manifests/a.yaml',
    'release-manifests/release-metadata',
    'manifests/',
    '../x',
    '/etc/passwd',
    'manifests/../../x',
    './manifests/b.yaml',
    'manifests/.wh.a.yaml',
    'manifests/.wh..wh..opq',
    'C:\\x',
    'release-manifests/sub/x.yaml',
    'manifests/\u0000x',
    '',
  ),
  fc.string({ maxLength: 40 }),
  fc
    .array(fc.constantFrom('..', '.', 'manifests', 'release-manifests', 'a', '', '.wh.a'), { maxLength: 6 })
    .map((p) => p.join('/')),
);
const entry: fc.Arbitrary<TarEntry> = fc
  .record({
    name: hostileName,
    type: fc.constantFrom(
      'file',
      'file',
      'file',
      'directory',
      'symlink',
      'link',
      'character-device',
      'block-device',
      'fifo',
    ),
    data: fc.uint8Array({ maxLength: 64 }).map((u) => Buffer.from(u)),
    linkname: hostileName,
  })
  .map((e) =>
    e.type === 'file'
      ? { name: e.name, type: e.type, data: e.data }
      : { name: e.name, type: e.type, linkname: e.linkname },
  );

function mutate(buf: Buffer, flips: number[], cut: number): Buffer {
  const b = Buffer.from(buf.subarray(0, Math.max(0, buf.length - cut)));
  for (const f of flips) if (b.length > 0) b[f % b.length] = (b[f % b.length] ?? 0) ^ 0xff;
  return b;
}

async function buildCase(entries: TarEntry[], mode: number, flips: number[], cut: number): Promise<Buffer> {
  let b: Buffer;
  try {
    b = await tarBuffer(entries);
  } catch {
    b = Buffer.alloc(1024);
  }
  if (mode === 1) b = zlib.gzipSync(b);
  if (mode === 2) b = mutate(b, flips, cut);
  if (mode === 3) b = mutate(zlib.gzipSync(b), flips, cut);
  return b;
}

describe('fuzzing', () => {
  it('tar layer reader: 10 000 hostile layers never crash (only PayloadError)', async () => {
    let errors = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 5 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.nat({ max: 600 }),
        async (entries, mode, flips, cut) => {
          const layer = await buildCase(entries, mode, flips, cut);
          try {
            const t = await applyLayerBuffers([layer], { maxTotalBytes: 4096, maxFiles: 50 });
            const f = t.toPayloadFiles();
            for (const name of [...f.manifests.keys(), ...f.releaseManifests.keys()]) {
              expect(name.includes('/') || name === '..' || name === '.').toBe(false);
            }
          } catch (e) {
            errors++;
            if (!(e instanceof PayloadError)) throw e;
          }
        },
      ),
      { numRuns: 10_000, seed: 7 },
    );
    expect(errors).toBeGreaterThan(0);
  }, 120_000);

  it('archive unpacking and payload writing never write outside the destination', async () => {
    const sandbox = await mkdtemp(join(tmpdir(), 'rp-fuzz-'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 4 }),
        fc.integer({ min: 0, max: 2 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.nat({ max: 300 }),
        async (entries, mode, flips, cut) => {
          const id = n++;
          const arch = join(sandbox, `a${id}.tar`);
          await writeFile(arch, await buildCase(entries, mode === 1 ? 0 : mode, flips, cut));
          const dest = join(sandbox, `d${id}`);
          const { mkdir } = await import('node:fs/promises');
          await mkdir(dest);
          try {
            await unpackArchive(arch, dest, { maxFiles: 20, maxLayerBytes: 1 << 16 });
          } catch (e) {
            if (!(e instanceof PayloadError)) throw e;
          }
          try {
            const t = await applyLayerBuffers([await buildCase(entries, 0, [], 0)]);
            await writePayloadFiles(t.toPayloadFiles(), join(dest, 'out'));
          } catch (e) {
            if (!(e instanceof PayloadError)) throw e;
          }
        },
      ),
      { numRuns: 500, seed: 11 },
    );
    // only our own archives and destination directories exist at the top of the sandbox
    const top = await readdir(sandbox);
    expect(top.every((x) => /^(a|d)\d+(\.tar)?$/.test(x))).toBe(true);
    expect(top.length).toBe(1000);
  }, 120_000);

  it('YAML/JSON manifest loader: 10 000 hostile documents never throw', () => {
    const fragments = fc.constantFrom(
      '---\n',
      'kind: A\n',
      'apiVersion: v1\n',
      'metadata:\n  name: x\n',
      '  annotations: {a: 1}\n',
      '&a [*a]\n',
      '*b\n',
      '{"kind":',
      '"x"}',
      '!!binary aGk=\n',
      '? [a]\n: b\n',
      '<<: *a\n',
      'null\n',
      '[1, 2\n',
      '\t\n',
      '%YAML 1.2\n',
      'a: &x {b: *x}\n',
      ':\n',
      '- - -\n',
      '0o17: 0x1F\n',
    );
    const doc = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.array(fragments, { maxLength: 12 }).map((a) => a.join('')),
      fc.json(),
    );
    let issues = 0;
    fc.assert(
      fc.property(doc, (text) => {
        const found: PayloadIssue[] = [];
        const ms = parseManifestFile(text, 'f.yaml', 'release-manifests', found);
        issues += found.length;
        for (const m of ms) {
          expect(typeof m.name).toBe('string');
          expect(m.raw).toBeInstanceOf(Uint8Array);
        }
        for (const i of found) expect(i.file).toBe('release-manifests/f.yaml');
      }),
      { numRuns: 10_000, seed: 3 },
    );
    expect(issues).toBeGreaterThan(0);
  }, 120_000);
});
