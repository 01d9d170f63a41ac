/**
 * Hostile-input suite of @keelson/machineconfig (issue 14 items 7-8, issue 10 item 3.2): input sizes checked before
 * merging, MachineConfig field types validated in the library, unknown fields checked against the MachineConfig CRD
 * schema. (Item 9, the Ignition spec half, is in `@keelson/ignition`'s test/hostile/ignition-hostile.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  checkMachineConfigObject,
  checkStructural,
  diffMachineConfigs,
  MACHINECONFIG_CRD_SCHEMA,
  MachineConfigCheckError,
  MachineConfigRenderError,
  renderMachineConfigs,
  type MachineConfig,
} from '../../src/index.js';

const ROLE = { 'machineconfiguration.openshift.io/role': 'worker' };
const mc = (name: string, spec: Record<string, unknown>): MachineConfig => ({ metadata: { name, labels: ROLE }, spec });

function renderError(configs: MachineConfig[]): MachineConfigRenderError {
  try {
    renderMachineConfigs({ pool: 'worker', configs });
  } catch (e) {
    expect(e).toBeInstanceOf(MachineConfigRenderError);
    return e as MachineConfigRenderError;
  }
  throw new Error('rendered');
}
describe('sizes are checked before merging (item 7)', () => {
  it('refuses 40 MB of input spread over many MachineConfigs at once, naming the limit', () => {
    const file = (i: number) => ({ path: `/etc/f${i}`, contents: { source: `data:,${'x'.repeat(1_000_000)}` } });
    const configs = Array.from({ length: 40 }, (_, i) =>
      mc(`99-f${String(i).padStart(2, '0')}`, {
        config: { ignition: { version: '3.5.0' }, storage: { files: [file(i)] } },
      }),
    );
    const before = process.memoryUsage().heapUsed;
    const e = renderError(configs);
    expect(e.code).toBe('MC_TOO_LARGE');
    expect(e.message).toMatch(/refused before merging/);
    // no merge happened: far less than the input was allocated
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(40 * 1024 * 1024);
  });

  it('refuses one MachineConfig above 1.5 MiB (the API server could not store it)', () => {
    const e = renderError([
      mc('99-big', {
        config: { ignition: { version: '3.5.0' } },
        kernelArguments: Array.from({ length: 200_000 }, () => 'quiet=1'),
      }),
    ]);
    expect(e).toMatchObject({ code: 'MC_TOO_LARGE', machineConfig: '99-big' });
  });
});

describe('MachineConfig field types (item 8)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['kernelArguments as a string', { kernelArguments: 'nosmt' }, 'spec.kernelArguments'],
    ['a null kernel argument', { kernelArguments: [null] }, 'spec.kernelArguments[0]'],
    ['a number kernel argument', { kernelArguments: ['a', 3] }, 'spec.kernelArguments[1]'],
    ['osImageURL as a number', { osImageURL: 42 }, 'spec.osImageURL'],
    ['osImageURL as an object', { osImageURL: { a: 1 } }, 'spec.osImageURL'],
    ['extensions as a string', { extensions: 'x' }, 'spec.extensions'],
    ['a null extension', { extensions: [null] }, 'spec.extensions[0]'],
    ['fips as a string', { fips: 'true' }, 'spec.fips'],
    ['kernelType as a list', { kernelType: ['realtime'] }, 'spec.kernelType'],
    ['config as a list', { config: [] }, 'spec.config'],
  ];
  for (const [name, spec, field] of cases) {
    it(`render refuses ${name} with MC_INVALID_FIELD at ${field}`, () => {
      const e = renderError([mc('99-x', spec)]);
      expect(e.code).toBe('MC_INVALID_FIELD');
      expect(e.machineConfig).toBe('99-x');
      expect(e.message).toContain(field);
    });
  }

  it('kernelArguments: null is allowed (nullable in the CRD) and extensions: null is like absent', () => {
    expect(
      renderMachineConfigs({ pool: 'worker', configs: [mc('99-x', { kernelArguments: null, extensions: null })] }).spec
        .kernelArguments,
    ).toEqual([]);
  });

  it('diffMachineConfigs refuses a null kernel argument instead of throwing a TypeError', () => {
    const a = mc('rendered-a', { kernelArguments: ['a'] });
    const b = mc('rendered-b', { kernelArguments: [null] });
    expect(() => diffMachineConfigs(a, b)).toThrow(MachineConfigCheckError);
    expect(() => diffMachineConfigs(a, b)).toThrow(/spec\.kernelArguments\[0\]/);
  });
});

describe('unknown fields against the MachineConfig CRD (issue 10 item 3.2)', () => {
  const base = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name: '99-x', labels: ROLE },
  };

  it('the schema in the library is the copied upstream CRD schema', () => {
    const crd = parse(
      readFileSync(new URL('../../crds/0000_80_machine-config_01_machineconfigs.crd.yaml', import.meta.url), 'utf8'),
    ) as { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } };
    const strip = (n: unknown): unknown =>
      Array.isArray(n)
        ? n.map(strip)
        : n !== null && typeof n === 'object'
          ? Object.fromEntries(
              Object.entries(n)
                .filter(([k]) => k !== 'description')
                .map(([k, v]) => [k, strip(v)]),
            )
          : n;
    expect(MACHINECONFIG_CRD_SCHEMA).toEqual(strip(crd.spec.versions[0]?.schema.openAPIV3Schema));
  });

  it('spec.kernelArgument is reported as dropped by default and refused with strict', () => {
    const o = { ...base, spec: { kernelArgument: ['nosmt'] }, status: {} };
    const r = checkMachineConfigObject(o, { source: 'mc.yaml' });
    expect(r.pruned).toEqual(['spec.kernelArgument', 'status']);
    expect(r.warnings[0]).toMatch(/mc\.yaml: MachineConfig "99-x": unknown field "spec\.kernelArgument"/);
    expect(() => checkMachineConfigObject(o, { strict: true })).toThrow(
      expect.objectContaining({ code: 'MC_UNKNOWN_FIELD', field: 'spec.kernelArgument' }) as Error,
    );
  });

  it('an Ignition storage.file is reported as an unknown field of spec.config', () => {
    const o = {
      ...base,
      spec: { config: { ignition: { version: '3.2.0' }, storage: { file: [{ path: '/etc/x' }] } } },
    };
    const r = checkMachineConfigObject(o);
    expect(r.unusedIgnitionKeys).toEqual(['spec.config.storage.file']);
    expect(() => checkMachineConfigObject(o, { strict: true })).toThrow(MachineConfigCheckError);
  });

  it('unknown keys inside spec.config are kept by the API server (x-kubernetes-preserve-unknown-fields)', () => {
    expect(checkStructural({ spec: { config: { anything: 1 } } }, MACHINECONFIG_CRD_SCHEMA)).toEqual({
      pruned: [],
      nulls: [],
      errors: [],
    });
  });

  it('a Butane file is refused with an error that says it is Butane', () => {
    const butane = {
      variant: 'openshift',
      version: '4.16.0',
      metadata: { name: '99-worker-x', labels: ROLE },
      storage: { files: [] },
    };
    expect(() => checkMachineConfigObject(butane, { source: 'x.bu' })).toThrow(
      expect.objectContaining({
        code: 'MC_BUTANE',
        message: expect.stringMatching(
          /x\.bu: is a Butane config \(variant: openshift, version: 4\.16\.0\), not a MachineConfig/,
        ) as string,
      }) as Error,
    );
  });

  it('wrong types are refused as the API server would (422 wording)', () => {
    expect(() => checkMachineConfigObject({ ...base, spec: { kernelArguments: 'nosmt' } })).toThrow(
      /spec\.kernelArguments: Invalid value: "string": spec\.kernelArguments in body must be of type array/,
    );
  });
});
