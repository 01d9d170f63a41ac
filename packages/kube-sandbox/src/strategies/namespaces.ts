/** Namespaces: the `kubernetes` finalizer, phase Active and the `kubernetes.io/metadata.name` label, as kube-apiserver. */
import type { Cluster } from '../cluster.js';
import { clone } from '../util.js';

export function installNamespaceStrategy(cluster: Cluster): void {
  cluster.setStrategy('', 'namespaces', {
    prepareCreate(obj) {
      obj['spec'] = { finalizers: ['kubernetes'] };
      obj['status'] = { phase: 'Active' };
      (obj.metadata ??= {}).labels = {
        ...(obj.metadata?.labels ?? {}),
        'kubernetes.io/metadata.name': obj.metadata?.name ?? '',
      };
    },
    prepareUpdate(obj, old) {
      obj['spec'] = clone(old['spec'] ?? {});
      (obj.metadata ??= {}).labels = {
        ...(obj.metadata?.labels ?? {}),
        'kubernetes.io/metadata.name': obj.metadata?.name ?? '',
      };
    },
  });
}
