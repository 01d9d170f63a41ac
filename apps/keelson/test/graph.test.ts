import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRegistry } from './e2e-upgrade-payload.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const CIN = new URL('./fixtures/upstream/cincinnati/', import.meta.url);
const G47 = fileURLToPath(
  new URL('graphs/cincinnati-e2e/134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.7_amd64_v1.json', CIN),
);
const G49 = fileURLToPath(
  new URL('graphs/cincinnati-e2e/134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.9_amd64_v1.json', CIN),
);
const GRAPH_DATA = fileURLToPath(new URL('graph-data', CIN));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : 1
        : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// Each case spawns the built CLI several times; on a loaded 2-core machine a spawn can take ~1 s.
describe('keelson graph updates / path / draw (built CLI as a child process)', { timeout: 60_000 }, () => {
  it('updates --graph prints an oc-style table: recommended (newest first), then conditional with risk name and URL', async () => {
    const r = await run(['graph', 'updates', '--graph', G47, '--channel', 'stable-4.7', '--version', '4.7.0']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Channel: stable-4.7');
    expect(r.stdout).toMatch(
      /Recommended updates:\n\n {2}VERSION +IMAGE\n {2}4\.7\.60 +quay\.io\/openshift-release-dev\/ocp-release@sha256:/,
    );
    expect(r.stdout.indexOf('4.7.60')).toBeLessThan(r.stdout.indexOf('4.7.59'));
    expect(r.stdout).toContain('Updates with known issues:');
    expect(r.stdout).toContain('Version: 4.7.4');
    expect(r.stdout).toContain('Risk: VSphereNodeNameChanges https://bugzilla.redhat.com/show_bug.cgi?id=1942207#c3');
  });
  it('updates --format json, VersionNotFound and usage errors', async () => {
    const j = await run([
      'graph',
      'updates',
      '--graph',
      G47,
      '--channel',
      'stable-4.7',
      '--version',
      '4.7.0',
      '--format',
      'json',
    ]);
    const doc = JSON.parse(j.stdout) as {
      current: { version: string };
      conditionalUpdates: { release: { version: string } }[];
    };
    expect(doc.current.version).toBe('4.7.0');
    expect(doc.conditionalUpdates.map((c) => c.release.version)).toEqual(['4.7.4']);
    const nf = await run(['graph', 'updates', '--graph', G47, '--channel', 'stable-4.7', '--version', '4.1.0']);
    expect(nf.code).toBe(1);
    expect(nf.stderr).toContain(
      'VersionNotFound: currently reconciling cluster version 4.1.0 not found in the "stable-4.7" channel',
    );
    const usage = await run(['graph', 'updates', '--channel', 'stable-4.7', '--version', '4.7.0']);
    expect(usage.code).toBe(2);
    const missing = await run(['graph', 'updates', '--graph', G47, '--version', '4.7.0']);
    expect(missing.code).toBe(2);
  });
  it('path: text, json, dot, mermaid; no path explains the missing hop and the risks to accept', async () => {
    const t = await run(['graph', 'path', '4.6.15', '4.7.60', '--graph', G47]);
    expect(t.code).toBe(0);
    expect(t.stdout).toContain('Update path 4.6.15 → 4.7.60: 2 hop(s)');
    expect(t.stdout).toContain('1. 4.6.15 → 4.6.62: recommended update');
    const blocked = await run(['graph', 'path', '4.7.0', '4.7.4', '--graph', G47]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain('--accept-risks VSphereNodeNameChanges');
    const j = await run([
      'graph',
      'path',
      '4.7.0',
      '4.7.4',
      '--graph',
      G47,
      '--accept-risks',
      'VSphereNodeNameChanges',
      '--format',
      'json',
    ]);
    expect((JSON.parse(j.stdout) as { hops: { kind: string }[] }).hops.map((h) => h.kind)).toEqual(['conditional']);
    const dot = await run([
      'graph',
      'path',
      '4.7.0',
      '4.7.4',
      '--graph',
      G47,
      '--accept-risks',
      'VSphereNodeNameChanges',
      '--format',
      'dot',
    ]);
    expect(dot.stdout).toContain('"4.7.0" -> "4.7.4" [style=dashed, label="VSphereNodeNameChanges (accepted)"]');
    const mm = await run(['graph', 'path', '4.6.15', '4.7.60', '--graph', G47, '--format', 'mermaid']);
    expect(mm.stdout.split('\n')[0]).toBe('flowchart LR');
    const gap = await run(['graph', 'path', '4.6.15', '4.9.0', '--graph', G47, '--graph', G49]);
    expect(gap.code).toBe(1);
    expect(gap.stderr).toContain('the missing hop is 4.7.60 → 4.9.0');
  });
  it('draw --format dot|mermaid|json', async () => {
    const d = await run(['graph', 'draw', '--graph', G47, '--only', '4.7.5', '--format', 'dot']);
    expect(d.stdout.startsWith('digraph updates {')).toBe(true);
    expect(d.stdout).toContain('"4.7.50" -> "4.7.55"');
    const m = await run(['graph', 'draw', '--graph', G47, '--format', 'mermaid']);
    expect(m.stdout).toContain('v_4_7_0 -.-> v_4_7_4');
    const j = await run(['graph', 'draw', '--graph', G47, '--format', 'json']);
    expect(j.stderr).toBe('');
    expect((JSON.parse(j.stdout) as { nodes: unknown[] }).nodes).toHaveLength(102);
  });
});

describe('keelson graph serve + updates --upstream (two child processes over loopback)', { timeout: 60_000 }, () => {
  let child: ChildProcess;
  let base = '';
  let prom: Server;
  let promUrl = '';
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-graph-'));
    const versions = ['4.16.0', '4.16.1', '4.16.2', '4.16.3', '4.16.8', '4.16.9', '4.16.10', '4.16.11'];
    versions.forEach((v, i) => {
      const previous = v === '4.16.10' ? ['4.16.2', '4.16.9'] : versions.slice(Math.max(0, i - 2), i);
      writeFileSync(
        join(dir, `${v}.json`),
        JSON.stringify({
          kind: 'cincinnati-metadata-v0',
          version: v,
          payload: `quay.io/openshift-release-dev/ocp-release@sha256:${String(i).repeat(64).slice(0, 64)}`,
          previous,
          metadata: { url: `https://errata/${v}` },
        }),
      );
    });
    child = spawn(
      process.execPath,
      [
        BIN,
        'graph',
        'serve',
        '--releases',
        dir,
        '--graph-data',
        GRAPH_DATA,
        '--port',
        '0',
        '--prefix',
        '/api/upgrades_info',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let errOut = '';
    child.stderr!.on('data', (b: Buffer) => (errOut += b.toString()));
    base = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /at (http:\/\/127\.0\.0\.1:\d+\S*)\n/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (c) => reject(new Error(`serve exited ${c}: ${errOut}`)));
    });
    prom = createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      // the HyperShift risk query: answer "exposed" (1)
      res.end(
        JSON.stringify({
          status: 'success',
          data: { resultType: 'vector', result: [{ metric: {}, value: [0, q.includes('hypershift') ? '1' : '0'] }] },
        }),
      );
    });
    await new Promise<void>((r) => prom.listen(0, '127.0.0.1', () => r()));
    promUrl = `http://127.0.0.1:${(prom.address() as AddressInfo).port}`;
  }, 30_000);
  afterAll(async () => {
    child.kill('SIGTERM');
    await new Promise<void>((r) => ((prom as Server | undefined) ? prom.close(() => r()) : r()));
  });

  it('serves the graph; updates --upstream shows the conditional update from graph-data', async () => {
    expect(base).toContain('/api/upgrades_info/v1/graph');
    const r = await run(['graph', 'updates', '--upstream', base, '--channel', 'stable-4.16', '--version', '4.16.2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Upstream: ${base}`);
    expect(r.stdout).toMatch(/4\.16\.3 +quay\.io/);
    expect(r.stdout).toContain('Version: 4.16.10');
    expect(r.stdout).toContain(
      'Risk: HyperShiftNodePoolSkewBinaryDownload https://issues.redhat.com/browse/HOSTEDCP-1941',
    );
  });
  it('evaluates PromQL risks with --prometheus and honours --accept-risks', async () => {
    const r = await run([
      'graph',
      'updates',
      '--upstream',
      base,
      '--channel',
      'stable-4.16',
      '--version',
      '4.16.2',
      '--prometheus',
      promUrl,
    ]);
    expect(r.stdout).toContain('Recommended: False');
    expect(r.stdout).toContain('Reason: HyperShiftNodePoolSkewBinaryDownload');
    const a = await run([
      'graph',
      'updates',
      '--upstream',
      base,
      '--channel',
      'stable-4.16',
      '--version',
      '4.16.2',
      '--prometheus',
      promUrl,
      '--accept-risks',
      'HyperShiftNodePoolSkewBinaryDownload',
      '--format',
      'json',
    ]);
    const doc = JSON.parse(a.stdout) as { conditionalUpdates: { conditions: { status: string; reason: string }[] }[] };
    expect(doc.conditionalUpdates[0]!.conditions[0]).toMatchObject({
      status: 'True',
      reason: 'AllExposedRisksAccepted',
    });
  });
  it('path --upstream --channel plans over the served graph', async () => {
    const r = await run([
      'graph',
      'path',
      '4.16.0',
      '4.16.11',
      '--upstream',
      base,
      '--channel',
      'stable-4.16',
      '--format',
      'json',
    ]);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { hops: { from: string; to: string }[] };
    expect(plan.hops.at(-1)!.to).toBe('4.16.11');
  });
  it('an unreachable upstream → RemoteFailed on stderr, exit 1', async () => {
    const r = await run([
      'graph',
      'updates',
      '--upstream',
      'http://127.0.0.1:1/graph',
      '--channel',
      'stable-4.16',
      '--version',
      '4.16.2',
      '--timeout',
      '3s',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('RemoteFailed');
  });
});

describe(
  'keelson graph serve --payload (release payload directories, like graph-builder scraping release images)',
  { timeout: 60_000 },
  () => {
    let child: ChildProcess | undefined;
    afterAll(() => {
      child?.kill('SIGTERM');
    });

    function payloadDir(root: string, version: string, previous: string[], metadata: Record<string, unknown>): string {
      const dir = join(root, version);
      mkdirSync(join(dir, 'manifests'), { recursive: true });
      mkdirSync(join(dir, 'release-manifests'), { recursive: true });
      writeFileSync(
        join(dir, 'release-manifests/release-metadata'),
        JSON.stringify({ kind: 'cincinnati-metadata-v0', version, previous, metadata }),
      );
      writeFileSync(
        join(dir, 'release-manifests/image-references'),
        `kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: ${version}\nspec:\n  tags:\n  - name: cli\n    from:\n      kind: DockerImage\n      name: quay.io/x/cli@sha256:${'a'.repeat(64)}\n`,
      );
      return dir;
    }

    // An OCI image layout holding a payload directory as one gzip layer (tar made by GNU tar).
    function layoutFrom(dir: string, root: string): string {
      const layer = gzipSync(
        execFileSync('tar', ['-C', dir, '--sort=name', '-cf', '-', 'manifests', 'release-manifests']),
      );
      mkdirSync(join(root, 'blobs/sha256'), { recursive: true });
      const put = (b: Buffer): string => {
        const d = `sha256:${createHash('sha256').update(b).digest('hex')}`;
        writeFileSync(join(root, 'blobs/sha256', d.slice(7)), b);
        return d;
      };
      const cfg = Buffer.from(
        JSON.stringify({ os: 'linux', architecture: 'amd64', rootfs: { type: 'layers', diff_ids: [] } }),
      );
      const manifest = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: put(cfg), size: cfg.length },
          layers: [
            { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: put(layer), size: layer.length },
          ],
        }),
      );
      const digest = put(manifest);
      writeFileSync(join(root, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
      writeFileSync(
        join(root, 'index.json'),
        JSON.stringify({
          schemaVersion: 2,
          manifests: [
            {
              mediaType: 'application/vnd.oci.image.manifest.v1+json',
              digest,
              size: manifest.length,
              annotations: { 'org.opencontainers.image.ref.name': 'release' },
            },
          ],
        }),
      );
      return digest;
    }

    it('serves nodes and edges from the payloads plus a --releases dir; GET /graph over loopback', async () => {
      const root = mkdtempSync(join(tmpdir(), 'keelson-graph-payload-'));
      const d1 = payloadDir(root, '4.16.0', [], {
        url: 'https://errata/4.16.0',
        'io.openshift.upgrades.graph.release.channels': 'stable-4.16',
      });
      const d2 = payloadDir(root, '4.16.1', ['4.16.0'], {
        url: 'https://errata/4.16.1',
        'io.openshift.upgrades.graph.release.channels': 'stable-4.16',
        count: 3,
      });
      const d3 = payloadDir(root, '4.16.3', ['4.16.1'], {
        'io.openshift.upgrades.graph.release.channels': 'stable-4.16',
      });
      const layout = join(root, 'layout-4.16.3');
      const digest = layoutFrom(d3, layout);
      const rel = join(root, 'releases');
      mkdirSync(rel);
      writeFileSync(
        join(rel, '4.16.2.json'),
        JSON.stringify({
          kind: 'cincinnati-metadata-v0',
          version: '4.16.2',
          payload: `quay.io/o/r@sha256:${'2'.repeat(64)}`,
          previous: ['4.16.0', '4.16.1'],
          metadata: { 'io.openshift.upgrades.graph.release.channels': 'stable-4.16' },
        }),
      );
      const c = spawn(
        process.execPath,
        [
          BIN,
          'graph',
          'serve',
          '--payload',
          d1,
          '--payload',
          d2,
          '--payload',
          layout,
          '--releases',
          rel,
          '--port',
          '0',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = c;
      let errOut = '';
      c.stderr.on('data', (b: Buffer) => (errOut += b.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        c.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /at (http:\/\/127\.0\.0\.1:\d+\S*)\n/.exec(out);
          if (m) resolve(m[1]!);
        });
        c.once('exit', (code) => reject(new Error(`serve exited ${code}: ${errOut}`)));
      });
      expect(errOut).toContain('metadata.count is not a string');
      const res = await fetch(`${url}?channel=stable-4.16`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      const doc = (await res.json()) as {
        nodes: { version: string; payload: string; metadata: Record<string, string> }[];
        edges: [number, number][];
      };
      const versions = doc.nodes.map((n) => n.version);
      expect([...versions].sort()).toEqual(['4.16.0', '4.16.1', '4.16.2', '4.16.3']);
      // read from an image: pulled by digest, and the manifestref key graph-builder's release scraper adds
      const n3 = doc.nodes.find((n) => n.version === '4.16.3')!;
      expect(n3.payload.endsWith(`@${digest}`)).toBe(true);
      expect(n3.metadata).toEqual({
        'io.openshift.upgrades.graph.release.channels': 'stable-4.16',
        'io.openshift.upgrades.graph.release.manifestref': digest,
      });
      const n1 = doc.nodes.find((n) => n.version === '4.16.1')!;
      expect(n1.payload).toBe(d2);
      expect(n1.metadata).toEqual({
        url: 'https://errata/4.16.1',
        'io.openshift.upgrades.graph.release.channels': 'stable-4.16',
      });
      const edges = doc.edges.map(([a, b]) => `${versions[a]}->${versions[b]}`).sort();
      expect(edges).toEqual(['4.16.0->4.16.1', '4.16.0->4.16.2', '4.16.1->4.16.2', '4.16.1->4.16.3']);
    });

    it('--repository scrapes every tag of a real docker-registry repository, like release-scrape-dockerv2', async () => {
      const root = mkdtempSync(join(tmpdir(), 'keelson-graph-repo-'));
      mkdirSync(join(root, 'registry'));
      const registry = await LocalRegistry.start(join(root, 'registry'));
      try {
        const push = (dir: string, tag: string): string => {
          const layout = join(root, `layout-${tag}`);
          layoutFrom(dir, layout);
          return registry.push(layout, 'ocp/release', tag, join(root, `digest-${tag}`));
        };
        const channels = { 'io.openshift.upgrades.graph.release.channels': 'stable-4.16' };
        const ref0 = push(payloadDir(root, '4.16.0', [], channels), '4.16.0-x86_64');
        // a second tag of the same image (the same layout pushed again) is read once
        expect(registry.push(join(root, 'layout-4.16.0-x86_64'), 'ocp/release', 'stable', join(root, 'digest-s'))).toBe(
          ref0,
        );
        const ref1 = push(payloadDir(root, '4.16.1', ['4.16.0'], channels), '4.16.1-x86_64');
        // an image without release-metadata is skipped with a warning
        const tools = join(root, 'tools');
        mkdirSync(join(tools, 'manifests'), { recursive: true });
        mkdirSync(join(tools, 'release-manifests'), { recursive: true });
        push(tools, 'tools');
        const repo = `${registry.host}/ocp/release`;
        const c = spawn(process.execPath, [BIN, 'graph', 'serve', '--repository', repo, '--port', '0'], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, XDG_CACHE_HOME: join(root, 'cache') },
        });
        try {
          let errOut = '';
          c.stderr.on('data', (b: Buffer) => (errOut += b.toString()));
          const url = await new Promise<string>((resolve, reject) => {
            let out = '';
            c.stdout.on('data', (b: Buffer) => {
              out += b.toString();
              const m = /serving (\d+) releases at (http:\/\/127\.0\.0\.1:\d+\S*)\n/.exec(out);
              if (m) resolve(m[2]!);
            });
            c.once('exit', (code) => reject(new Error(`serve exited ${code}: ${errOut}`)));
          });
          expect(errOut).toContain(`${repo}:tools: not a release image`);
          const doc = (await (await fetch(`${url}?channel=stable-4.16`)).json()) as {
            nodes: { version: string; payload: string; metadata: Record<string, string> }[];
            edges: [number, number][];
          };
          const byVersion = new Map(doc.nodes.map((n) => [n.version, n]));
          expect([...byVersion.keys()].sort()).toEqual(['4.16.0', '4.16.1']);
          expect(byVersion.get('4.16.0')?.payload).toBe(ref0);
          expect(byVersion.get('4.16.1')?.payload).toBe(ref1);
          expect(byVersion.get('4.16.1')?.metadata['io.openshift.upgrades.graph.release.manifestref']).toBe(
            ref1.split('@')[1],
          );
          expect(doc.edges.map(([a, b]) => `${doc.nodes[a]?.version}->${doc.nodes[b]?.version}`)).toEqual([
            '4.16.0->4.16.1',
          ]);
        } finally {
          c.kill('SIGTERM');
        }
        const missing = await run(['graph', 'serve', '--repository', `${registry.host}/ocp/none`, '--port', '0']);
        expect(missing.code).toBe(1);
        expect(missing.stderr).toContain(`--repository ${registry.host}/ocp/none:`);
        expect(missing.stderr).toContain('HTTP 404');
      } finally {
        await registry.stop();
      }
    });

    it('a version given twice or a bad payload source is an error naming the source', async () => {
      const root = mkdtempSync(join(tmpdir(), 'keelson-graph-payload-'));
      const d1 = payloadDir(root, '4.16.0', [], {});
      const twice = await run(['graph', 'serve', '--payload', d1, '--payload', d1, '--port', '0']);
      expect(twice.code).toBe(1);
      expect(twice.stderr).toContain('release 4.16.0 appears twice');
      const bad = await run(['graph', 'serve', '--payload', join(root, 'missing'), '--port', '0']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(`--payload ${join(root, 'missing')}`);
      const none = await run(['graph', 'serve', '--port', '0']);
      expect(none.code).toBe(2);
    });
  },
);

describe('release-metadata architecture: graph serve, graph updates and the CVO agree', { timeout: 120_000 }, () => {
  const PAYLOAD_GEN = fileURLToPath(new URL('../../../tooling/payload-gen/dist/cli.js', import.meta.url));

  it("the generator's releases are served and offered: graph updates --upstream lists 4.18.8 from 4.18.7", async () => {
    const root = mkdtempSync(join(tmpdir(), 'keelson-graph-gen-'));
    execFileSync(process.execPath, [PAYLOAD_GEN, '--rehearsal', '--out', root]);
    const c = spawn(
      process.execPath,
      [BIN, 'graph', 'serve', '--payload', join(root, '4.18.7'), '--payload', join(root, '4.18.8'), '--port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let errOut = '';
      c.stderr.on('data', (b: Buffer) => (errOut += b.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        c.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /at (http:\/\/127\.0\.0\.1:\d+\S*)\n/.exec(out);
          if (m) resolve(m[1]!);
        });
        c.once('exit', (code) => reject(new Error(`serve exited ${code}: ${errOut}`)));
      });
      const r = await run(['graph', 'updates', '--upstream', url, '--channel', 'stable-4.18', '--version', '4.18.7']);
      expect(r.stderr).not.toContain('architecture');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/4\.18\.8 +\S+/);
    } finally {
      c.kill('SIGTERM');
    }
  });

  it('a release whose metadata says "amd64" is refused with the CVO\'s message (payload and --releases)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'keelson-graph-arch-'));
    const dir = join(root, '4.18.7');
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    mkdirSync(join(dir, 'release-manifests'), { recursive: true });
    writeFileSync(
      join(dir, 'release-manifests/release-metadata'),
      JSON.stringify({
        kind: 'cincinnati-metadata-v0',
        version: '4.18.7',
        metadata: { 'release.openshift.io/architecture': 'amd64' },
      }),
    );
    writeFileSync(
      join(dir, 'release-manifests/image-references'),
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 4.18.7\n',
    );
    const p = await run(['graph', 'serve', '--payload', dir, '--port', '0']);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain(
      'Architecture from release-metadata (4.18.7) contains invalid value: "amd64". Valid value is "multi".',
    );
    const rel = join(root, 'releases');
    mkdirSync(rel);
    writeFileSync(
      join(rel, '4.18.7.json'),
      JSON.stringify({
        kind: 'cincinnati-metadata-v0',
        version: '4.18.7',
        payload: `quay.io/o/r@sha256:${'7'.repeat(64)}`,
        metadata: { 'release.openshift.io/architecture': 'amd64' },
      }),
    );
    const r = await run(['graph', 'serve', '--releases', rel, '--port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Architecture from release-metadata (4.18.7) contains invalid value: "amd64". Valid value is "multi".',
    );
  });
});
