/**
 * Drawing graphs and plans: Graphviz DOT, Mermaid flowcharts and JSON.
 */
import type { Graph } from './graph.js';
import type { UpdatePlan } from './plan.js';
import { at } from './util.js';

function dotId(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function mermaidId(s: string): string {
  return `v_${s.replace(/[^A-Za-z0-9]/g, '_')}`;
}

/** Options for drawing a whole graph. */
export interface RenderGraphOptions {
  /** Only draw nodes whose version starts with one of these prefixes (e.g. `4.7.`). */
  readonly versionPrefixes?: readonly string[];
  /** Highlight the hops of a plan. */
  readonly plan?: UpdatePlan;
}

function edgesOf(
  graph: Graph,
  options: RenderGraphOptions,
): { nodes: string[]; edges: [string, string, 'recommended' | 'conditional'][] } {
  const keep = (v: string): boolean => !options.versionPrefixes || options.versionPrefixes.some((p) => v.startsWith(p));
  const nodes = graph.nodes.map((n) => n.version).filter(keep);
  const cond = new Set<string>();
  for (const g of graph.conditionalEdges) for (const e of g.edges) cond.add(`${e.from}\u0000${e.to}`);
  const seen = new Set<string>();
  const edges: [string, string, 'recommended' | 'conditional'][] = [];
  for (const [a, b] of graph.edges) {
    const x = at(graph.nodes, a).version;
    const y = at(graph.nodes, b).version;
    const k = `${x}\u0000${y}`;
    if (!keep(x) || !keep(y) || seen.has(k)) continue;
    seen.add(k);
    edges.push([x, y, cond.has(k) ? 'conditional' : 'recommended']);
  }
  for (const k of cond) {
    if (seen.has(k)) continue;
    const [x, y] = k.split('\u0000') as [string, string];
    if (!keep(x) || !keep(y)) continue;
    seen.add(k);
    edges.push([x, y, 'conditional']);
  }
  return { nodes, edges };
}

/** Graphviz DOT of a graph; conditional edges dashed, plan hops bold red. */
export function graphToDot(graph: Graph, options: RenderGraphOptions = {}): string {
  const { nodes, edges } = edgesOf(graph, options);
  const hop = new Set((options.plan?.hops ?? []).map((h) => `${h.from}\u0000${h.to}`));
  const lines = ['digraph updates {', '  rankdir=LR;', '  node [shape=box];'];
  for (const n of nodes) lines.push(`  ${dotId(n)};`);
  for (const [a, b, kind] of edges) {
    const attrs: string[] = [];
    if (kind === 'conditional') attrs.push('style=dashed');
    if (hop.has(`${a}\u0000${b}`)) attrs.push('color=red', 'penwidth=2');
    lines.push(`  ${dotId(a)} -> ${dotId(b)}${attrs.length ? ` [${attrs.join(', ')}]` : ''};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Mermaid flowchart of a graph; conditional edges dotted. */
export function graphToMermaid(graph: Graph, options: RenderGraphOptions = {}): string {
  const { nodes, edges } = edgesOf(graph, options);
  const lines = ['flowchart LR'];
  for (const n of nodes) lines.push(`  ${mermaidId(n)}["${n}"]`);
  for (const [a, b, kind] of edges)
    lines.push(`  ${mermaidId(a)} ${kind === 'conditional' ? '-.->' : '-->'} ${mermaidId(b)}`);
  return `${lines.join('\n')}\n`;
}

/** Graphviz DOT of a plan (hops labelled with their risks). */
export function planToDot(plan: UpdatePlan): string {
  const lines = ['digraph plan {', '  rankdir=LR;', '  node [shape=box];', `  ${dotId(plan.from)};`];
  for (const h of plan.hops) {
    const label =
      h.kind === 'conditional'
        ? ` [style=dashed, label=${dotId(h.risks.map((r) => `${r.name} (${r.disposition})`).join('\\n'))}]`
        : '';
    lines.push(`  ${dotId(h.from)} -> ${dotId(h.to)}${label};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Mermaid flowchart of a plan. */
export function planToMermaid(plan: UpdatePlan): string {
  const lines = ['flowchart LR', `  ${mermaidId(plan.from)}["${plan.from}"]`];
  for (const h of plan.hops) {
    lines.push(`  ${mermaidId(h.to)}["${h.to}"]`);
    lines.push(
      h.kind === 'conditional'
        ? `  ${mermaidId(h.from)} -.->|"${h.risks.map((r) => r.name).join(', ')}"| ${mermaidId(h.to)}`
        : `  ${mermaidId(h.from)} --> ${mermaidId(h.to)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
