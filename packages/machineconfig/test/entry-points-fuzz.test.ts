/**
 * Property-based fuzzing of the MachineConfig entry points (issue 24 §3) with the shapes that escaped before: a
 * `spec.config` nested thousands of levels deep (RangeError), MachineConfigs without `spec` or with `spec: null`
 * (TypeError in diffMachineConfigs), and raw JSON text of the same. Only the package's typed errors may come out.
 * Bounded runs (a few seconds in CI).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkMachineConfigObject,
  diffMachineConfigs,
  MachineConfigCheckError,
  MachineConfigIgnitionError,
  MachineConfigReconcileError,
  MachineConfigRenderError,
  parseMachineConfigIgnition,
  renderMachineConfigs,
  type MachineConfig,
} from '../src/index.js';

const TYPED = [
  MachineConfigRenderError,
  MachineConfigReconcileError,
  MachineConfigCheckError,
  MachineConfigIgnitionError,
];

function typedOnly(f: () => unknown): void {
  try {
    f();
  } catch (e) {
    if (!TYPED.some((t) => e instanceof t)) throw e;
  }
}

/** `{ <key>: { <key>: … leaf } }` `depth` levels deep, built iteratively. */
function nest(depth: number, key: string, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = key === '[]' ? [v] : { [key]: v };
  return v;
}

/** A deep config described by its shape (fast-check prints and shrinks the description, never the deep value). */
interface Deep {
  depth: number;
  key: string;
  where: string;
  raw: boolean;
}
const deepArb = fc.record({
  depth: fc.integer({ min: 0, max: 6000 }),
  key: fc.constantFrom('storage', 'a', '[]', 'files'),
  where: fc.constantFrom('top', 'storage', 'systemd'),
  raw: fc.boolean(),
});

/** The config object, or its raw JSON text built by concatenation (JSON.stringify would overflow the stack here). */
function buildConfig(d: Deep): unknown {
  const k = d.key === '[]' ? 'units' : d.key;
  if (d.raw) {
    const open = d.key === '[]' ? '['.repeat(d.depth) : `{${JSON.stringify(d.key)}:`.repeat(d.depth);
    const close = d.key === '[]' ? ']'.repeat(d.depth) : '}'.repeat(d.depth);
    const inner = `${open}1${close}`;
    return d.where === 'top'
      ? `{"ignition":{"version":"3.4.0"},"x":${inner}}`
      : `{"ignition":{"version":"3.4.0"},${JSON.stringify(d.where)}:{${JSON.stringify(k)}:${inner}}}`;
  }
  const inner = nest(d.depth, d.key, 1);
  return d.where === 'top'
    ? { ignition: { version: '3.4.0' }, x: inner }
    : { ignition: { version: '3.4.0' }, [d.where]: { [k]: inner } };
}

type SpecDesc =
  { t: 'none' } | { t: 'null' } | { t: 'deep'; d: Deep } | { t: 'json'; v: unknown } | { t: 'kargs'; k: string[] };
const specArb: fc.Arbitrary<SpecDesc> = fc.oneof(
  fc.constant({ t: 'none' as const }),
  fc.constant({ t: 'null' as const }),
  deepArb.map((d) => ({ t: 'deep' as const, d })),
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ t: 'json' as const, v })),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }).map((k) => ({ t: 'kargs' as const, k })),
);
const mcArb = fc.record({ name: fc.constantFrom('00-a', '01-b', '99-c'), spec: specArb });

function buildMc({ name, spec }: { name: string; spec: SpecDesc }): MachineConfig {
  const mc: Record<string, unknown> = {
    metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
  };
  if (spec.t === 'null') mc['spec'] = null;
  else if (spec.t === 'deep') mc['spec'] = { config: buildConfig(spec.d) };
  else if (spec.t === 'json') mc['spec'] = { config: spec.v };
  else if (spec.t === 'kargs') mc['spec'] = { kernelArguments: spec.k };
  return mc as unknown as MachineConfig;
}

describe('MachineConfig entry points throw only typed errors', () => {
  it('renderMachineConfigs: deep spec.config (object or raw JSON), missing or null spec', () => {
    fc.assert(
      fc.property(fc.array(mcArb, { minLength: 1, maxLength: 3 }), (mcs) => {
        typedOnly(() => renderMachineConfigs({ pool: 'worker', configs: mcs.map(buildMc) }));
      }),
      { numRuns: 150 },
    );
    expect(() =>
      renderMachineConfigs({
        pool: 'worker',
        configs: [{ metadata: { name: 'a', labels: { r: 'w' } }, spec: { config: nest(5000, 'a', 1) as never } }],
      }),
    ).toThrow(/nests deeper than 256 levels/);
  });

  it('diffMachineConfigs: deep configs, missing or null spec (a spec-less MachineConfig is the zero-value spec)', () => {
    fc.assert(
      fc.property(mcArb, mcArb, (a, b) => {
        typedOnly(() => diffMachineConfigs(buildMc(a), buildMc(b)));
      }),
      { numRuns: 150 },
    );
    const bare = { metadata: { name: 'bare' } } as unknown as MachineConfig;
    expect(diffMachineConfigs(bare, { metadata: { name: 'b' }, spec: {} }).changes.files).toBe(false);
  });

  it('parseMachineConfigIgnition and checkMachineConfigObject: deep and random input', () => {
    fc.assert(
      fc.property(deepArb, (d) => {
        const c = buildConfig(d);
        typedOnly(() => parseMachineConfigIgnition(c as Record<string, unknown> | string));
        typedOnly(() =>
          checkMachineConfigObject({
            apiVersion: 'machineconfiguration.openshift.io/v1',
            kind: 'MachineConfig',
            metadata: { name: 'x' },
            spec: { config: c },
          }),
        );
      }),
      { numRuns: 150 },
    );
  });
});
