/**
 * The daemon's parsed-config cache: every node of a pool reads the same rendered config several times per update;
 * it is parsed and validated once per process (by content), and a config that does not parse fails every time.
 */
import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '@keelson/api';
import { ConfigParseError, ignitionOf } from '../src/daemon/config.js';

const mc = (name: string, config: unknown): MachineConfig =>
  ({
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name },
    spec: { config },
  }) as MachineConfig;

const ign = (path: string): Record<string, unknown> => ({
  ignition: { version: '3.5.0' },
  storage: { files: [{ path, contents: { source: 'data:,x' }, mode: 420 }] },
});

describe('ignitionOf', () => {
  it('parses a config once: the same content (another object, or text) gives the same parsed config', () => {
    const a = ignitionOf(mc('a', ign('/etc/a')));
    expect(a.storage?.files?.[0]?.path).toBe('/etc/a');
    expect(ignitionOf(mc('b', ign('/etc/a')))).toBe(a);
    expect(ignitionOf(mc('c', JSON.stringify(ign('/etc/a'))))).toBe(a);
    expect(ignitionOf(mc('d', ign('/etc/d')))).not.toBe(a);
  });

  it('is bounded: after many other configs the first one is parsed again', () => {
    const first = ignitionOf(mc('first', ign('/etc/first')));
    for (let i = 0; i < 40; i++) ignitionOf(mc(`m${i}`, ign(`/etc/m${i}`)));
    const again = ignitionOf(mc('first', ign('/etc/first')));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('a config that does not parse fails on every read, naming the MachineConfig', () => {
    const bad = mc('bad', { ignition: { version: '3.5.0' }, storage: { files: [{ path: 'relative' }] } });
    expect(() => ignitionOf(bad)).toThrow(ConfigParseError);
    expect(() => ignitionOf(bad)).toThrow(/machineconfig "bad"/);
  });
});
