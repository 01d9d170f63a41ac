/**
 * The operator's MachineConfiguration task (openshift/machine-config-operator pkg/operator/sync.go
 * syncMachineConfiguration): `cluster` is created (managementState Managed) when missing, and its status carries
 * `nodeDisruptionPolicyStatus.clusterPolicies` — the MCO's default policies merged with the spec's
 * (apihelpers.MergeClusterPolicies: a user policy for a default path or unit replaces it, others are appended, a user
 * SSH key policy replaces the default) — and `observedGeneration`, which the daemons wait for before they read the
 * policies. The status is written only when it differs from what is stored. A `BootImageUpdateDegraded` condition
 * True fails the task, as upstream. (Boot image status — managedBootImagesStatus — is not computed.)
 */
import { clusterNodeDisruptionPolicies, semanticallyContains } from '@keelson/machineconfig';
import { isAlreadyExists, MachineConfigurations, type KubeClient, type Logger } from '@keelson/kube';
import type { MachineConfiguration, MachineConfigurationStatus } from '@keelson/api';
import { toDisruptionPolicy } from '../daemon/start.js';
import { OperatorSyncError } from '@keelson/machineconfig';

/** Name of the MCO's operator configuration object (upstream ctrlcommon.MCOOperatorKnobsObjectName). */
export const MACHINE_CONFIGURATION_NAME = 'cluster';

/** The status the operator wants for `mc` (its conditions and other fields kept). */
export function machineConfigurationStatus(mc: MachineConfiguration): MachineConfigurationStatus {
  const user = mc.spec.nodeDisruptionPolicy;
  const merged = clusterNodeDisruptionPolicies(user ? toDisruptionPolicy(user) : {});
  return {
    ...mc.status,
    nodeDisruptionPolicyStatus: { clusterPolicies: merged },
    ...(mc.metadata.generation !== undefined ? { observedGeneration: mc.metadata.generation } : {}),
  };
}

/** One pass: create `cluster` if missing, write its status if it changed; throws on a degraded boot image update. */
export async function syncMachineConfiguration(
  client: KubeClient,
  existing: MachineConfiguration | undefined,
  log: Logger,
): Promise<undefined> {
  const mcs = client.resource(MachineConfigurations);
  let mc = existing;
  if (mc === undefined) {
    log.info("MachineConfiguration object doesn't exist; a new one will be created");
    try {
      mc = await mcs.create({
        apiVersion: 'operator.openshift.io/v1',
        kind: 'MachineConfiguration',
        metadata: { name: MACHINE_CONFIGURATION_NAME },
        spec: { managementState: 'Managed' },
      });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      mc = await mcs.get(MACHINE_CONFIGURATION_NAME);
    }
  }
  const want = machineConfigurationStatus(mc);
  // one way: the stored status may carry schema defaults; a removed policy still shows (array lengths differ)
  if (!semanticallyContains(mc.status ?? {}, want)) {
    log.info('Updating MachineConfiguration status', { observedGeneration: want.observedGeneration });
    mc = await mcs.updateStatus({ ...mc, status: want });
  }
  const degraded = (mc.status?.conditions ?? []).find(
    (c) => c.type === 'BootImageUpdateDegraded' && c.status === 'True',
  );
  if (degraded !== undefined)
    throw new OperatorSyncError('MachineConfiguration', `bootimage update failed: ${degraded.message}`);
  return undefined;
}
