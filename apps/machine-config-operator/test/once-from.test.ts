/** `--once-from FILE` input handling: MachineConfig (JSON/YAML), bare Ignition, and typed errors naming the file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OnceFromError, readOnceFrom } from '../src/daemon/once-from.js';

const dir = mkdtempSync(join(tmpdir(), 'mcd-once-from-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const IMG = 'quay.io/test/rhcos@sha256:' + '1'.repeat(64);

describe('readOnceFrom', () => {
  it('reads a MachineConfig in YAML', async () => {
    const p = file(
      'mc.yaml',
      'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: rendered-x\nspec:\n  osImageURL: q\n',
    );
    const mc = await readOnceFrom(p, IMG);
    expect(mc.metadata.name).toBe('rendered-x');
    expect(mc.spec?.osImageURL).toBe('q');
  });
  it('wraps a bare Ignition config at the booted image', async () => {
    const p = file('ign.json', JSON.stringify({ ignition: { version: '3.4.0' }, storage: { files: [] } }));
    const mc = await readOnceFrom(p, IMG);
    expect(mc.kind).toBe('MachineConfig');
    expect(mc.metadata.name).toBe('once-from-ignition');
    expect(mc.spec?.osImageURL).toBe(IMG);
    expect(mc.spec?.config).toEqual({ ignition: { version: '3.4.0' }, storage: { files: [] } });
  });
  it.each([
    ['list.yaml', '- a\n- b\n', 'expected an object'],
    ['other.json', '{"kind":"ConfigMap"}', 'not a MachineConfig (kind: MachineConfig) nor an Ignition config'],
    ['nospec.json', '{"kind":"MachineConfig","metadata":{"name":"x"}}', 'a MachineConfig needs metadata and spec'],
    ['bad.json', '{"kind": [', 'neither JSON nor YAML'],
  ])('refuses %s with a typed error naming the file', async (name, text, msg) => {
    const p = file(name, text);
    const err = await readOnceFrom(p, IMG).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OnceFromError);
    expect((err as OnceFromError).message).toContain(`--once-from ${p}: `);
    expect((err as OnceFromError).message).toContain(msg);
  });
  it('refuses a missing file and a directory', async () => {
    await expect(readOnceFrom(join(dir, 'absent.json'), IMG)).rejects.toThrow(/--once-from .*absent\.json: ENOENT/);
    await expect(readOnceFrom(dir, IMG)).rejects.toThrow('not a regular file');
  });
});
