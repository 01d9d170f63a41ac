import { test } from 'vitest';
import { renderMachineConfigs, type MachineConfig } from '../src/index.js';

// About 1 MB of hostile MachineConfig each (issue 24 §2): every entry an error, or 20,002 valid units.
const mc = (config: object): MachineConfig => ({
  metadata: { name: '99-hostile', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
  spec: { config: config as never },
});
const dupUnits = mc({
  ignition: { version: '3.4.0' },
  systemd: { units: Array.from({ length: 25_000 }, () => ({ name: 'a.service', enabled: true })) },
});
const badPaths = mc({
  ignition: { version: '3.4.0' },
  storage: {
    files: Array.from({ length: 18_000 }, (_, i) => ({ path: `relative/p${i}`, contents: { source: 'data:,x' } })),
  },
});
const manyUnits = mc({
  ignition: { version: '3.4.0' },
  systemd: { units: Array.from({ length: 20_002 }, (_, i) => ({ name: `u${i}.service`, enabled: true })) },
});

const render = (m: MachineConfig): void => {
  try {
    renderMachineConfigs({ pool: 'worker', configs: [m] });
  } catch {
    // the hostile ones are refused; the time to refuse is what is measured
  }
};

test('hostile MachineConfig render (about 1 MB each)', async ({ bench }) => {
  await bench.compare(
    bench('25,000 duplicate units (900 KB, 24,999 errors)', () => {
      render(dupUnits);
    }),
    bench('18,000 relative file paths (1.05 MB, 18,000 errors)', () => {
      render(badPaths);
    }),
    bench('20,002 valid units (809 KB)', () => {
      render(manyUnits);
    }),
    { time: 3000 },
  );
}, 120_000);
