// Butane translation of a large openshift config: 1,000 inline files (half compressible), 200 units with a
// drop-in each, boot_device mirror+LUKS, MachineConfig output. Run: pnpm --filter @keelson/ignition bench
import { test } from 'vitest';
import { translateButane } from '../dist/index.js';

function bigButane(): string {
  const lines = [
    'variant: openshift',
    'version: 4.17.0',
    'metadata:',
    '  name: 99-worker-big',
    '  labels:',
    '    machineconfiguration.openshift.io/role: worker',
    'openshift:',
    '  kernel_arguments: [nosmt, mitigations=auto]',
    'storage:',
    '  files:',
  ];
  for (let i = 0; i < 1000; i++) {
    const text = i % 2 === 0 ? `key${i}=value ${i}\\n`.repeat(40) : `unique ${i} ${Math.sin(i).toString(36)}\\n`;
    lines.push(
      `    - path: /etc/app/conf-${i}.conf`,
      '      mode: 0644',
      '      contents:',
      `        inline: "${text}"`,
    );
  }
  lines.push('systemd:', '  units:');
  for (let i = 0; i < 200; i++) {
    lines.push(
      `    - name: app-${i}.service`,
      '      enabled: true',
      `      contents: "[Unit]\\nDescription=app ${i}\\n[Service]\\nExecStart=/usr/bin/app ${i}\\n[Install]\\nWantedBy=multi-user.target\\n"`,
      '      dropins:',
      '        - name: 10-env.conf',
      `          contents: "[Service]\\nEnvironment=N=${i}\\n"`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const src = bigButane();

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test(`translateButane: ${(src.length / 1024).toFixed(0)} KiB of Butane, 1,000 files, 200 units`, async ({ bench }) => {
  await bench.compare(
    bench('openshift 4.17 -> MachineConfig', () => {
      translateButane(src);
    }),
    bench('openshift 4.17 -> Ignition (raw)', () => {
      translateButane(src, { raw: true });
    }),
    { time: 2000 },
  );
}, 600_000);
