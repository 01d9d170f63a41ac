import { mkdtemp, mkdir, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  filterManifests,
  openPayload,
  PayloadIntegrityError,
  PayloadError,
  renderTemplate,
  versionHash,
  Fnv1Hash64,
  parseReleaseMetadata,
  DEFAULT_CLUSTER_PROFILE,
} from '../src/index.js';

const DATA = fileURLToPath(new URL('./fixtures/upstream/payload/', import.meta.url));

async function makePayload(files: Record<string, string>, version = '4.18.1'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rp-load-'));
  await mkdir(join(dir, 'manifests'));
  await mkdir(join(dir, 'release-manifests'));
  await writeFile(
    join(dir, 'release-manifests/release-metadata'),
    JSON.stringify({ kind: 'cincinnati-metadata-v0', version }),
  );
  await writeFile(
    join(dir, 'release-manifests/image-references'),
    `kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: ${version}\nspec:\n  tags:\n  - name: cli\n    from:\n      kind: DockerImage\n      name: quay.io/x/cli@sha256:aa\n`,
  );
  for (const [k, v] of Object.entries(files)) await writeFile(join(dir, k), v);
  return dir;
}

describe('FNV-1 64', () => {
  it('matches the reference FNV-1 64 vectors', () => {
    const hex = (s: string) => Buffer.from(new Fnv1Hash64().update(Buffer.from(s)).digest()).toString('hex');
    expect(hex('')).toBe('cbf29ce484222325');
    expect(hex('a')).toBe('af63bd4c8601b7be');
    expect(hex('foobar')).toBe('340d8765a4dda9c2');
  });
  it('encodes base64url with padding', () => {
    expect(versionHash([])).toBe('y_Kc5IQiIyU=');
  });
});

describe('directory payload (upstream TestLoadUpdate)', () => {
  it('loads payloadtest: ignores extension-less files, metadata, raw bytes and hash', async () => {
    const p = await openPayload(join(DATA, 'payloadtest'), { releaseImage: 'image:1' });
    expect(p.metadata.version).toBe('1.0.0-abc');
    expect(p.metadata.url).toBe('https://example.com/v1.0.0-abc');
    expect(p.metadata.channels).toEqual(['channel-a', 'channel-b', 'channel-c']);
    expect(p.metadata.previous).toEqual(['1.1.1', '1.2.2']);
    expect(p.metadata.semver.prerelease).toEqual(['abc']);
    expect(p.metadata.architecture).toBeUndefined();
    expect(p.imageReferences.name).toBe('1.0.0-abc');
    expect(p.manifests.map((m) => m.filename)).toEqual([
      '0000_10_a_file.json',
      '0000_10_a_file.yaml',
      '0000_10_a_file.yml',
      '0000_20_a_exclude.yml',
    ]);
    const r = filterManifests(p, {
      excludeIdentifier: 'exclude-test',
      featureSet: '',
      profile: DEFAULT_CLUSTER_PROFILE,
      enabledFeatureGates: [],
    });
    expect(r.included.map((m) => m.name)).toEqual(['file-json', 'file-yaml', 'file-yml']);
    expect(r.excluded).toHaveLength(1);
    expect(r.excluded[0]!.reason).toEqual({
      rule: 'exclude-identifier',
      message: 'exclude.release.openshift.io/exclude-test=true',
    });
    const json = await readFile(join(DATA, 'payloadtest/release-manifests/0000_10_a_file.json'));
    expect(Buffer.from(r.included[0]!.raw).equals(json)).toBe(true);
    expect(Buffer.from(r.included[1]!.raw).toString()).toBe(
      '{"apiVersion":"v1","kind":"Test","metadata":{"annotations":{"include.release.openshift.io/self-managed-high-availability":"true"},"name":"file-yaml"}}',
    );
    expect(r.included[0]!.gvk).toEqual({ group: '', version: 'v1', kind: 'Test' });
    expect(r.versionHash).toBe('DL-FFQ2Uem8=');
  });

  it('loads payloadtestarch with Multi architecture and its hash', async () => {
    const p = await openPayload(join(DATA, 'payloadtestarch'));
    expect(p.metadata.architecture).toBe('Multi');
    const r = filterManifests(p, {
      excludeIdentifier: 'exclude-test',
      featureSet: '',
      profile: DEFAULT_CLUSTER_PROFILE,
      enabledFeatureGates: [],
    });
    expect(r.versionHash).toBe('fvnVhLw92pE=');
  });

  it('skips a manifests/ template with an unknown field, with a warning', async () => {
    const p = await openPayload(join(DATA, 'payload-unknown-template'), { releaseImage: 'image:test' });
    expect(p.manifests.map((m) => m.filename)).toEqual(['0000_00_valid.yaml']);
    expect((p.manifests[0]!.object['data'] as Record<string, string>)['release-image']).toBe('image:test');
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0]).toContain('0000_50_unknown-field.yaml');
    expect(p.warnings[0]).toContain("can't evaluate field FutureField");
  });

  it('reports every malformed file and line at once', async () => {
    const dir = await makePayload({
      'release-manifests/0000_10_ok.yaml': 'kind: A\napiVersion: v1\nmetadata:\n  name: a\n',
      'release-manifests/0000_20_bad.yaml':
        'kind: A\napiVersion: v1\nmetadata:\n  name: b\n---\nkind: B\nmetadata: [unclosed\n',
      'release-manifests/0000_30_noname.yaml': 'kind: A\napiVersion: v1\nmetadata: {}\n',
      'release-manifests/0000_40_dup.yaml':
        'kind: A\napiVersion: v1\nmetadata:\n  name: x\n---\nkind: A\napiVersion: v1\nmetadata:\n  name: x\n',
      'release-manifests/0000_50_bad.json': '{"kind": "A", ',
    });
    const err = await openPayload(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadIntegrityError);
    const e = err as PayloadIntegrityError;
    expect(e.code).toBe('UpdatePayloadIntegrity');
    const files = e.issues.map((i) => `${i.file}:${i.line}`);
    expect(
      files.some((f) => f === 'release-manifests/0000_20_bad.yaml:7' || f === 'release-manifests/0000_20_bad.yaml:8'),
    ).toBe(true);
    expect(files).toContain('release-manifests/0000_30_noname.yaml:1');
    expect(files).toContain('release-manifests/0000_40_dup.yaml:6');
    expect(files).toContain('release-manifests/0000_50_bad.json:1');
    expect(e.message).toContain('0000_30_noname.yaml');
  });

  it('splits multi-document YAML in order, skips empty/null docs, ignores subdirectories', async () => {
    const dir = await makePayload({
      'release-manifests/0000_10_multi.yaml':
        '---\n# only a comment\n---\nkind: A\napiVersion: g.io/v1\nmetadata:\n  name: one\n  namespace: ns\n---\nnull\n---\nkind: B\napiVersion: v1\nmetadata:\n  name: two\n',
      'release-manifests/0000_05_first.json':
        '{"kind":"C","apiVersion":"v1","metadata":{"name":"c"}}\n{"kind":"D","apiVersion":"v1","metadata":{"name":"d"}}',
    });
    await mkdir(join(dir, 'release-manifests/sub'));
    await writeFile(join(dir, 'release-manifests/sub/x.yaml'), 'not: [valid');
    const p = await openPayload(dir);
    expect(p.manifests.map((m) => m.id)).toEqual(['/C//c', '/D//d', 'g.io/A/ns/one', '/B//two']);
    expect(p.manifests[2]!.line).toBe(4);
    expect(p.manifests[2]!.namespace).toBe('ns');
  });

  it('validates release-metadata', () => {
    expect(() => parseReleaseMetadata('{"kind":"x","version":"1.0.0"}')).toThrow(
      /unrecognized Cincinnati metadata kind/,
    );
    expect(() => parseReleaseMetadata('{"kind":"cincinnati-metadata-v0"}')).toThrow(/missing required/);
    expect(() => parseReleaseMetadata('{"kind":"cincinnati-metadata-v0","version":"v1.0.0"}')).toThrow(
      /invalid Cincinnati metadata version/,
    );
    expect(() => parseReleaseMetadata('{"kind":"cincinnati-metadata-v0","version":"4.18"}')).toThrow(PayloadError);
    expect(parseReleaseMetadata('{"kind":"cincinnati-metadata-v0","version":"4.18.0+build.1"}').semver.build).toEqual([
      'build',
      '1',
    ]);
  });

  it('release.openshift.io/architecture: only "multi", as upstream\'s CVO (loadReleaseFromMetadata) accepts', () => {
    const md = (arch: unknown): string =>
      JSON.stringify({
        kind: 'cincinnati-metadata-v0',
        version: '4.18.7',
        metadata: { 'release.openshift.io/architecture': arch },
      });
    expect(parseReleaseMetadata(md('multi')).architecture).toBe('Multi');
    expect(() => parseReleaseMetadata(md('amd64'))).toThrow(
      'Architecture from release-metadata (4.18.7) contains invalid value: "amd64". Valid value is "multi".',
    );
    expect(() => parseReleaseMetadata(md('Multi'))).toThrow(/contains invalid value: "Multi"/);
    expect(() => parseReleaseMetadata(md(1))).toThrow('Architecture from release-metadata (4.18.7) is not a string: 1');
    try {
      parseReleaseMetadata(md('amd64'));
    } catch (e) {
      expect(e).toBeInstanceOf(PayloadError);
      expect((e as PayloadError).code).toBe('InvalidReleaseMetadata');
    }
    expect(
      parseReleaseMetadata('{"kind":"cincinnati-metadata-v0","version":"4.18.7","metadata":{}}').architecture,
    ).toBeUndefined();
  });

  it('rejects mismatched image-references name and missing files', async () => {
    const dir = await makePayload({});
    await writeFile(
      join(dir, 'release-manifests/image-references'),
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 9.9.9\n',
    );
    await expect(openPayload(dir)).rejects.toThrow(/differs from release-metadata/);
    await expect(openPayload(join(DATA, 'payloadcapabilitytest'))).rejects.toThrow(PayloadError);
  });
});

describe('template rendering', () => {
  const cfg = { ReleaseImage: 'quay.io/cvo/release:latest', ClusterProfile: 'some-profile', Images: {} };
  it('renders the CVO deployment exactly like upstream TestRenderManifest', async () => {
    const tpl = await readFile(
      fileURLToPath(
        new URL('./fixtures/upstream/install/0000_00_cluster-version-operator_30_deployment.yaml', import.meta.url),
      ),
      'utf8',
    );
    const expected = await readFile(join(DATA, 'TestRenderManifest_expected_cvo_deployment.yaml'), 'utf8');
    expect(renderTemplate(tpl, cfg)).toBe(expected);
  });
  it('supports index, string literals, comments and trim markers', () => {
    const c = { ...cfg, Images: { cli: 'q/cli@sha256:1' } };
    expect(renderTemplate('a: {{ index .Images "cli" }}', c)).toBe('a: q/cli@sha256:1');
    expect(renderTemplate('m: {{ "{{ $labels.name }}" }}', c)).toBe('m: {{ $labels.name }}');
    expect(renderTemplate('x {{- /* c */ -}} y', c)).toBe('xy');
    expect(() => renderTemplate('a\nb: {{ .Nope }}', c, 'f.yaml')).toThrow(/f.yaml:2: .*can't evaluate field Nope/);
    expect(() => renderTemplate('{{ if .X }}', c)).toThrow(/not defined/);
  });
});

describe('YAML hostile input', () => {
  it('refuses alias bombs and cycles as integrity issues', async () => {
    const { parseManifestFile } = await import('../src/index.js');
    let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++)
      bomb += `a${i}: &a${i} [*a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}]\n`;
    const issues: { file: string; line?: number; message: string }[] = [];
    expect(parseManifestFile(`kind: A\nmetadata: {name: x}\n${bomb}`, 'b.yaml', 'release-manifests', issues)).toEqual(
      [],
    );
    expect(issues[0]!.message).toMatch(/too many nodes/);
  });
  it('resolves scalars like Go yaml.v2 (YAML 1.1 booleans/octal, timestamps as strings)', async () => {
    const { parseManifestFile } = await import('../src/index.js');
    const [m] = parseManifestFile(
      'kind: A\nmetadata: {name: x}\nd: {a: 0755, b: yes, c: 2020-01-01, e: "<&>"}\n',
      'f.yaml',
      'release-manifests',
      [],
    );
    expect(Buffer.from(m!.raw).toString()).toBe(
      '{"d":{"a":493,"b":true,"c":"2020-01-01","e":"\\u003c\\u0026\\u003e"},"kind":"A","metadata":{"name":"x"}}',
    );
  });
});
