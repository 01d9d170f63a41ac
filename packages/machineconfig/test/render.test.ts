import { describe, expect, it } from 'vitest';
import { MachineConfigRenderError, renderMachineConfigs } from '../src/render.js';
import type { MachineConfig } from '../src/types.js';
import { vectorsFor } from './vectors.js';

interface VectorMC {
  name: string;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  spec: {
    configRaw?: string;
    osImageURL?: string;
    baseOSExtensionsContainerImage?: string;
    kernelArguments?: string[] | null;
    extensions?: string[] | null;
    fips?: boolean;
    kernelType?: string;
  };
}

export function toMachineConfig(v: VectorMC): MachineConfig {
  const { configRaw, ...spec } = v.spec;
  return {
    metadata: { name: v.name, labels: v.labels ?? null, annotations: v.annotations ?? null },
    spec: configRaw === undefined ? spec : { ...spec, config: configRaw },
  };
}

describe('renderMachineConfigs: render.* vectors', () => {
  const vs = vectorsFor('render.generateRenderedMachineConfig');
  it('has the 28 vectors', () => expect(vs.length).toBe(28));
  for (const v of vs) {
    it(v.name, () => {
      const input = v.input as {
        pool: string;
        controllerConfig: Record<string, string>;
        controllerVersionHash?: string;
        configs: VectorMC[];
      };
      const run = () =>
        renderMachineConfigs({
          pool: input.pool,
          configs: input.configs.map(toMachineConfig),
          controllerConfig: input.controllerConfig,
          ...(input.controllerVersionHash !== undefined ? { controllerVersion: input.controllerVersionHash } : {}),
        });
      if (typeof v.expected['error'] === 'string') {
        let err: unknown;
        try {
          run();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(MachineConfigRenderError);
        expect((err as Error).message).toBe(v.expected['error']);
        return;
      }
      const r = run();
      const exp = v.expected as {
        renderedName: string;
        poolSpecConfigurationSource: string[];
        spec: Record<string, unknown>;
        hashInputYAML?: string;
      };
      const { configRaw, ...rest } = exp.spec;
      expect(r.configRaw).toBe(configRaw);
      expect({ ...r.spec, config: undefined }).toEqual({ ...rest, config: undefined });
      if (exp.hashInputYAML !== undefined) expect(r.hashInputYAML).toBe(exp.hashInputYAML);
      expect(r.name).toBe(exp.renderedName);
      expect(r.source).toEqual(exp.poolSpecConfigurationSource);
      expect(r.machineConfig.metadata.name).toBe(exp.renderedName);
      expect(r.machineConfig.metadata.ownerReferences?.[0]).toMatchObject({
        kind: 'MachineConfigPool',
        name: input.pool,
        controller: true,
        blockOwnerDeletion: true,
      });
    });
  }
});

describe('render-time reconcilability against the current rendered config', () => {
  const worker = { 'machineconfiguration.openshift.io/role': 'worker' };
  const base: MachineConfig = {
    metadata: { name: '00-base', labels: worker },
    spec: { config: { ignition: { version: '3.5.0' } } },
  };
  const current = renderMachineConfigs({ pool: 'worker', configs: [base] }).machineConfig;
  it('accepts reconcilable changes', () => {
    const files: MachineConfig = {
      metadata: { name: '50-files', labels: worker },
      spec: {
        config: {
          ignition: { version: '3.5.0' },
          storage: { files: [{ path: '/etc/x', contents: { source: 'data:,x' } }] },
        },
      },
    };
    expect(renderMachineConfigs({ pool: 'worker', configs: [base, files], currentRendered: current }).name).toMatch(
      /^rendered-worker-/,
    );
  });
  it('names the MC that brings an unreconcilable change', () => {
    const disks: MachineConfig = {
      metadata: { name: '60-disks', labels: worker },
      spec: {
        config: { ignition: { version: '3.5.0' }, storage: { disks: [{ device: '/dev/sdb', wipeTable: true }] } },
      },
    };
    const run = () => renderMachineConfigs({ pool: 'worker', configs: [base, disks], currentRendered: current });
    expect(run).toThrow(MachineConfigRenderError);
    expect(run).toThrow(
      `reconciliation failed between current config "${current.metadata.name}" and base config "60-disks": ignition disks section contains changes`,
    );
    expect(
      renderMachineConfigs({
        pool: 'worker',
        configs: [base, disks],
        currentRendered: current,
        irreconcilableStorageOverrides: ['Disks'],
      }).name,
    ).toMatch(/^rendered-worker-/);
  });
});

describe('size check', () => {
  it('refuses a rendered MachineConfig above 1,572,864 bytes', () => {
    const big = 'x'.repeat(1_600_000);
    const mc: MachineConfig = {
      metadata: { name: '99-big', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: {
        config: {
          ignition: { version: '3.5.0' },
          storage: { files: [{ path: '/etc/big', contents: { source: `data:,${big}` } }] },
        },
      },
    };
    // one input MachineConfig above the limit fails before merging (issue 14 item 7)
    expect(() => renderMachineConfigs({ pool: 'worker', configs: [mc] })).toThrow(
      /^MachineConfig 99-big is larger than 1572864 bytes/,
    );
    // inputs that each fit but whose merge does not: the MCO's own check on the rendered object
    const role = { 'machineconfiguration.openshift.io/role': 'worker' };
    const a: MachineConfig = {
      metadata: { name: '99-a', labels: role },
      spec: {
        config: {
          ignition: { version: '3.5.0' },
          storage: { files: [{ path: '/etc/a', contents: { source: `data:,${'a'.repeat(1_540_000)}` } }] },
        },
      },
    };
    const b: MachineConfig = {
      metadata: { name: '99-b', labels: role },
      spec: {
        config: {
          ignition: { version: '3.5.0' },
          storage: {
            directories: Array.from({ length: 400 }, (_, i) => ({ path: `/var/lib/${'d'.repeat(100)}/${i}` })),
          },
        },
      },
    };
    expect(() => renderMachineConfigs({ pool: 'worker', configs: [a, b] })).toThrow(
      /^size validation failed: rendered MachineConfig rendered-worker-[0-9a-f]{32} is too large \(\d+ bytes, max 1572864 bytes\)/,
    );
    const small = renderMachineConfigs({
      pool: 'worker',
      configs: [{ ...mc, spec: { config: { ignition: { version: '3.5.0' } } } }],
    });
    expect(small.sizeBytes).toBeLessThan(1000);
  });
});
