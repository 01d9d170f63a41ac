/**
 * The RBAC the cluster-operator SIMULATOR needs, as manifests for a ServiceAccount to run it under (what
 * `keelson rehearse` does): read ClusterOperators, ClusterVersions and Deployments (its informers), merge-patch
 * `clusteroperators/status` (its reports). Nothing more: a request beyond these is a 403 in a rehearsal.
 */
import type { KubeObject } from '../types.js';

/** Namespace and ServiceAccount the simulator runs as in a rehearsal. */
export const OPERATOR_SIMULATOR_IDENTITY = {
  namespace: 'keelson-operator-simulator',
  serviceAccount: 'operator-simulator',
} as const;

/** The Namespace, ServiceAccount, ClusterRole and ClusterRoleBinding of the simulator, in creation order. */
export function operatorSimulatorManifests(): KubeObject[] {
  const { namespace, serviceAccount } = OPERATOR_SIMULATOR_IDENTITY;
  const name = 'keelson:operator-simulator';
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccount, namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [
        {
          apiGroups: ['config.openshift.io'],
          resources: ['clusteroperators', 'clusterversions'],
          verbs: ['get', 'list', 'watch'],
        },
        { apiGroups: ['config.openshift.io'], resources: ['clusteroperators/status'], verbs: ['patch'] },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
    },
  ];
}
