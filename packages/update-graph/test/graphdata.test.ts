import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  applyEdgeAddRemove,
  applySecondaryMetadata,
  builderGraphFromDocument,
  builderGraphToDocument,
  filterGraph,
  graphFromReleases,
  readGraphData,
  type GraphData,
  type GraphDocument,
} from '../src/index.js';
import { CINCINNATI } from './helpers.js';

const FIX = new URL('secondary-metadata-parser-fixture/20200220.104838/', CINCINNATI);
const IGNORED = new Set([
  'io.openshift.upgrades.graph.previous.remove_regex',
  'io.openshift.upgrades.graph.previous.remove',
]);

function canonical(doc: GraphDocument): { nodes: string[]; edges: string[]; conditional: string[] } {
  const nodes = doc.nodes
    .map((n) =>
      JSON.stringify([
        n.version,
        n.payload,
        Object.entries(n.metadata)
          .filter(([k]) => !IGNORED.has(k))
          .sort(([a], [b]) => (a < b ? -1 : 1)),
      ]),
    )
    .sort();
  const edges = doc.edges.map(([a, b]) => `${doc.nodes[a]!.version} -> ${doc.nodes[b]!.version}`).sort();
  const conditional = (doc.conditionalEdges ?? [])
    .flatMap((g) => g.edges.map((e) => `${e.from} -> ${e.to}: ${g.risks.map((r) => r.name).join(',')}`))
    .sort();
  return { nodes, edges, conditional };
}

describe('secondary-metadata-parser fixture 20200220.104838 (upstream compare_quay_result_fixture)', () => {
  const raw = JSON.parse(readFileSync(new URL('graph-gb-raw.json', FIX), 'utf8')) as GraphDocument;
  const expectedDoc = JSON.parse(
    readFileSync(new URL('graph-gb-with-quay-metadata.json', FIX), 'utf8'),
  ) as GraphDocument;
  const data = readGraphData(fileURLToPath(new URL('cincinnati-graph-data', FIX)));

  it('reads the graph-data directory, skipping _OWNERS files', () => {
    expect(data.version).toBe('1.0.0');
    expect(data.channels.map((c) => c.name)).toContain('stable-4.2');
    expect(data.blockedEdges.length).toBe(11);
    expect(data.conditionalEdges).toEqual([]);
    expect(data.warnings.filter((w) => w.includes('_OWNERS'))).toHaveLength(2);
  });

  it('parse + edge-add-remove on the raw graph equals edge-add-remove on the expected graph', () => {
    const got = builderGraphFromDocument(raw);
    applySecondaryMetadata(got, data);
    applyEdgeAddRemove(got);
    const want = builderGraphFromDocument(expectedDoc);
    applyEdgeAddRemove(want);
    const a = canonical(builderGraphToDocument(got));
    const b = canonical(builderGraphToDocument(want));
    expect(a.nodes).toHaveLength(112);
    expect(a.nodes).toEqual(b.nodes);
    expect(a.edges).toEqual(b.edges);
    expect(a.conditional).toEqual(b.conditional);
    // the blocks removed edges that release metadata declared
    expect(a.edges.length).toBeLessThan(raw.edges.length);
  });
});

describe('graph-builder rules on small graphs', () => {
  const risk = (name: string) => ({
    url: `https://r/${name}`,
    name,
    message: `${name} breaks`,
    matchingRules: [{ type: 'Always' }],
  });
  const releases = ['4.10.0', '4.10.1', '4.10.2', '4.10.3'].flatMap((v, i, all) =>
    ['amd64', 's390x'].map((arch) => ({ version: v, arch, payload: `p-${v}-${arch}`, previous: all.slice(0, i) })),
  );
  const data = (over: Partial<GraphData>): GraphData => ({
    version: '1.1.0',
    rawMetadata: {},
    blockedEdges: [],
    conditionalEdges: [],
    channels: [{ file: 'c', name: 'stable-4.10', versions: ['4.10.0', '4.10.1', '4.10.2', '4.10.3'] }],
    warnings: [],
    ...over,
  });
  const edgesOf = (doc: GraphDocument) =>
    doc.edges.map(([a, b]) => `${doc.nodes[a]!.version}>${doc.nodes[b]!.version}`).sort();

  it('a release whose metadata declares an architecture other than "multi" is refused (the CVO refuses its payload)', () => {
    expect(() =>
      graphFromReleases([
        { version: '4.18.7', payload: 'p', metadata: { 'release.openshift.io/architecture': 'amd64' } },
      ]),
    ).toThrow(
      'release 4.18.7: Architecture from release-metadata (4.18.7) contains invalid value: "amd64". Valid value is "multi".',
    );
    expect(
      graphFromReleases([
        { version: '4.18.7', payload: 'p', metadata: { 'release.openshift.io/architecture': 'multi' } },
      ]).nodes[0]!.version,
    ).toBe('4.18.7+multi');
  });

  it('conditional risks: existing predecessors only, grouped by identical risk lists, an edge matched twice carries both risks', () => {
    const g = graphFromReleases(releases);
    applySecondaryMetadata(
      g,
      data({
        conditionalEdges: [
          { file: 'a', to: '4.10.3', from: '4[.]10[.][01][+]', risk: risk('A') },
          { file: 'b', to: '4.10.3', from: '4[.]10[.]1[+]amd64', risk: risk('B') },
        ],
      }),
    );
    applyEdgeAddRemove(g);
    const doc = builderGraphToDocument(g);
    const groups = doc
      .conditionalEdges!.map(
        (c) => [c.risks.map((r) => r.name).join('+'), c.edges.map((e) => `${e.from}>${e.to}`).sort()] as const,
      )
      .sort((x, y) => (x[0] < y[0] ? -1 : 1));
    expect(groups).toEqual([
      ['A', ['4.10.0+amd64>4.10.3+amd64', '4.10.0+s390x>4.10.3+s390x', '4.10.1+s390x>4.10.3+s390x']],
      ['A+B', ['4.10.1+amd64>4.10.3+amd64']],
    ]);
    // the plain edges are removed (remove_regex "A|B" on both arches), 4.10.2 → 4.10.3 stays
    expect(edgesOf(doc).filter((e) => e.endsWith('4.10.3+amd64'))).toEqual(['4.10.2+amd64>4.10.3+amd64']);
    expect(
      doc.nodes.find((n) => n.version === '4.10.3+amd64')!.metadata[
        'io.openshift.upgrades.graph.previous.remove_regex'
      ],
    ).toBe('4[.]10[.][01][+]|4[.]10[.]1[+]amd64');
    // policy-engine view for amd64: versions without +arch, conditional edges rewritten
    const f = filterGraph(doc, 'stable-4.10', 'amd64');
    expect(f.conditionalEdges!.flatMap((c) => c.edges.map((e) => `${e.from}>${e.to}`)).sort()).toEqual([
      '4.10.0>4.10.3',
      '4.10.1>4.10.3',
    ]);
    expect(f.nodes.map((n) => n.version).sort()).toEqual(['4.10.0', '4.10.1', '4.10.2', '4.10.3']);
  });

  it('unconditional blocks: all arches, +arch limits, legacy -s390x names; previous.add from raw metadata', () => {
    const g = graphFromReleases(releases);
    applySecondaryMetadata(
      g,
      data({
        blockedEdges: [
          { file: 'x', to: '4.10.2+s390x', from: '.*' },
          { file: 'y', to: '4.10.1', from: '4[.]10[.]0' },
        ],
        rawMetadata: { '4.10.3': { 'io.openshift.upgrades.graph.previous.add': '4.10.0' } },
      }),
    );
    applyEdgeAddRemove(g);
    const e = edgesOf(builderGraphToDocument(g));
    expect(e).not.toContain('4.10.0+amd64>4.10.1+amd64');
    expect(e).not.toContain('4.10.0+s390x>4.10.1+s390x');
    expect(e.filter((x) => x.endsWith('>4.10.2+s390x'))).toEqual([]);
    expect(e.filter((x) => x.endsWith('>4.10.2+amd64'))).toHaveLength(2);
    const g2 = graphFromReleases([
      { version: '4.2.11-s390x', arch: 's390x', payload: 'q' },
      { version: '4.2.10-s390x', arch: 's390x', payload: 'r', next: ['4.2.11-s390x'] },
    ]);
    applySecondaryMetadata(g2, data({ channels: [], blockedEdges: [{ file: 'z', to: '4.2.11-s390x', from: '.*' }] }));
    applyEdgeAddRemove(g2);
    expect(g2.edges).toEqual([]);
  });

  it('channels: appended then sorted by the x.y part; a +arch entry only matches that arch', () => {
    const g = graphFromReleases(releases);
    applySecondaryMetadata(
      g,
      data({
        channels: [
          { file: 'f', name: 'fast-4.10', versions: ['4.10.1+s390x'] },
          { file: 's', name: 'stable-4.9', versions: ['4.10.1'] },
          { file: 'c', name: 'candidate-4.10', versions: ['4.10.1'] },
        ],
      }),
    );
    const ch = (v: string) =>
      g.nodes.find((n) => n.version === v)!.metadata['io.openshift.upgrades.graph.release.channels'];
    expect(ch('4.10.1+s390x')).toBe('candidate-4.10,fast-4.10,stable-4.9');
    expect(ch('4.10.1+amd64')).toBe('candidate-4.10,stable-4.9');
    expect(ch('4.10.0+amd64')).toBeUndefined();
  });

  it('channels: a channel named by the release metadata and by a channel file is listed once (issue 18 defect 1)', () => {
    const g = graphFromReleases(
      releases.map((r) =>
        r.version === '4.10.1'
          ? { ...r, metadata: { 'io.openshift.upgrades.graph.release.channels': 'stable-4.10' } }
          : r,
      ),
    );
    applySecondaryMetadata(
      g,
      data({ rawMetadata: { '4.10.1': { 'io.openshift.upgrades.graph.release.channels': 'fast-4.10,stable-4.10' } } }),
    );
    const ch = (v: string) =>
      g.nodes.find((n) => n.version === v)!.metadata['io.openshift.upgrades.graph.release.channels'];
    expect(ch('4.10.1+amd64')).toBe('fast-4.10,stable-4.10');
    expect(ch('4.10.2+amd64')).toBe('stable-4.10');
  });
});
