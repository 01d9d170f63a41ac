import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyEdgeAddRemove, applySecondaryMetadata, builderGraphFromDocument, builderGraphToDocument, readGraphData, type GraphDocument } from '../src/index.js';
import { CINCINNATI } from './helpers.js';

const FIX = new URL('secondary-metadata-parser-fixture/20200220.104838/', CINCINNATI);
const IGNORED = new Set(['io.openshift.upgrades.graph.previous.remove_regex', 'io.openshift.upgrades.graph.previous.remove']);

function canonical(doc: GraphDocument): { nodes: string[]; edges: string[]; conditional: string[] } {
  const nodes = doc.nodes
    .map((n) => JSON.stringify([n.version, n.payload, Object.entries(n.metadata).filter(([k]) => !IGNORED.has(k)).sort(([a], [b]) => (a < b ? -1 : 1))]))
    .sort();
  const edges = doc.edges.map(([a, b]) => `${doc.nodes[a]!.version} -> ${doc.nodes[b]!.version}`).sort();
  const conditional = (doc.conditionalEdges ?? []).flatMap((g) => g.edges.map((e) => `${e.from} -> ${e.to}: ${g.risks.map((r) => r.name).join(',')}`)).sort();
  return { nodes, edges, conditional };
}

describe('secondary-metadata-parser fixture 20200220.104838 (upstream compare_quay_result_fixture)', () => {
  const raw = JSON.parse(readFileSync(new URL('graph-gb-raw.json', FIX), 'utf8')) as GraphDocument;
  const expectedDoc = JSON.parse(readFileSync(new URL('graph-gb-with-quay-metadata.json', FIX), 'utf8')) as GraphDocument;
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
