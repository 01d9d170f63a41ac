/**
 * diffMachineConfigs parses a MachineConfig's config object once: the daemons of a pool share the MachineConfig
 * objects of their informer cache, and every node's update used to parse and validate both configs again.
 */
import { describe, expect, it, vi } from 'vitest';
import type { MachineConfig } from '../src/types.js';

const parseSpy = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../src/ignition-adapter.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../src/ignition-adapter.js')>();
  return {
    ...orig,
    parseMachineConfigIgnition: (...args: Parameters<typeof orig.parseMachineConfigIgnition>) => {
      parseSpy.calls++;
      return orig.parseMachineConfigIgnition(...args);
    },
  };
});
const { diffMachineConfigs } = await import('../src/daemon.js');

const file = (path: string, text: string) => ({
  path,
  mode: 420,
  contents: { source: `data:,${encodeURIComponent(text)}` },
});
const mc = (name: string, files: ReturnType<typeof file>[]): MachineConfig => ({
  metadata: { name },
  spec: { config: { ignition: { version: '3.5.0' }, storage: { files } } },
});

describe('diffMachineConfigs: config objects parsed once', () => {
  it('a second diff of the same objects parses nothing; other objects and texts are parsed', () => {
    const a = mc('rendered-a', [file('/etc/foo', 'a')]);
    const b = mc('rendered-b', [file('/etc/foo', 'b')]);
    const first = diffMachineConfigs(a, b);
    expect(parseSpy.calls).toBe(2);
    expect(diffMachineConfigs(a, b)).toEqual(first);
    expect(diffMachineConfigs(b, a).files).toEqual(['/etc/foo']);
    expect(parseSpy.calls).toBe(2);
    // an equal config in another object is parsed again (the cache is by object, as the informer's objects are)
    diffMachineConfigs(mc('rendered-a', [file('/etc/foo', 'a')]), b);
    expect(parseSpy.calls).toBe(3);
    // a config given as text is parsed on every call
    const text: MachineConfig = { metadata: { name: 't' }, spec: { config: JSON.stringify(a.spec.config) } };
    diffMachineConfigs(text, a);
    diffMachineConfigs(text, a);
    expect(parseSpy.calls).toBe(5);
  });
});
