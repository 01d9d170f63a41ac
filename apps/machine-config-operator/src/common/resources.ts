/** Resource descriptors for the core kinds the MCO reads and writes (machine-config kinds come from `@keelson/kube`). */
import { defineResource } from '@keelson/kube';
import type { Node, Pod, PodDisruptionBudget } from './api-types.js';

/** Core `v1` Node. */
export const Nodes = defineResource<Node>({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
});
/** Core `v1` Pod. */
export const Pods = defineResource<Pod>({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
/** `policy/v1` PodDisruptionBudget. */
export const PodDisruptionBudgets = defineResource<PodDisruptionBudget>({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  namespaced: true,
});
