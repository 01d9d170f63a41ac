import { describe, expect, it } from 'vitest';
import { Graph, graphToDot, graphToMermaid, planPath, planToDot, planToMermaid } from '../src/index.js';
import { readText, STABLE_47 } from './helpers.js';

const g = Graph.parse(readText(STABLE_47));

describe('drawing', () => {
  it('DOT: every edge once, conditional edges dashed, plan hops highlighted', () => {
    const plan = planPath(g, '4.6.15', '4.7.60');
    const dot = graphToDot(g, { plan });
    const arrows = dot.split('\n').filter((l) => l.includes(' -> '));
    const unique = new Set(g.edges.map(([a, b]) => `${g.nodes[a]!.version}>${g.nodes[b]!.version}`));
    const conditionalOnly = g.conditionalEdges.flatMap((c) => c.edges).filter((e) => !unique.has(`${e.from}>${e.to}`));
    expect(arrows).toHaveLength(unique.size + conditionalOnly.length);
    expect(dot).toContain('"4.7.0" -> "4.7.4" [style=dashed];');
    expect(dot).toContain('"4.6.62" -> "4.7.60" [color=red, penwidth=2];');
  });
  it('version filter and Mermaid', () => {
    const m = graphToMermaid(g, { versionPrefixes: ['4.7.5'] });
    expect(m.split('\n')[0]).toBe('flowchart LR');
    expect(m).toContain('v_4_7_50 --> v_4_7_55');
    expect(m).not.toContain('4_6_');
  });
  it('plans as DOT and Mermaid', () => {
    const plan = planPath(g, '4.7.0', '4.7.4', { acceptRisks: ['VSphereNodeNameChanges'] });
    expect(planToDot(plan)).toContain('"4.7.0" -> "4.7.4" [style=dashed, label="VSphereNodeNameChanges (accepted)"];');
    expect(planToMermaid(plan)).toContain('v_4_7_0 -.->|"VSphereNodeNameChanges"| v_4_7_4');
  });
});
