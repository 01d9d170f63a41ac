import { describe, expect, it } from 'vitest';
import { translateButane } from '../../src/butane/index.js';

describe('smoke', () => {
  it('fcos', () => {
    const r = translateButane(`variant: fcos
version: 1.5.0
storage:
  files:
    - path: /etc/hello
      mode: 0644
      contents:
        inline: hello world
  filesystems:
    - device: /dev/vdb
      path: /var/data
      format: xfs
      with_mount_unit: true
systemd:
  units:
    - name: a.service
      enabled: true
      contents: "[Unit]\\n"
boot_device:
  mirror:
    devices: [/dev/sda, /dev/sdb]
  layout: x86_64
  luks:
    tpm2: true
grub:
  users:
    - name: root
      password_hash: grub.pbkdf2.sha512.10000.AAA
bogus: 1
`);
    console.log(JSON.stringify(r, null, 1));
  });
  it('openshift', () => {
    const r = translateButane(`variant: openshift
version: 4.17.0
metadata:
  name: 99-worker-x
  labels:
    machineconfiguration.openshift.io/role: worker
openshift:
  kernel_arguments: [nosmt]
  fips: true
storage:
  files:
    - path: /etc/hello
      mode: 0644
      contents:
        inline: hello world
`);
    console.log(JSON.stringify(r, null, 1));
  });
});
