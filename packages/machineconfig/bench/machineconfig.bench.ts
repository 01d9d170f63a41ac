import { test } from 'vitest';
import { diffMachineConfigs, renderMachineConfigs, type MachineConfig } from '../src/index.js';

/** A pool of 200 MachineConfigs holding 5,000 files in total (25 each; every 10th MC overrides 5 earlier paths). */
function pool(): MachineConfig[] {
  const mcs: MachineConfig[] = [];
  for (let m = 0; m < 200; m++) {
    const files = [];
    for (let f = 0; f < 25; f++) {
      const path = m % 10 === 9 && f < 5 ? `/etc/bench/mc${m - 9}/file${f}.conf` : `/etc/bench/mc${m}/file${f}.conf`;
      files.push({
        path,
        mode: 420,
        contents: { source: `data:,${encodeURIComponent(`mc ${m} file ${f}\n`.repeat(4))}` },
      });
    }
    const units =
      m % 20 === 0 ? [{ name: `bench-${m}.service`, enabled: true, contents: '[Service]\nExecStart=/bin/true\n' }] : [];
    mcs.push({
      metadata: {
        name: `${String(m).padStart(3, '0')}-bench`,
        labels: { 'machineconfiguration.openshift.io/role': 'worker' },
      },
      spec: {
        config: { ignition: { version: m % 2 === 0 ? '3.5.0' : '3.2.0' }, storage: { files }, systemd: { units } },
        kernelArguments: m % 50 === 0 ? [`bench.m=${m}`] : [],
      },
    });
  }
  return mcs;
}

const configs = pool();
const cc = { baseOSContainerImage: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'a'.repeat(64) };
const rendered = renderMachineConfigs({ pool: 'worker', configs, controllerConfig: cc });
const changed = renderMachineConfigs({
  pool: 'worker',
  configs: configs.map((c, i) => (i === 150 ? { ...c, spec: { ...c.spec, kernelArguments: ['changed=1'] } } : c)),
  controllerConfig: cc,
});

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('machineconfig render/diff', async ({ bench }) => {
  await bench.compare(
    bench('renderMachineConfigs: 200 MCs, 5,000 files', () => {
      renderMachineConfigs({ pool: 'worker', configs, controllerConfig: cc });
    }),
    bench('diffMachineConfigs: two rendered configs with 4,900 files', () => {
      diffMachineConfigs(rendered.machineConfig, changed.machineConfig);
    }),
    { time: 5000 },
  );
}, 120_000);
