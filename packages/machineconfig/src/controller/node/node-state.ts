/**
 * Pure predicates over a Node as the node controller sees it (upstream `LayeredNodeState`, `CheckNodeReady`):
 * ready, done, MCD failing, unavailable, needs update.
 */
import type { Node } from '@keelson/api';
import { NodeAnnotations, NodeStates } from '../constants.js';

/** What a pool targets: the rendered config, and for layered pools the image and the build's config. */
export interface PoolTarget {
  /** pool.spec.configuration.name */
  config: string;
  /** Layered pools (MachineOSConfig): the built image pullspec and the MachineOSBuild's rendered config. */
  layered?: { image: string; buildConfig: string };
}

const ann = (n: Node, k: string): string => n.metadata.annotations?.[k] ?? '';

/**
 * CheckNodeReady: Ready must be True, DiskPressure and NetworkUnavailable must be False (when present), and the node
 * must be schedulable. A node without conditions is ready.
 */
export function isNodeReady(node: Node): boolean {
  for (const c of node.status?.conditions ?? []) {
    if (c.type === 'Ready' && c.status !== 'True') return false;
    if (c.type === 'DiskPressure' && c.status !== 'False') return false;
    if (c.type === 'NetworkUnavailable' && c.status !== 'False') return false;
  }
  return node.spec?.unschedulable !== true;
}

/** Config annotations current == desired (both set) and image annotations both absent or equal; state Done. */
export function isNodeDone(node: Node): boolean {
  const cur = ann(node, NodeAnnotations.currentConfig);
  const des = ann(node, NodeAnnotations.desiredConfig);
  if (cur === '' || des === '' || cur !== des) return false;
  const ci = ann(node, NodeAnnotations.currentImage);
  const di = ann(node, NodeAnnotations.desiredImage);
  if (ci !== di) return false;
  return ann(node, NodeAnnotations.state) === NodeStates.done;
}

/** The MCD failed to move the node to another config: current ≠ desired and state Degraded or Unreconcilable. */
export function isNodeMCDFailing(node: Node): boolean {
  if (ann(node, NodeAnnotations.currentConfig) === ann(node, NodeAnnotations.desiredConfig)) return false;
  const s = ann(node, NodeAnnotations.state);
  return s === NodeStates.degraded || s === NodeStates.unreconcilable;
}

/** Degraded or Unreconcilable (counted in degradedMachineCount). */
export function isNodeDegraded(node: Node): boolean {
  const s = ann(node, NodeAnnotations.state);
  return s === NodeStates.degraded || s === NodeStates.unreconcilable;
}

/** Unavailable for update purposes: not ready, or not done while not failing. */
export function isNodeUnavailable(node: Node): boolean {
  return !isNodeReady(node) || (!isNodeDone(node) && !isNodeMCDFailing(node));
}

/** The node's desired annotations already name the pool target. */
export function isNodeDesiredTarget(node: Node, target: PoolTarget): boolean {
  if (target.layered) {
    return (
      ann(node, NodeAnnotations.desiredImage) === target.layered.image &&
      ann(node, NodeAnnotations.desiredConfig) === target.layered.buildConfig
    );
  }
  return (
    ann(node, NodeAnnotations.desiredConfig) === target.config &&
    !Object.hasOwn(node.metadata.annotations ?? {}, NodeAnnotations.desiredImage)
  );
}

/** Done and at the pool target (counted in updatedMachineCount). */
export function isNodeUpdated(node: Node, target: PoolTarget): boolean {
  if (!isNodeDone(node) || !isNodeDesiredTarget(node, target)) return false;
  if (target.layered) return ann(node, NodeAnnotations.currentImage) === target.layered.image;
  return true;
}
