/**
 * Minimal local API types for the daemon, server and virtual nodes, until @keelson/api ships the shared ones
 * (then this file is replaced by imports from @keelson/api). Names and values follow openshift/api and
 * machine-config-operator pkg/daemon/constants.
 */
import { defineResource, type KubeObject, type MachineConfig, type MachineConfigPool, type ControllerConfig } from '@keelson/kube';

export type { MachineConfig, MachineConfigPool, ControllerConfig, KubeObject };

/** A Node condition (core/v1 NodeCondition). */
export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

/** core/v1 Node (the fields the daemon and the virtual nodes read or write). */
export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: { key: string; value?: string; effect: string }[] };
  status?: { conditions?: NodeCondition[]; nodeInfo?: Record<string, string> };
}

/** Descriptor of core/v1 nodes. */
export const Nodes = defineResource<Node>({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false });

const P = 'machineconfiguration.openshift.io/';

/** Node annotations written and read by the daemon (pkg/daemon/constants). */
export const NodeAnnotations = {
  currentConfig: `${P}currentConfig`,
  desiredConfig: `${P}desiredConfig`,
  state: `${P}state`,
  reason: `${P}reason`,
  desiredDrain: `${P}desiredDrain`,
  lastAppliedDrain: `${P}lastAppliedDrain`,
  firstPivotConfig: `${P}firstPivotConfig`,
  postConfigAction: `${P}post-config-action`,
  currentImage: `${P}currentImage`,
  desiredImage: `${P}desiredImage`,
  controlPlaneTopology: `${P}controlPlaneTopology`,
} as const;

/** Values of the `state` annotation. */
export type DaemonState = 'Done' | 'Working' | 'Degraded' | 'Unreconcilable';

/** Value of `post-config-action` before a reboot. */
export const POST_CONFIG_ACTION_REBOOTING = 'Rebooting';

/** Label putting a MachineConfig into a pool. */
export const MC_ROLE_LABEL = `${P}role`;

/** The singleton ControllerConfig name. */
export const CONTROLLER_CONFIG_NAME = 'machine-config-controller';

/** The MCO's namespace. */
export const MCO_NAMESPACE = 'openshift-machine-config-operator';
