/** The write strategies of the built-in kinds (defaulting, admission, validation), one module per kind. */
import type { Cluster } from '../cluster.js';
import { validateEvent, validateLease } from '../corevalidation.js';
import { defaultPriorityClass, validatePriorityClass } from '../priorityclass.js';
import { installCrdStrategy } from './crds.js';
import { installNamespaceStrategy } from './namespaces.js';
import { installPodStrategy } from './pods.js';
import { installSecretStrategy } from './secrets.js';
import { installServiceStrategy } from './services.js';
import { installWorkloadStrategies } from './workloads.js';

export { registerCrd } from './crds.js';

/** Registers every built-in kind's strategy on `cluster`. */
export function installStrategies(cluster: Cluster): void {
  installNamespaceStrategy(cluster);
  installSecretStrategy(cluster);
  installServiceStrategy(cluster);
  installPodStrategy(cluster);
  installWorkloadStrategies(cluster);
  cluster.setStrategy('', 'events', { validate: validateEvent });
  cluster.setStrategy('coordination.k8s.io', 'leases', { validate: validateLease });
  cluster.setStrategy('scheduling.k8s.io', 'priorityclasses', {
    prepareCreate: defaultPriorityClass,
    prepareUpdate: defaultPriorityClass,
    validate: validatePriorityClass,
  });
  installCrdStrategy(cluster);
}
