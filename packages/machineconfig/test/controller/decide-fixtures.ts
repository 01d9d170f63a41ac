/** Fixtures shared by the controllers' decision tests: a node with config annotations, a pool, a fixed clock. */
import type { MachineConfigPool, Node } from '@keelson/api';

export const A = 'machineconfiguration.openshift.io/';
export const node = (
  name: string,
  labels: Record<string, string>,
  cur: string,
  des: string,
  state = 'Done',
  created = '2026-01-01T00:00:00Z',
): Node => ({
  metadata: {
    name,
    labels,
    creationTimestamp: created,
    annotations: { [`${A}currentConfig`]: cur, [`${A}desiredConfig`]: des, [`${A}state`]: state },
  },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});
export const mpool = (
  name: string,
  target: string,
  spec: Partial<MachineConfigPool['spec']> = {},
): MachineConfigPool => ({
  metadata: { name, generation: 1 },
  spec: {
    nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    configuration: { name: target },
    ...spec,
  },
});
export const now = new Date('2026-02-01T00:00:00Z');
