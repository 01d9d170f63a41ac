import { taskString } from './task.js';
import type { TaskNode } from './graph.js';

/** JSON shape of {@link toJson}: nodes in index order with their edges and task file names. */
export interface TaskGraphJson {
  nodes: { in: number[]; out: number[]; tasks: string[] }[];
}

/** Plain JSON view of a graph: `{ nodes: [{ in, out, tasks: [filename] }] }`. */
export function toJson(graph: { nodes: readonly TaskNode[] }): TaskGraphJson {
  return {
    nodes: graph.nodes.map((n) => ({ in: [...n.in], out: [...n.out], tasks: n.tasks.map((t) => t.filename) })),
  };
}

function mermaidText(s: string): string {
  return s.replaceAll('&', '#amp;').replaceAll('"', '#quot;').replaceAll('<', '#lt;').replaceAll('>', '#gt;');
}

/**
 * Mermaid `flowchart TB` of a graph: one box per node (task labels as in DOT, `no manifests` for
 * spacers) and one arrow per `out` edge. Ends with a newline.
 */
export function toMermaid(graph: { nodes: readonly TaskNode[] }): string {
  const lines = ['flowchart TB'];
  graph.nodes.forEach((node, i) => {
    const label = node.tasks.length === 0 ? ['no manifests'] : node.tasks.map((t) => mermaidText(taskString(t)));
    lines.push(`  n${i}["${label.join('<br/>')}"]`);
  });
  graph.nodes.forEach((node, i) => {
    for (const j of node.out) lines.push(`  n${i} --> n${j}`);
  });
  return lines.join('\n') + '\n';
}
