/** Paths and constants of the machine-config-daemon (pkg/daemon/constants), relative to the host root. */

/** JSON of the MachineConfig the node runs, written before a reboot. */
export const CURRENT_CONFIG_PATH = '/etc/machine-config-daemon/currentconfig';
/** Node annotations handed out by the machine-config-server for the first boot. */
export const NODE_ANNOTATIONS_PATH = '/etc/machine-config-daemon/node-annotations.json';
/** Where node-annotations.json is moved after the first successful boot check. */
export const NODE_ANNOTATIONS_BAK_PATH = '/etc/machine-config-daemon/node-annotation.json.bak';
/** The MachineConfig with an empty Ignition config, applied by firstboot. */
export const ENCAPSULATED_CONFIG_PATH = '/etc/ignition-machine-config-encapsulated.json';
/** The whole MachineConfig as served at first boot. */
export const MC_CONTENT_PATH = '/etc/mcs-machine-config-content.json';
/** The force file: skip validation, redo the OS update, reboot. */
export const FORCE_FILE_PATH = '/run/machine-config-daemon-force';
/** Backups of distribution files replaced by a MachineConfig. */
export const ORIG_DIR = '/etc/machine-config-daemon/orig';
/** Stamps meaning "there was no original file". */
export const NOORIG_DIR = '/etc/machine-config-daemon/noorig';
/** systemd unit directory. */
export const SYSTEMD_UNIT_DIR = '/etc/systemd/system';
/** SSH keys fragment of the core user. */
export const SSH_KEYS_PATH = '/home/core/.ssh/authorized_keys.d/ignition';
/** The node kubeconfig, forced to 0600 on every update. */
export const KUBECONFIG_PATH = '/etc/kubernetes/kubeconfig';
/** Files owned by the certificate writer, skipped in writes and validation. */
export const CERT_WRITER_FILES: readonly string[] = [
  '/etc/kubernetes/kubelet-ca.crt',
  '/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem',
  '/etc/mco/internal-registry-pull-secret.json',
];
/**
 * Keelson addition: the update journal ({from, to, phase, bootId}) that lets a daemon killed mid-update resume the
 * same update instead of validating a half-applied one against the old config.
 */
export const UPDATE_JOURNAL_PATH = '/etc/machine-config-daemon/update-journal.json';
