/**
 * Node metadata the node controller keeps in step (upstream pkg/controller/node/node_controller.go): the controlPlaneTopology
 * annotation, and the labels of a custom pool copied onto nodes born into it.
 */
import type { MachineConfigPool, Node } from '@keelson/api';
import { NodeAnnotations } from '../constants.js';

/** Nodes whose controlPlaneTopology annotation differs from the cluster's topology. */
export function nodesNeedingTopology(nodes: readonly Node[], topology: string | undefined): string[] {
  if (topology === undefined || topology === '') return [];
  return nodes
    .filter((n) => n.metadata.annotations?.[NodeAnnotations.controlPlaneTopology] !== topology)
    .map((n) => n.metadata.name ?? '');
}

/** The pool a rendered config belongs to: `rendered-<pool>-<32 hex>`. */
export function poolOfRenderedName(name: string): string | undefined {
  const m = /^rendered-(.+)-[0-9a-f]{32}$/.exec(name);
  return m?.[1];
}

/** The labels copied onto a node born into a pool: its nodeSelector matchLabels (as upstream: expressions are not used). */
export function poolNodeLabels(pool: MachineConfigPool): Record<string, string> {
  return { ...(pool.spec.nodeSelector?.matchLabels ?? {}) };
}

/** A node born into a custom pool that still lacks the pool's labels. */
export interface CustomPoolLabelling {
  node: string;
  pool: string;
  labels: Record<string, string>;
}

/**
 * Nodes whose firstPivotConfig names a rendered config owned by a custom pool and which do not carry the
 * customPoolLabelsApplied marker: they get that pool's nodeSelector matchLabels (and the marker).
 * `ownerPool` gives the pool owning a rendered MachineConfig (its first owner reference); by default the pool is
 * read from the `rendered-<pool>-<hash>` name.
 */
export function decideCustomPoolLabels(
  pools: readonly MachineConfigPool[],
  nodes: readonly Node[],
  ownerPool: (renderedName: string) => string | undefined = poolOfRenderedName,
): CustomPoolLabelling[] {
  const out: CustomPoolLabelling[] = [];
  for (const n of nodes) {
    const a = n.metadata.annotations ?? {};
    if (Object.hasOwn(a, NodeAnnotations.customPoolLabelsApplied)) continue;
    const first = a[NodeAnnotations.firstPivotConfig] ?? '';
    if (first === '') continue;
    const poolName = ownerPool(first);
    if (poolName === undefined || poolName === 'master' || poolName === 'worker') continue;
    const pool = pools.find((p) => p.metadata.name === poolName);
    if (!pool) continue;
    const labels = poolNodeLabels(pool);
    if (Object.keys(labels).length === 0) continue;
    out.push({ node: n.metadata.name ?? '', pool: poolName, labels });
  }
  return out;
}
