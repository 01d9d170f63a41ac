import { describe, expect, it } from 'vitest';
import {
  MachineConfigRenderError,
  PoolSelectionError,
  customPool,
  defaultPool,
  compileLabelSelector,
  labelSelectorString,
  renderMachineConfigs,
  renderPool,
  selectMachineConfigs,
  type MachineConfig,
} from '../src/index.js';

const ROLE = 'machineconfiguration.openshift.io/role';
const mc = (name: string, role: string, file = `/etc/${name}`): MachineConfig => ({
  metadata: { name, labels: { [ROLE]: role } },
  spec: {
    config: {
      ignition: { version: '3.2.0' },
      storage: { files: [{ path: file, contents: { source: `data:,${name}` } }] },
    },
  },
});
const all = [
  mc('00-worker', 'worker'),
  mc('00-master', 'master'),
  mc('50-infra', 'infra'),
  mc('99-worker-ssh', 'worker'),
];

describe('label selector semantics', () => {
  const labels = { a: '1', b: '2' };
  it.each([
    [{ matchLabels: { a: '1' } }, true],
    [{ matchLabels: { a: '2' } }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'In' as const, values: ['0', '1'] }] }, true],
    [{ matchExpressions: [{ key: 'c', operator: 'NotIn' as const, values: ['x'] }] }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn' as const, values: ['1'] }] }, false],
    [{ matchExpressions: [{ key: 'b', operator: 'Exists' as const }] }, true],
    [{ matchExpressions: [{ key: 'b', operator: 'DoesNotExist' as const }] }, false],
    [{ matchLabels: { a: '1' }, matchExpressions: [{ key: 'z', operator: 'Exists' as const }] }, false],
    [{}, true],
    [null, false],
  ])('%j → %s', (sel, want) => {
    expect(compileLabelSelector(sel).matches(labels)).toBe(want);
  });
  it('prints like labels.Selector.String (sorted by key)', () => {
    expect(
      labelSelectorString({
        matchLabels: { z: 'v' },
        matchExpressions: [
          { key: 'a', operator: 'In', values: ['y', 'x'] },
          { key: 'm', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('a in (x,y),!m,z=v');
  });
  it('rejects In without values with the field path', () => {
    const pool = {
      metadata: { name: 'p' },
      spec: { machineConfigSelector: { matchExpressions: [{ key: 'a', operator: 'In' as const, values: [] }] } },
    };
    expect(() => selectMachineConfigs(pool, all)).toThrow(PoolSelectionError);
    try {
      selectMachineConfigs(pool, all);
    } catch (e) {
      expect((e as PoolSelectionError).path).toEqual([
        'spec',
        'machineConfigSelector',
        'matchExpressions',
        0,
        'values',
      ]);
    }
  });
});

describe('pool selection', () => {
  it('default pools select their role only', () => {
    expect(selectMachineConfigs(defaultPool('worker'), all).map((m) => m.metadata.name)).toEqual([
      '00-worker',
      '99-worker-ssh',
    ]);
    expect(selectMachineConfigs(defaultPool('master'), all).map((m) => m.metadata.name)).toEqual(['00-master']);
    expect(defaultPool('master').metadata.labels).toHaveProperty(
      ['operator.machineconfiguration.openshift.io/required-for-upgrade'],
      '',
    );
    expect(defaultPool('worker').metadata.labels).not.toHaveProperty([
      'operator.machineconfiguration.openshift.io/required-for-upgrade',
    ]);
  });
  it('a custom pool takes worker and its own MCs', () => {
    expect(selectMachineConfigs(customPool('infra'), all).map((m) => m.metadata.name)).toEqual([
      '00-worker',
      '50-infra',
      '99-worker-ssh',
    ]);
  });
  it('an empty selector is refused (SelectingAll)', () => {
    expect(() => selectMachineConfigs({ metadata: { name: 'x' }, spec: { machineConfigSelector: {} } }, all)).toThrow(
      'This machineconfigpool x is selecting all machineconfigs. A non-empty selector is required.',
    );
  });
});

describe('renderPool', () => {
  const cc = {
    metadata: { annotations: { 'machineconfiguration.openshift.io/release-image-version': '4.99.0' } },
    spec: { baseOSContainerImage: 'quay.io/os@sha256:1', baseOSExtensionsContainerImage: 'quay.io/ext@sha256:2' },
  };
  it('renders only what the pool selects (master MCs do not leak into worker)', () => {
    const r = renderPool({ ...defaultPool('worker'), metadata: { name: 'worker', uid: 'u-1' } }, all, cc, {
      controllerVersion: 'abc',
    });
    const direct = renderMachineConfigs({
      pool: 'worker',
      configs: [all[0] as MachineConfig, all[3] as MachineConfig],
      controllerConfig: {
        baseOSContainerImage: 'quay.io/os@sha256:1',
        baseOSExtensionsContainerImage: 'quay.io/ext@sha256:2',
      },
    });
    expect(r.name).toBe(direct.name);
    expect(r.name).toMatch(/^rendered-worker-[0-9a-f]{32}$/);
    expect(r.machineConfig.metadata.annotations).toEqual({
      'machineconfiguration.openshift.io/generated-by-controller-version': 'abc',
      'machineconfiguration.openshift.io/release-image-version': '4.99.0',
    });
    expect(r.machineConfig.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'MachineConfigPool',
      name: 'worker',
      uid: 'u-1',
      controller: true,
    });
    expect(r.spec.osImageURL).toBe('quay.io/os@sha256:1');
  });
  it('a pool nothing selects is an error naming the selector', () => {
    const p = { metadata: { name: 'workr' }, spec: { machineConfigSelector: { matchLabels: { [ROLE]: 'workr' } } } };
    expect(() => renderPool(p, all, cc)).toThrow(MachineConfigRenderError);
    expect(() => renderPool(p, all, cc)).toThrow(
      'no MachineConfigs found matching selector machineconfiguration.openshift.io/role=workr',
    );
  });
  it('a custom pool with only worker MCs hashes like the worker pool', () => {
    const workerOnly = all.filter((m) => m.metadata.labels?.[ROLE] === 'worker');
    const w = renderPool(defaultPool('worker'), workerOnly, cc);
    const i = renderPool(customPool('infra'), workerOnly, cc);
    expect(i.name.slice('rendered-infra-'.length)).toBe(w.name.slice('rendered-worker-'.length));
  });
});
