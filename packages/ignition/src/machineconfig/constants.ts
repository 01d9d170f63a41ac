/** Extension allow-list (extension → packages), as in the MCO daemon. */
export const SUPPORTED_EXTENSIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'two-node-ha': ['pacemaker', 'pcs', 'fence-agents-all'],
  ipsec: ['NetworkManager-libreswan', 'libreswan', 'openvswitch3.5-ipsec'],
  usbguard: ['usbguard'],
  kerberos: ['krb5-workstation', 'libkadm5'],
  'kernel-devel': ['kernel-devel', 'kernel-headers'],
  'sandboxed-containers': ['kata-containers'],
  sysstat: ['sysstat'],
});

