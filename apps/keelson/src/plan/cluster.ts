/**
 * `keelson upgrade plan --kubeconfig`: read what the CVO and the MCO would judge from a live cluster — ClusterVersion
 * `version` (history, desired, conditions, overrides, available/conditional updates), every ClusterOperator (their
 * Upgradeable conditions), the MachineConfigPools (sizes, maxUnavailable, paused, selectors, current rendered config)
 * and the MachineConfigs. Read-only: the plan writes nothing.
 */
import type { ClusterOperator, ClusterVersion, MachineConfigPool } from '@keelson/api';
import type { MachineConfig } from '@keelson/machineconfig';
import type { FeatureGateObject, KubeObject } from '@keelson/release-payload';
import { ClusterOperators, isNotFound, MachineConfigPools, MachineConfigs, type KubeClient } from '@keelson/kube';
import { ADMIN_ACKS, ADMIN_GATES } from '@keelson/cluster-version';
import { getClusterVersion } from '../upgrade/cluster.js';

/** The objects the plan reads from a cluster. */
export interface LiveCluster {
  clusterVersion: ClusterVersion;
  operators: ClusterOperator[];
  /** Empty when the cluster has no MachineConfigPool API (no MCO). */
  pools: MachineConfigPool[];
  machineConfigs: MachineConfig[];
  /** ConfigMaps of `openshift-config-managed` labelled `release.openshift.io/verification-signatures` (the CVO's first signature store). */
  signatureConfigMaps: KubeObject[];
  /** FeatureGate `cluster` (undefined when absent: the Default feature set, no gates). */
  featureGate?: FeatureGateObject;
  /** `data` of `openshift-config-managed/admin-gates` (null: the ConfigMap does not exist). */
  adminGates?: Record<string, string> | null;
  /** `data` of `openshift-config/admin-acks` (null: the ConfigMap does not exist). */
  adminAcks?: Record<string, string> | null;
}

/** Label of the ConfigMaps that carry release signatures. */
export const SIGNATURES_LABEL = 'release.openshift.io/verification-signatures';

async function listOrEmpty<T>(list: () => Promise<{ items: T[] }>): Promise<T[]> {
  try {
    return (await list()).items;
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
}

/** Reads ClusterVersion `version`, ClusterOperators, MachineConfigPools and MachineConfigs (lists paginated). */
export async function readLiveCluster(client: KubeClient): Promise<LiveCluster> {
  const clusterVersion = await getClusterVersion(client);
  const [operators, pools, machineConfigs, signatureConfigMaps] = await Promise.all([
    listOrEmpty(() => client.resource(ClusterOperators).listAll()),
    listOrEmpty(() => client.resource(MachineConfigPools).listAll()),
    listOrEmpty(() => client.resource(MachineConfigs).listAll()),
    listOrEmpty(() =>
      client.request<{ items: KubeObject[] }>('GET', '/api/v1/namespaces/openshift-config-managed/configmaps', {
        query: { labelSelector: SIGNATURES_LABEL },
      }),
    ),
  ]);
  const orUndefined = <T>(p: Promise<T>): Promise<T | undefined> =>
    p.catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
  const [featureGate, gates, acks] = await Promise.all([
    orUndefined(client.request<FeatureGateObject>('GET', '/apis/config.openshift.io/v1/featuregates/cluster')),
    orUndefined(
      client.request<{ data?: Record<string, string> }>(
        'GET',
        `/api/v1/namespaces/${ADMIN_GATES.namespace}/configmaps/${ADMIN_GATES.name}`,
      ),
    ),
    orUndefined(
      client.request<{ data?: Record<string, string> }>(
        'GET',
        `/api/v1/namespaces/${ADMIN_ACKS.namespace}/configmaps/${ADMIN_ACKS.name}`,
      ),
    ),
  ]);
  return {
    clusterVersion,
    operators,
    pools,
    machineConfigs: machineConfigs as unknown as MachineConfig[],
    signatureConfigMaps,
    ...(featureGate !== undefined ? { featureGate } : {}),
    adminGates: gates === undefined ? null : { ...(gates.data ?? {}) },
    adminAcks: acks === undefined ? null : { ...(acks.data ?? {}) },
  };
}
