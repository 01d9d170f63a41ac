/**
 * Butane (`@keelson/ignition/butane`) into this package's render and diff: what `butane` then the MCO do with a
 * `.bu` file of the openshift variant.
 */
import { describe, expect, it } from 'vitest';
import { translateButane } from '@keelson/ignition/butane';
import { diffMachineConfigs, renderMachineConfigs, type MachineConfig } from '../src/index.js';

const OS_HEADER = `variant: openshift
version: 4.17.0
metadata:
  name: 99-worker-custom
  labels:
    machineconfiguration.openshift.io/role: worker
`;

describe('Butane openshift output rendered and diffed', () => {
  it('round trip: .bu -> MachineConfig -> renderMachineConfigs -> diffMachineConfigs shows the file and karg', () => {
    const base = translateButane(OS_HEADER.replace('99-worker-custom', '00-worker')).config as MachineConfig;
    const custom = translateButane(
      `${OS_HEADER}openshift:\n  kernel_arguments: [nosmt]\nstorage:\n  files:\n    - path: /etc/chrony.conf\n      mode: 0644\n      overwrite: true\n      contents:\n        inline: server time.example.com iburst\n`,
    ).config as MachineConfig;
    const before = renderMachineConfigs({ pool: 'worker', configs: [base] });
    const after = renderMachineConfigs({ pool: 'worker', configs: [base, custom] });
    expect(after.name).not.toBe(before.name);
    expect(after.spec.kernelArguments).toEqual(['nosmt']);
    const diff = diffMachineConfigs(before.machineConfig, after.machineConfig);
    expect(diff.files).toEqual(['/etc/chrony.conf']);
    expect(diff.changes.kargs).toBe(true);
  });
});
