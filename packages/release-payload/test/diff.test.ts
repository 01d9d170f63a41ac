import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffPayloads, diffValues, openPayload } from '../src/index.js';

async function payload(
  version: string,
  previous: string[],
  images: Record<string, [string, string?]>,
  files: Record<string, string>,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rp-diff-'));
  await mkdir(join(dir, 'manifests'));
  await mkdir(join(dir, 'release-manifests'));
  await writeFile(
    join(dir, 'release-manifests/release-metadata'),
    JSON.stringify({ kind: 'cincinnati-metadata-v0', version, previous }),
  );
  const tags = Object.entries(images).map(([name, [spec, versions]]) => ({
    name,
    from: { kind: 'DockerImage', name: spec },
    annotations: versions ? { 'io.openshift.build.versions': versions } : {},
  }));
  await writeFile(
    join(dir, 'release-manifests/image-references'),
    JSON.stringify({
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      metadata: { name: version },
      spec: { tags },
    }),
  );
  for (const [k, v] of Object.entries(files)) await writeFile(join(dir, 'release-manifests', k), v);
  return dir;
}

describe('diffPayloads', () => {
  it('reports manifests, images, OS image, component versions, version and previous', async () => {
    const a = await openPayload(
      await payload(
        '4.18.1',
        ['4.18.0'],
        { cli: ['q/cli@sha256:1'], 'rhel-coreos': ['q/os@sha256:1', 'machine-os=418.1'], old: ['q/old@sha256:1'] },
        {
          '0000_10_a.yaml':
            'kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: a\n  namespace: ns\ndata:\n  x: "1"\n  w: "2"\n',
          '0000_20_gone.yaml': 'kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: gone\n',
          '0000_30_same.yaml': 'kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: same\ndata: {k: v}\n',
        },
      ),
    );
    const b = await openPayload(
      await payload(
        '4.18.2',
        ['4.18.0', '4.18.1'],
        { cli: ['q/cli@sha256:2'], 'rhel-coreos': ['q/os@sha256:2', 'machine-os=418.2'], new: ['q/new@sha256:1'] },
        {
          '0000_10_a.json':
            '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns","name":"a"},"data":{"x":"1","z":"3"}}',
          '0000_30_same.yaml':
            '# reformatted\nkind: ConfigMap\napiVersion: v1\ndata:\n  k: v\nmetadata: {name: same}\n',
          '0000_40_new.yaml': 'kind: Secret\napiVersion: v1\nmetadata:\n  name: new\n',
        },
      ),
    );
    const d = diffPayloads(a, b);
    expect(d.version).toEqual({ from: '4.18.1', to: '4.18.2', changed: true });
    expect(d.previous).toEqual({ added: ['4.18.1'], removed: [] });
    expect(d.manifests.added.map((m) => m.name)).toEqual(['new']);
    expect(d.manifests.removed.map((m) => m.name)).toEqual(['gone']);
    expect(d.manifests.unchanged).toBe(1);
    expect(d.manifests.changed).toEqual([
      {
        id: '/ConfigMap/ns/a',
        fromFile: 'release-manifests/0000_10_a.yaml',
        toFile: 'release-manifests/0000_10_a.json',
        changes: [
          { path: 'data.w', from: '2' },
          { path: 'data.z', to: '3' },
        ],
      },
    ]);
    expect(d.images.map((i) => i.name)).toEqual(['cli', 'new', 'old', 'rhel-coreos']);
    expect(d.osImages).toEqual([{ name: 'rhel-coreos', from: 'q/os@sha256:1', to: 'q/os@sha256:2' }]);
    expect(d.componentVersions).toEqual([{ name: 'machine-os', from: '418.1', to: '418.2' }]);
  });
  it('diffs values structurally', () => {
    expect(diffValues({ a: [1, { b: 2 }], 'x.y': 1 }, { a: [1, { b: 3 }, 4], 'x.y': 1 })).toEqual([
      { path: 'a[1].b', from: 2, to: 3 },
      { path: 'a[2]', to: 4 },
    ]);
    expect(diffValues({ a: 1 }, { a: '1' })).toEqual([{ path: 'a', from: 1, to: '1' }]);
  });
});
