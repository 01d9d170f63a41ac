/**
 * The OpenShift objects the CVO reads and writes, from `@keelson/api` (re-exported under the names this app uses).
 */
export type {
  ClusterVersion,
  ClusterVersionSpec,
  ClusterVersionStatus,
  ClusterOperator,
  OperandVersion,
  UpdateHistory,
  Release,
  ComponentOverride as ComponentOverrideSpec,
  ConditionalUpdate as ConditionalUpdateStatus,
  ConditionalUpdateRisk as ConditionalUpdateRiskSpec,
  Update as DesiredUpdate,
} from '@keelson/api';
