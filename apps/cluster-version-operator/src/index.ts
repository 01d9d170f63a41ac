/** The Cluster Version Operator: applies a release payload in task-graph order and reports ClusterVersion */
export const APP_NAME = 'cluster-version-operator';
