import { describe, expect, it } from 'vitest';
import {
  OstreeError,
  canonicalizeKernelType,
  generateExtensionsArgs,
  generateKargs,
  packagesForExtensions,
  parseKernelArguments,
  splitKernelArguments,
  tuningKargsCalls,
  validateExtensions,
} from '../src/index.js';
import { mcoVectors } from './helpers.js';

describe('daemon.generateKargs vectors', () => {
  const vs = mcoVectors('daemon.generateKargs');
  it('has the 6 vectors', () => expect(vs.length).toBe(6));
  for (const v of vs) {
    it(v.name, () => {
      const input = v.input as { oldKernelArguments: string[] | null; newKernelArguments: string[] | null };
      expect(generateKargs(input.oldKernelArguments, input.newKernelArguments)).toStrictEqual(v.expected['args']);
    });
  }
});

describe('daemon.generateExtensionsArgs vectors', () => {
  const vs = mcoVectors('daemon.generateExtensionsArgs');
  it('has the 10 vectors', () => expect(vs.length).toBe(10));
  for (const v of vs) {
    it(v.name, () => {
      const input = v.input as { installedRequestedPackages: string[]; extensions: string[] };
      expect(generateExtensionsArgs(input.installedRequestedPackages, input.extensions)).toStrictEqual(
        v.expected['args'],
      );
    });
  }
});

describe('kernel argument splitting', () => {
  it('splits on all C whitespace outside quotes, keeping quotes', () => {
    expect(splitKernelArguments(' a=1\tb="x y"\nc\f\vd\r ')).toStrictEqual(['a=1', 'b="x y"', 'c', 'd']);
    expect(splitKernelArguments('')).toStrictEqual([]);
    expect(splitKernelArguments('   ')).toStrictEqual([]);
    expect(splitKernelArguments('a="unterminated b c')).toStrictEqual(['a="unterminated b c']);
    expect(parseKernelArguments(['x y', 'z'])).toStrictEqual(['x', 'y', 'z']);
    expect(parseKernelArguments(null)).toStrictEqual([]);
  });
});

describe('extensions and kernel types', () => {
  it('canonicalizes kernel types like the MCO', () => {
    expect(canonicalizeKernelType('')).toBe('default');
    expect(canonicalizeKernelType(undefined)).toBe('default');
    expect(canonicalizeKernelType('bogus')).toBe('default');
    expect(canonicalizeKernelType('realtime')).toBe('realtime');
    expect(canonicalizeKernelType('64k-pages')).toBe('64k-pages');
  });
  it('rejects unknown extensions with a typed error listing them', () => {
    expect(() => validateExtensions(['sysstat', 'nope', 'bad'])).toThrow(/invalid extensions found: \[nope bad\]/);
    try {
      packagesForExtensions(['nope']);
    } catch (e) {
      expect((e as OstreeError).code).toBe('INVALID_EXTENSIONS');
    }
    expect(packagesForExtensions(['kerberos', 'sysstat'])).toStrictEqual(['krb5-workstation', 'libkadm5', 'sysstat']);
  });
});

describe('firstboot tuning file (/etc/pivot/kernel-args)', () => {
  const file = 'ADD nosmt\nADD quiet\nDELETE rhgb\nDELETE nosmt\ngarbage line\n';
  it('RHEL-family: only allow-listed bare args, adds before deletes, skips what is already (not) there', () => {
    expect(tuningKargsCalls(file, 'root=UUID=x rw rhgb', 'el')).toStrictEqual([['kargs', '--append=nosmt']]);
    expect(tuningKargsCalls(file, 'root=UUID=x rw nosmt', 'el')).toStrictEqual([['kargs', '--delete=nosmt']]);
  });
  it('FCOS: every argument; other OSes: none', () => {
    expect(tuningKargsCalls(file, 'rw rhgb', 'fcos')).toStrictEqual([
      ['kargs', '--append=nosmt'],
      ['kargs', '--append=quiet'],
      ['kargs', '--delete=rhgb'],
    ]);
    expect(tuningKargsCalls(file, 'rw rhgb', 'other')).toStrictEqual([]);
  });
});
