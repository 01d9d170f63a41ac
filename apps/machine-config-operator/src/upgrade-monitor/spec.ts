/**
 * The MCN spec's desired config, set by the node controller when it targets a node (upstream
 * pkg/upgrademonitor/upgrade_monitor.go UpdateMachineConfigNodeSpecDesiredAnnotation, called from
 * pkg/controller/node/node_controller.go setDesiredMachineConfigAnnotation). Reporting only: errors are logged.
 */
import { isNotFound, MachineConfigNodes, type KubeClient, type Logger } from '@keelson/kube';
import { NOT_YET_SET } from './conditions.js';

/**
 * Sets `spec.configVersion.desired` of node `name`'s MCN (nothing when it has no MCN; an API server stores nothing
 * when it already says so). One merge patch of that field: upstream GETs the MCN and updates it whole, two requests
 * on every node the controller targets; the patch names only the field it owns, so it needs neither the read nor a
 * resourceVersion (the daemon and the drain controller write the status, not the spec).
 */
export async function setMcnSpecDesired(
  client: KubeClient,
  name: string,
  desired: string,
  logger?: Logger,
): Promise<void> {
  const want = desired !== '' ? desired : NOT_YET_SET;
  try {
    await client
      .resource(MachineConfigNodes)
      .patch(name, { spec: { configVersion: { desired: want } } }, { type: 'merge' });
  } catch (e) {
    if (isNotFound(e)) return;
    logger?.error('error populating MCN for desired config version and image updates', {
      node: name,
      err: (e as Error).message,
    });
  }
}
