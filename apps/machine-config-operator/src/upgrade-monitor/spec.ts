/**
 * The MCN spec's desired config, set by the node controller when it targets a node (upstream
 * pkg/upgrademonitor/upgrade_monitor.go UpdateMachineConfigNodeSpecDesiredAnnotation, called from
 * pkg/controller/node/node_controller.go setDesiredMachineConfigAnnotation). Reporting only: errors are logged.
 */
import { isNotFound, MachineConfigNodes, type KubeClient, type Logger } from '@keelson/kube';
import { NOT_YET_SET } from './conditions.js';

/** Sets `spec.configVersion.desired` of node `name`'s MCN (nothing when it has no MCN or already says so). */
export async function setMcnSpecDesired(
  client: KubeClient,
  name: string,
  desired: string,
  logger?: Logger,
): Promise<void> {
  const mcns = client.resource(MachineConfigNodes);
  try {
    const mcn = await mcns.get(name);
    const want = desired !== '' ? desired : NOT_YET_SET;
    if (mcn.spec.configVersion.desired === want) return;
    await mcns.update({ ...mcn, spec: { ...mcn.spec, configVersion: { desired: want } } });
  } catch (e) {
    if (isNotFound(e)) return;
    logger?.error('error populating MCN for desired config version and image updates', {
      node: name,
      err: (e as Error).message,
    });
  }
}
