import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MachineConfigReconcileError,
  MachineConfigRenderError,
  diffMachineConfigs,
  renderMachineConfigs,
  type MachineConfig,
} from '../src/index.js';
import { AcceptHeaderError, negotiateIgnitionVersion } from '../src/server.js';

// Arbitrary JSON placed where Ignition sections are expected, plus near-valid shapes.
const junk = fc.jsonValue({ maxDepth: 4 });
const nearConfig = fc.oneof(
  junk,
  fc.record({
    ignition: fc.oneof(fc.record({ version: fc.constantFrom('3.5.0', '3.1.0', '2.2.0', '4.0.0', 'x', '') }), junk),
    storage: fc.oneof(
      junk,
      fc.record({
        files: fc.array(
          fc.oneof(
            junk,
            fc.record({ path: fc.oneof(fc.string(), junk), mode: fc.oneof(fc.integer(), junk), contents: junk }),
          ),
          { maxLength: 3 },
        ),
      }),
    ),
    systemd: fc.oneof(
      junk,
      fc.record({
        units: fc.array(fc.oneof(junk, fc.record({ name: fc.string(), contents: junk, dropins: junk })), {
          maxLength: 3,
        }),
      }),
    ),
    passwd: fc.oneof(
      junk,
      fc.record({
        users: fc.array(fc.oneof(junk, fc.record({ name: fc.string(), sshAuthorizedKeys: junk })), { maxLength: 3 }),
      }),
    ),
  }),
);
const mcArb = fc.record({
  name: fc.string({ minLength: 1, maxLength: 8 }),
  role: fc.constantFrom('worker', 'infra', ''),
  config: fc.oneof(fc.constant(undefined), nearConfig, fc.string({ maxLength: 40 })),
  kernelType: fc.oneof(
    fc.constant(undefined),
    fc.string({ maxLength: 10 }),
    fc.constantFrom('realtime', '64k-pages', 'default'),
  ),
  kernelArguments: fc.oneof(
    fc.constant(undefined),
    fc.array(fc.string({ maxLength: 30, unit: 'binary' }), { maxLength: 3 }),
  ),
  extensions: fc.oneof(
    fc.constant(undefined),
    fc.array(fc.constantFrom('usbguard', 'kernel-devel', 'bogus'), { maxLength: 2 }),
  ),
});

type McIn = typeof mcArb extends fc.Arbitrary<infer T> ? T : never;

function toMc(m: McIn): MachineConfig {
  const spec: MachineConfig['spec'] = {};
  if (m.config !== undefined) spec.config = m.config as never;
  if (m.kernelType !== undefined) spec.kernelType = m.kernelType;
  if (m.kernelArguments !== undefined) spec.kernelArguments = m.kernelArguments;
  if (m.extensions !== undefined) spec.extensions = m.extensions;
  return {
    metadata: { name: m.name, labels: m.role ? { 'machineconfiguration.openshift.io/role': m.role } : {} },
    spec,
  };
}

describe('hostile input', () => {
  it('render and diff only ever throw their typed errors', () => {
    fc.assert(
      fc.property(fc.array(mcArb, { minLength: 1, maxLength: 4 }), (arr) => {
        const mcs = arr.map(toMc);
        try {
          const r = renderMachineConfigs({ pool: 'worker', configs: mcs });
          expect(r.name).toMatch(/^rendered-worker-[0-9a-f]{32}$/);
          const first = mcs[0] as MachineConfig;
          try {
            diffMachineConfigs(r.machineConfig, first);
          } catch (e) {
            expect(e).toBeInstanceOf(MachineConfigReconcileError);
          }
        } catch (e) {
          expect(e).toBeInstanceOf(MachineConfigRenderError);
        }
      }),
      { numRuns: 2500 },
    );
  }, 120_000);
  it('Accept negotiation never throws anything but AcceptHeaderError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (h) => {
        try {
          expect(['2.2.0', '3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0', '3.5.0']).toContain(
            negotiateIgnitionVersion(h),
          );
        } catch (e) {
          expect(e).toBeInstanceOf(AcceptHeaderError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
