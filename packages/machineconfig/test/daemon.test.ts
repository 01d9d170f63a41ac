import { describe, expect, it } from 'vitest';
import {
  MachineConfigReconcileError,
  type DisruptionAction,
  type FilePolicy,
  type StorageOverride,
  diffMachineConfigs,
  extensionsArgs,
  findClosestFilePolicyPathMatch,
  isPathInDropins,
  kargsArgs,
} from '../src/daemon.js';
import type { MachineConfig } from '../src/types.js';
import { vectorsFor } from './vectors.js';

interface VSpec {
  configRaw?: string;
  osImageURL?: string;
  fips?: boolean;
  kernelType?: string;
  kernelArguments?: string[] | null;
  extensions?: string[] | null;
}
const mc = (name: string, s: VSpec): MachineConfig => {
  const { configRaw, ...spec } = s;
  return { metadata: { name }, spec: configRaw === undefined ? spec : { ...spec, config: configRaw } };
};

describe('diffMachineConfigs: daemon.* vectors', () => {
  const vs = vectorsFor('daemon.reconcilable+newMachineConfigDiff');
  it('has the 58 vectors', () => expect(vs.length).toBe(58));
  for (const v of vs) {
    it(v.name, () => {
      const input = v.input as { old: VSpec; new: VSpec; irreconcilableStorageOverrides?: StorageOverride[] };
      const run = () =>
        diffMachineConfigs(mc('old', input.old), mc('new', input.new), {
          irreconcilableStorageOverrides: input.irreconcilableStorageOverrides ?? [],
        });
      const e = v.expected;
      if (typeof e['reconcileError'] === 'string') {
        let err: unknown;
        try {
          run();
        } catch (x) {
          err = x;
        }
        expect(err).toBeInstanceOf(MachineConfigReconcileError);
        expect((err as Error).message).toBe(e['reconcileError']);
        return;
      }
      const d = run();
      expect(d.changes).toEqual(e['diff']);
      expect(d.files).toEqual(e['diffFileSet(sorted)']);
      expect(d.units).toEqual({ added: e['unitsAdded'], updated: e['unitsUpdated'], removed: e['unitsRemoved'] });
      expect(d.legacyActions).toEqual(e['legacyPostConfigActions(firstboot path)']);
      expect(d.nodeDisruptionActions).toEqual(e['nodeDisruptionActions(default cluster policies)']);
      if (e['rpmOstreeKargsArgs'] !== undefined) expect(d.rpmOstreeKargsArgs).toEqual(e['rpmOstreeKargsArgs']);
      else expect(d.rpmOstreeKargsArgs).toBeUndefined();
    });
  }
});

describe('node disruption policies', () => {
  const base =
    '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/app.conf","contents":{"source":"data:,a"}}]}}';
  const next =
    '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/app.conf","contents":{"source":"data:,b"}}]}}';
  it('reboots without a policy and follows a user policy when given', () => {
    expect(
      diffMachineConfigs(mc('a', { configRaw: base }), mc('b', { configRaw: next })).nodeDisruptionActions,
    ).toEqual([{ type: 'Reboot' }]);
    const d = diffMachineConfigs(mc('a', { configRaw: base }), mc('b', { configRaw: next }), {
      nodeDisruptionPolicy: {
        files: [{ path: '/etc', actions: [{ type: 'Restart', restart: { serviceName: 'app.service' } }] }],
      },
    });
    expect(d.nodeDisruptionActions).toEqual([{ type: 'Restart', restart: { serviceName: 'app.service' } }]);
    expect(d.drainRequired).toBe(false);
    expect(d.legacyActions).toEqual(['reboot']);
  });
  it('unit policies match by exact name; the force file forces a reboot', () => {
    const u1 = '{"ignition":{"version":"3.5.0"},"systemd":{"units":[{"name":"a.service","contents":"x"}]}}';
    const u2 = '{"ignition":{"version":"3.5.0"},"systemd":{"units":[{"name":"a.service","contents":"y"}]}}';
    const d = diffMachineConfigs(mc('a', { configRaw: u1 }), mc('b', { configRaw: u2 }), {
      nodeDisruptionPolicy: { units: [{ name: 'a.service', actions: [{ type: 'DaemonReload' }] }] },
    });
    expect(d.nodeDisruptionActions).toEqual([{ type: 'DaemonReload' }]);
    const f = diffMachineConfigs(mc('a', { configRaw: u1 }), mc('b', { configRaw: u1 }), { forceFile: true });
    expect(f.changes.osUpdate).toBe(true);
    expect(f.nodeDisruptionActions).toEqual([{ type: 'Reboot' }]);
  });
});

describe('rpm-ostree arguments', () => {
  for (const v of vectorsFor('daemon.generateKargs')) {
    it(v.name, () => {
      const i = v.input as { oldKernelArguments: string[] | null; newKernelArguments: string[] | null };
      expect(kargsArgs(i.oldKernelArguments, i.newKernelArguments)).toEqual(v.expected['args']);
    });
  }
  for (const v of vectorsFor('daemon.generateExtensionsArgs')) {
    it(v.name, () => {
      const i = v.input as { installedRequestedPackages: string[]; extensions: string[] };
      expect(extensionsArgs(i.installedRequestedPackages, i.extensions)).toEqual(v.expected['args']);
    });
  }
  it('covers the 16 kargs/extensions vectors', () => {
    expect(vectorsFor('daemon.generateKargs').length + vectorsFor('daemon.generateExtensionsArgs').length).toBe(16);
  });
});

describe('policy path matching and dropins', () => {
  for (const v of vectorsFor('common.FindClosestFilePolicyPathMatch')) {
    it(v.name, () => {
      const i = v.input as { diffPath: string; filePolicies: FilePolicy[] };
      const r = findClosestFilePolicyPathMatch(i.diffPath, i.filePolicies);
      expect(r).toEqual({ found: v.expected['found'], actions: v.expected['actions'] as DisruptionAction[] });
    });
  }
  for (const v of vectorsFor('daemon.isPathInDropins')) {
    it(v.name, () => {
      const i = v.input as { path: string; units: { name: string; dropins?: { name: string }[] }[] };
      expect(isPathInDropins(i.path, i.units)).toBe(v.expected['result']);
    });
  }
});
