import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { byNumberAndComponent, createTask, TaskGraph, toDot } from '@keelson/manifest-graph';
import { generatePayload } from '@keelson/payload-gen';
import { BIN, cli, UPSTREAM_PAYLOADS, type Run } from './cli-helpers.js';

const PAYLOADS = UPSTREAM_PAYLOADS;

const dot = (...lines: string[]): string =>
  ['digraph tasks {', '  labelloc=t;', '  rankdir=TB;', ...lines, '}', ''].join('\n');

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`pnpm --filter keelson-cli build\` first`);
});

describe('keelson payload graph on upstream payload trees', { timeout: 60_000 }, () => {
  // Expected outputs derived by hand from upstream's LoadUpdate + Split(SplitOnJobs) +
  // Parallelize(ByNumberAndComponent) + Tree() + fmt.Println for these inputs.
  const expected: Record<string, string> = {
    paralleltest: dot(
      '  0 [ label="no manifests" shape="box" ];',
      '  1 [ label="test 10-a-file (1 of 3)" shape="box" ];',
      '  2 [ label="test 20-a-file (2 of 3)" shape="box" ];',
      '  3 [ label="test 20-b-file (3 of 3)" shape="box" ];',
      '  0 -> 1;',
      '  1 -> 2;',
      '  1 -> 3;',
    ),
    // 0000_10_a_file (no extension) is ignored; .json/.yaml/.yml in byte order; exclude-test not applied.
    payloadtest: dot(
      '  0 [ label="test file-json (1 of 4)\\ntest file-yaml (2 of 4)\\ntest file-yml (3 of 4)\\ntest file-20-yml (4 of 4)" shape="box" ];',
    ),
    // requires a feature gate that is not enabled -> excluded; "-LegacyFeature" -> included.
    featuregatetest: dot(
      '  0 [ label="configmap default/always-included (1 of 2)\\nconfigmap default/legacy-excluded (2 of 2)" shape="box" ];',
    ),
    // version 5 payload: the "4 only" CRD is dropped.
    'majorversiontest-v5': dot(
      '  0 [ label="customresourcedefinition noversion (1 of 4)\\ncustomresourcedefinition version5only (2 of 4)\\ncustomresourcedefinition version4or5 (3 of 4)\\ncustomresourcedefinition excludeversion3 (4 of 4)" shape="box" ];',
    ),
    // the CVO manifest using an unknown template field is skipped, the valid one is rendered and kept.
    'payload-unknown-template': dot('  0 [ label="configmap test/valid-manifest (1 of 1)" shape="box" ];'),
  };

  it('finds the payload trees', async () => {
    const withManifests = (await readdir(PAYLOADS)).filter((d) => existsSync(join(PAYLOADS, d, 'release-manifests')));
    expect(withManifests.length).toBeGreaterThanOrEqual(5);
    for (const name of Object.keys(expected)) expect(withManifests).toContain(name);
  });

  for (const [name, want] of Object.entries(expected)) {
    it(`prints upstream's DOT for ${name}`, async () => {
      const r = await cli('payload', 'graph', join(PAYLOADS, name));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(want);
    });
  }

  it('prints a graph for every other tree with release-manifests', async () => {
    for (const d of await readdir(PAYLOADS)) {
      if (!existsSync(join(PAYLOADS, d, 'release-manifests')) || expected[d] !== undefined) continue;
      const r = await cli('payload', 'graph', join(PAYLOADS, d));
      expect(r.code, `${d}: ${r.stderr}`).toBe(0);
      expect(r.stdout.startsWith('digraph tasks {\n')).toBe(true);
      expect(r.stdout.endsWith('\n}\n')).toBe(true);
    }
  });

  it('reports why a manifest was excluded with --verbose', async () => {
    const r = await cli('payload', 'graph', '-v', join(PAYLOADS, 'featuregatetest'));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('feature gate ExperimentalFeature is required but not enabled');
  });
});

describe('keelson payload graph on a generated payload', { timeout: 60_000 }, () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keelson-pg-'));
    await generatePayload({ out: dir, seed: 3, components: 30, sizeFactor: 0.15 });
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('matches a graph built from an independent parse of the directory', async () => {
    // Independent reading: every document in name order, kept when it has the default profile
    // annotation and no TechPreview-only / hypershift-only restriction (what the generator emits).
    const files: string[] = [];
    for (const sub of ['manifests', 'release-manifests']) {
      const names = (await readdir(join(dir, sub)))
        .filter((n) => /\.(ya?ml|json)$/.test(n))
        .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      for (const n of names) files.push(join(dir, sub, n));
    }
    const kept: { file: string; apiVersion: string; kind: string; ns: string; name: string }[] = [];
    for (const f of files) {
      const text = (await readFile(f, 'utf8'))
        .replaceAll('{{.ReleaseImage}}', '')
        .replaceAll('{{.ClusterProfile}}', 'self-managed-high-availability');
      for (const d of parseAllDocuments(text)) {
        const o = d.toJS() as {
          apiVersion: string;
          kind: string;
          metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
        } | null;
        if (o === null) continue;
        const a = o.metadata.annotations ?? {};
        if (a['include.release.openshift.io/self-managed-high-availability'] !== 'true') continue;
        const fs = a['release.openshift.io/feature-set'];
        if (fs !== undefined && !fs.split(',').includes('Default')) continue;
        kept.push({
          file: f.slice(f.lastIndexOf('/') + 1),
          apiVersion: o.apiVersion,
          kind: o.kind,
          ns: o.metadata.namespace ?? '',
          name: o.metadata.name,
        });
      }
    }
    const tasks = kept.map((k, i) => {
      const [group, version] = k.apiVersion.includes('/') ? k.apiVersion.split('/') : ['', k.apiVersion];
      return createTask({
        filename: k.file,
        group: group ?? '',
        version: version ?? '',
        kind: k.kind,
        namespace: k.ns,
        name: k.name,
        index: i + 1,
        total: kept.length,
      });
    });
    const want = `${toDot(new TaskGraph(tasks).splitOnJobs().parallelize(byNumberAndComponent))}\n`;
    const r = await cli('payload', 'graph', dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(want);
    expect(r.stdout).toContain('job ');
    expect(r.stdout).toContain('no manifests');
  });

  it('prints JSON and Mermaid forms of the same graph', async () => {
    const j = await cli('payload', 'graph', dir, '--format', 'json');
    expect(j.code).toBe(0);
    const graph = JSON.parse(j.stdout) as { nodes: { in: number[]; out: number[]; tasks: string[] }[] };
    const d = await cli('payload', 'graph', dir);
    const nodeLines = d.stdout.split('\n').filter((l) => / \[ label=/.test(l));
    expect(graph.nodes).toHaveLength(nodeLines.length);
    graph.nodes.forEach((n, i) => {
      for (const o of n.out) expect(graph.nodes[o]?.in).toContain(i);
    });
    const m = await cli('payload', 'graph', dir, '--format', 'mermaid');
    expect(m.code).toBe(0);
    expect(m.stdout.startsWith('flowchart TB\n')).toBe(true);
    expect(m.stdout.split('\n').filter((l) => l.includes('-->'))).toHaveLength(
      graph.nodes.reduce((s, n) => s + n.out.length, 0),
    );
  });

  it('flattens and permutes deterministically with --seed', async () => {
    const flat = JSON.parse(
      (await cli('payload', 'graph', dir, '--parallel', 'flatten-by-number-and-component', '--format', 'json')).stdout,
    ) as { nodes: { tasks: string[] }[] };
    const permute = (seed: string): Promise<Run> =>
      cli(
        'payload',
        'graph',
        dir,
        '--parallel',
        'permute-flatten-by-number-and-component',
        '--seed',
        seed,
        '--format',
        'json',
      );
    const [p1, p2, p3] = await Promise.all([permute('5'), permute('5'), permute('6')]);
    expect(p1.code).toBe(0);
    expect(p1.stdout).toBe(p2.stdout);
    expect(p1.stdout).not.toBe(p3.stdout);
    const perm = JSON.parse(p1.stdout) as { nodes: { tasks: string[] }[] };
    const all = (g: { nodes: { tasks: string[] }[] }): string[] => g.nodes.flatMap((n) => n.tasks).sort();
    expect(all(perm)).toEqual(all(flat));
    expect(perm.nodes.map((n) => n.tasks.join())).not.toEqual(flat.nodes.map((n) => n.tasks.join()));
  });
});

describe('keelson payload graph errors', { timeout: 60_000 }, () => {
  it('fails with exit 1 and names the missing directory', async () => {
    const r = await cli('payload', 'graph', '/nonexistent-keelson-payload');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/nonexistent-keelson-payload\/manifests does not exist/);
  });
  it('refuses unknown strategies and formats with exit 2', async () => {
    expect((await cli('payload', 'graph', PAYLOADS, '--parallel', 'bogus')).code).toBe(2);
    expect((await cli('payload', 'graph', PAYLOADS, '--format', 'svg')).code).toBe(2);
    const r = await cli(
      'payload',
      'graph',
      join(PAYLOADS, 'paralleltest'),
      '--parallel',
      'permute-flatten-by-number-and-component',
      '--seed',
      'x',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--seed must be an integer');
  });
  it('reports broken manifests with the file name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keelson-pg-bad-'));
    try {
      await generatePayload({ out: dir, components: 2, sizeFactor: 0.05 });
      await writeFile(
        join(dir, 'release-manifests', '0000_50_broken_00_x.yaml'),
        'apiVersion: v1\nmetadata:\n  name: x\n',
      );
      const r = await cli('payload', 'graph', dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('0000_50_broken_00_x.yaml');
      expect(r.stderr).toContain("Object 'Kind' is missing");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('has --help', async () => {
    const r = await cli('payload', 'graph', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--parallel <strategy>');
  });
});
