/**
 * Hostile-input suite of @keelson/ignition (issue 14 items 7-9, issue 10 item 3.2): input sizes checked before
 * merging, MachineConfig field types validated in the library, validate() never throwing, `__proto__` keys handled
 * the same way everywhere, linear 2.2 de-duplication, unknown fields checked against the MachineConfig CRD schema.
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
  merge,
  renderMachineConfigs,
  translate,
  validate,
  type IgnitionConfig,
  type IgnitionConfigV3,
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

describe('validate never throws; __proto__ is handled consistently; 2.2 is linear (item 9)', () => {
  it('a kernel argument nested 5 000 deep is an error entry, not a RangeError', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 5000; i++) deep = [deep];
    const r = validate({ ignition: { version: '3.5.0' }, kernelArguments: { shouldExist: [deep] } });
    expect(r.valid).toBe(false);
    expect(r.entries[0]?.message).toMatch(/nests deeper/);
  });

  it('validate never throws on hostile shapes', () => {
    const hostile: unknown[] = [
      null,
      1,
      'x',
      [],
      { ignition: null },
      { ignition: { version: '3.5.0' }, storage: 'x' },
      { ignition: { version: '3.5.0' }, storage: { files: [null, 1, 'x', { path: 7 }] } },
      JSON.parse('{"ignition":{"version":"3.5.0"},"__proto__":{"storage":{}}}'),
    ];
    for (const h of hostile) expect(() => validate(h)).not.toThrow();
  });

  it('a __proto__ key is reported as unused and dropped by translate and merge in every version', () => {
    const cfg = JSON.parse(
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,a"},"__proto__":{"append":[{"source":"data:,hidden"}],"mode":511}}]}}',
    ) as IgnitionConfig;
    expect(validate(cfg).entries).toContainEqual(
      expect.objectContaining({ kind: 'warning', message: 'unused key __proto__' }),
    );
    for (const v of ['3.1.0', '3.4.0', '3.5.0'] as const) {
      const out = translate(cfg, v) as unknown as { storage: { files: Record<string, unknown>[] } };
      const f = out.storage.files[0] ?? {};
      expect(Object.keys(f)).not.toContain('__proto__');
      expect(f['append']).toBeUndefined();
      expect(f['mode']).toBeUndefined();
      expect(Object.getPrototypeOf(f)).toBe(Object.prototype);
      expect(JSON.stringify(out)).not.toContain('hidden');
    }
    const merged = merge(cfg as IgnitionConfigV3, { ignition: { version: '3.5.0' } }) as unknown as {
      storage: { files: Record<string, unknown>[] };
    };
    expect(JSON.stringify(merged)).not.toContain('hidden');
    expect(Object.getPrototypeOf(merged.storage.files[0])).toBe(Object.prototype);
  });

  it('translating a 2.2 config with 50 000 passwd.users (one name, one key each) finishes and keeps every key once', () => {
    const users = Array.from({ length: 50_000 }, (_, i) => ({
      name: 'core',
      sshAuthorizedKeys: [`ssh-ed25519 k${i % 40_000}`],
    }));
    const out = translate({ ignition: { version: '2.2.0' }, passwd: { users } }, '3.5.0') as unknown as {
      passwd: { users: { sshAuthorizedKeys: string[] }[] };
    };
    expect(out.passwd.users).toHaveLength(1);
    expect(out.passwd.users[0]?.sshAuthorizedKeys).toHaveLength(40_000);
    // later users' keys first, as the MCO's dedupe walks from the end
    expect(out.passwd.users[0]?.sshAuthorizedKeys[0]).toBe('ssh-ed25519 k9999');
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
