import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'vitest';
import {
  applyOsChanges,
  formatPlan,
  generateExtensionsArgs,
  generateKargs,
  parseRpmOstreeStatus,
  SimulatedRpmOstree,
  RpmOstree,
  executePlan,
} from '../src/index.js';

const DIR = fileURLToPath(new URL('../test/fixtures/upstream/rpm-ostree/', import.meta.url));
const files: [string, string][] = [];
for (const d of readdirSync(DIR, { withFileTypes: true })) {
  if (d.isDirectory())
    for (const f of readdirSync(join(DIR, d.name)))
      if (f.endsWith('.json')) files.push([`${d.name}/${f}`, readFileSync(join(DIR, d.name, f), 'utf8')]);
}

const big = files.find(([n]) => n === 'zincati/rpm-ostree-status.json')?.[1] ?? '';
const IMG = (c: string): string => 'quay.io/ocp/os@sha256:' + c.repeat(64);
const OLD = {
  spec: {
    osImageURL: IMG('a'),
    kernelArguments: ['nosmt', 'hugepagesz=1G hugepages=4'],
    extensions: ['ipsec'],
    kernelType: 'realtime',
  },
};
const NEW = {
  spec: {
    osImageURL: IMG('b'),
    kernelArguments: ['hugepagesz=1G hugepages=8', 'x="a b"'],
    extensions: ['sysstat', 'usbguard'],
    kernelType: 'realtime',
  },
};

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('status parsing', async ({ bench }) => {
  await bench.compare(
    bench('parse all 7 fixtures', () => {
      for (const [, text] of files) parseRpmOstreeStatus(text);
    }),
    bench('parse zincati/rpm-ostree-status.json (27 KB)', () => {
      parseRpmOstreeStatus(big);
    }),
    { time: 2000 },
  );
});

test('plan building', async ({ bench }) => {
  await bench.compare(
    bench('applyOsChanges (7 step kinds) + formatPlan', () => {
      formatPlan(applyOsChanges(OLD, NEW, { arch: 'amd64' }));
    }),
    bench('generateKargs', () => {
      generateKargs(OLD.spec.kernelArguments, NEW.spec.kernelArguments);
    }),
    bench('generateExtensionsArgs (all 7 extensions)', () => {
      generateExtensionsArgs(
        ['sysstat'],
        ['two-node-ha', 'ipsec', 'usbguard', 'kerberos', 'kernel-devel', 'sandboxed-containers', 'sysstat'],
      );
    }),
    bench('plan + execute on in-memory SimulatedRpmOstree + reboot', async () => {
      const sim = SimulatedRpmOstree.atConfig(OLD.spec);
      await executePlan(applyOsChanges(OLD, NEW, { arch: 'amd64' }), new RpmOstree({ runner: sim }));
      sim.reboot();
    }),
    { time: 2000 },
  );
});
