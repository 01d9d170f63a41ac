/**
 * `keelson mc render` on hostile or mistaken input (issue 10 item 3.2, issue 14 items 7-8): unknown fields warned
 * (refused with --strict), Butane files translated first (their errors reported with positions), wrong types refused, oversized input refused before parsing.
 * Real child processes; inputs written here.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './cli-helpers.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keelson-mc-hostile-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const header =
  'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-worker-x\n  labels:\n    machineconfiguration.openshift.io/role: worker\n';

async function write(name: string, text: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
}

describe('keelson mc render, hostile input', () => {
  it('warns about spec.kernelArgument (pruned by the API server) and fails with --strict', async () => {
    const f = await write('karg.yaml', `${header}spec:\n  kernelArgument:\n    - nosmt\n`);
    const r = await cli('mc', 'render', f, '--pool', 'worker', '--name-only');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: .*karg\.yaml: MachineConfig "99-worker-x": unknown field "spec\.kernelArgument"/,
    );
    const s = await cli('mc', 'render', f, '--pool', 'worker', '--strict');
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/unknown field "spec\.kernelArgument"/);
    expect(s.stdout).toBe('');
  });

  it('warns about an Ignition storage.file and fails with --strict', async () => {
    const f = await write(
      'file.yaml',
      `${header}spec:\n  config:\n    ignition:\n      version: 3.2.0\n    storage:\n      file:\n        - path: /etc/x\n`,
    );
    const r = await cli('mc', 'render', f, '--pool', 'worker', '--name-only');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/unknown field "spec\.config\.storage\.file"/);
    expect((await cli('mc', 'render', f, '--pool', 'worker', '--strict')).code).toBe(1);
  });

  it('translates a Butane file first and reports its errors with positions', async () => {
    const f = await write(
      'x.bu',
      'variant: openshift\nversion: 4.16.0\nmetadata:\n  name: 99-worker-x\n  labels:\n    machineconfiguration.openshift.io/role: worker\nstorage:\n  files: []\n',
    );
    const g = await write('x.yaml', 'variant: openshift\nversion: 4.16.0\nmetadata:\n  name: 99-worker-x\n');
    const r = await cli('mc', 'render', g, '--pool', 'worker');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error at $.metadata.labels, line 4 col 3: machineconfiguration.openshift.io/role label is required',
    );
    expect(r.stderr).toMatch(/x\.yaml: Error translating config: source config is invalid/);
    const ok = await cli('mc', 'render', f, '--pool', 'worker', '--name-only');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^rendered-worker-[0-9a-f]{32}\n$/);
  });

  it('refuses kernelArguments given as a string instead of splitting it into characters', async () => {
    const f = await write('str.yaml', `${header}spec:\n  kernelArguments: nosmt\n`);
    const r = await cli('mc', 'render', f, '--pool', 'worker');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/spec\.kernelArguments/);
  });

  it('refuses 40 MB of input before parsing it', async () => {
    const f = await write('huge.yaml', `${header}spec:\n  kernelArguments:\n${'    - quiet\n'.repeat(3_700_000)}`);
    const r = await cli('mc', 'render', f, '--pool', 'worker');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/inputs are larger than 33554432 bytes/);
  });
});
