import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { generatePayload } from '../../src/release/index.js';

const dirs: string[] = [];
async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'payload-gen-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('generatePayload', { timeout: 120_000 }, () => {
  it('writes a full-size realistic payload', async () => {
    const out = await tmp();
    const r = await generatePayload({ out });
    expect(r.manifests).toBeGreaterThanOrEqual(880);
    expect(r.manifests).toBeLessThanOrEqual(950);
    expect(r.components).toBeGreaterThanOrEqual(55);
    expect(r.bytes).toBeGreaterThan(15e6);
    expect(r.bytes).toBeLessThan(20e6);
    expect(r.jobs).toBeGreaterThan(0);
    expect(r.multiDocumentFiles).toBeGreaterThan(50);
    const names = await readdir(join(out, 'release-manifests'));
    expect(names).toContain('image-references');
    expect(names).toContain('release-metadata');
    const re = /^0000_(\d+)_([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*?)_/;
    const levels = new Set(names.map((n) => re.exec(n)?.[1]).filter((x) => x !== undefined));
    expect(levels.has('00')).toBe(true);
    expect(levels.has('90')).toBe(true);
    expect(names.some((n) => n.endsWith('.yaml') && re.exec(n) === null)).toBe(true);

    let docs = 0;
    let jobs = 0;
    let withProfile = 0;
    for (const n of names.filter((x) => x.endsWith('.yaml'))) {
      for (const doc of parseAllDocuments(await readFile(join(out, 'release-manifests', n), 'utf8'))) {
        const obj = doc.toJS() as {
          kind?: string;
          apiVersion?: string;
          metadata?: { name?: string; annotations?: Record<string, string> };
        } | null;
        if (obj === null) continue;
        docs++;
        expect(obj.kind).toBeTruthy();
        expect(obj.metadata?.name).toBeTruthy();
        if (obj.kind === 'Job') {
          expect(obj.apiVersion).toBe('batch/v1');
          jobs++;
        }
        if (obj.metadata?.annotations?.['include.release.openshift.io/self-managed-high-availability'] === 'true')
          withProfile++;
      }
    }
    expect(docs).toBe(r.manifests);
    expect(jobs).toBe(r.jobs);
    expect(withProfile).toBeGreaterThan(docs * 0.9);

    const meta = JSON.parse(await readFile(join(out, 'release-manifests', 'release-metadata'), 'utf8')) as {
      kind: string;
      version: string;
    };
    expect(meta).toMatchObject({ kind: 'cincinnati-metadata-v0', version: '4.18.7' });
    // a single-arch release leaves the key out: the CVO accepts only "multi" there
    expect((meta as { metadata?: Record<string, unknown> }).metadata).not.toHaveProperty([
      'release.openshift.io/architecture',
    ]);
    const is = JSON.parse(await readFile(join(out, 'release-manifests', 'image-references'), 'utf8')) as {
      kind: string;
      metadata: { name: string };
      spec: { tags: unknown[] };
    };
    expect(is.kind).toBe('ImageStream');
    expect(is.metadata.name).toBe('4.18.7');
    expect(is.spec.tags.length).toBeGreaterThan(10);
    const cvo = await readdir(join(out, 'manifests'));
    expect(cvo.length).toBe(r.cvoManifests);
    expect(
      await readFile(join(out, 'manifests', '0000_00_cluster-version-operator_03_deployment.yaml'), 'utf8'),
    ).toContain('{{.ReleaseImage}}');
  });

  it('is deterministic per seed and differs across seeds', async () => {
    const [a, b, c] = [await tmp(), await tmp(), await tmp()];
    await generatePayload({ out: a, seed: 7, components: 12, sizeFactor: 0.1 });
    await generatePayload({ out: b, seed: 7, components: 12, sizeFactor: 0.1 });
    await generatePayload({ out: c, seed: 8, components: 12, sizeFactor: 0.1 });
    const read = async (d: string): Promise<string> => {
      const names = (await readdir(join(d, 'release-manifests'))).sort();
      const parts = await Promise.all(
        names.map(async (n) => `${n}\n${await readFile(join(d, 'release-manifests', n), 'utf8')}`),
      );
      return parts.join('\n');
    };
    const [ta, tb, tc] = [await read(a), await read(b), await read(c)];
    expect(ta).toBe(tb);
    expect(ta).not.toBe(tc);
  });

  it('rejects bad options', async () => {
    await expect(generatePayload({ out: await tmp(), version: 'nope' })).rejects.toThrow(/semantic version/);
    await expect(generatePayload({ out: await tmp(), sizeFactor: 0 })).rejects.toThrow(/sizeFactor/);
  });
});
