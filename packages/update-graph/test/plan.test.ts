import { describe, expect, it } from 'vitest';
import { Graph, NoPathError, PlanIndex, planPath } from '../src/index.js';
import { readText, STABLE_47, STABLE_49 } from './helpers.js';

const g47 = Graph.parse(readText(STABLE_47));
const g49 = Graph.parse(readText(STABLE_49));

function noPath(f: () => unknown): NoPathError {
  try {
    f();
  } catch (e) {
    if (e instanceof NoPathError) return e;
    throw e;
  }
  throw new Error('expected NoPathError');
}

describe('planPath on the real stable-4.7 graph (102 nodes, 3,244 edges)', () => {
  it('plans a two-hop cross-minor path over recommended edges', () => {
    const p = planPath(g47, '4.6.15', '4.7.60');
    expect(p.hops.map((h) => [h.from, h.to, h.kind])).toEqual([
      ['4.6.15', '4.6.62', 'recommended'],
      ['4.6.62', '4.7.60', 'recommended'],
    ]);
    expect(p.conditionalHops).toBe(0);
    // every hop is a real edge of the graph
    for (const h of p.hops)
      expect(g47.successors(g47.indexOf(h.from)).map((i) => g47.nodes[i]!.version)).toContain(h.to);
    expect(p.hops[1]!.image).toBe(g47.node('4.7.60')!.payload);
  });
  it('a conditional-only target needs its risks accepted, and says which', () => {
    const e = noPath(() => planPath(g47, '4.7.0', '4.7.4'));
    expect(e.risksToAccept).toEqual(['VSphereNodeNameChanges']);
    expect(e.missingHop).toBe('4.7.0 → 4.7.4 (conditional: VSphereNodeNameChanges)');
    const p = planPath(g47, '4.7.0', '4.7.4', { acceptRisks: ['VSphereNodeNameChanges'] });
    expect(p.hops).toHaveLength(1);
    expect(p.hops[0]!.kind).toBe('conditional');
    expect(p.hops[0]!.risks.map((r) => [r.name, r.disposition])).toEqual([['VSphereNodeNameChanges', 'accepted']]);
    expect(p.hops[0]!.explanation).toContain(
      'VSphereNodeNameChanges accepted (https://bugzilla.redhat.com/show_bug.cgi?id=1942207#c3)',
    );
  });
  it('risks evaluated as not matching open conditional edges; a multi-risk edge needs all of them', () => {
    const p = planPath(g47, '4.7.0', '4.7.4', {
      riskConditions: { VSphereNodeNameChanges: { type: 'Applies', status: 'False', reason: 'NotMatch', message: '' } },
    });
    expect(p.hops[0]!.risks[0]!.disposition).toBe('not-matching');
    const e = noPath(() => planPath(g47, '4.6.15', '4.7.4', { acceptRisks: ['AuthOAuthProxyLeakedConnections'] }));
    expect(e.risksToAccept.length).toBeGreaterThan(0);
    expect(e.risksToAccept).not.toContain('AuthOAuthProxyLeakedConnections');
  });
  it('prefers recommended edges over conditional ones of the same length', () => {
    const all = g47.conditionalEdges.flatMap((g) => g.risks.map((r) => r.name));
    const p = planPath(g47, '4.6.15', '4.7.60', { acceptRisks: all });
    expect(p.conditionalHops).toBe(0);
    expect(p.hops).toHaveLength(2);
  });
  it('no path: downgrade, unknown versions, and a missing minor between graphs', () => {
    expect(noPath(() => planPath(g47, '4.7.60', '4.6.1')).message).toContain('downgrades are not supported');
    expect(noPath(() => planPath(g47, '4.1.0', '4.7.60')).missingHop).toBe('4.1.0 (source) is not a node of the graph');
    const target = g49.nodes.find(
      (n) =>
        n.version.startsWith('4.9.') &&
        g49.predecessors(g49.indexOf(n.version)).some((i) => g49.nodes[i]!.version.startsWith('4.8.')),
    )!.version;
    const e = noPath(() => planPath([g47, g49], '4.6.15', target));
    expect(e.missingHop).toMatch(/^4\.7\.60 → 4\.8\.\d+$/);
    expect(e.message).toContain('the missing hop is 4.7.60 → 4.8.');
  });
  it('plans within stable-4.9 from 4.8 to 4.9 using the merged index', () => {
    const idx = new PlanIndex([g47, g49]);
    const from = g49.nodes
      .map((n) => n.version)
      .filter((v) => v.startsWith('4.8.'))
      .sort()[0]!;
    const latest49 = g49.nodes
      .map((n) => n.version)
      .filter((v) => v.startsWith('4.9.'))
      .sort((a, b) => Number(b.split('.')[2]) - Number(a.split('.')[2]))[0]!;
    const p = planPath(idx, from, latest49);
    expect(p.hops.length).toBeGreaterThan(0);
    expect(p.hops.at(-1)!.to).toBe(latest49);
    expect(planPath(idx, from, from).hops).toEqual([]);
  });
});
