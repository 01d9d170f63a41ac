import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RpmOstree, SysrootRpmOstree, applyKargsEdits, applyPackageCommand } from '../src/index.js';

describe('applyKargsEdits (rpm-ostree kargs semantics for the simulated backends)', () => {
  const base = ['rw', 'root=LABEL=root', 'console=tty0', 'console=ttyS0', 'quiet'];
  it('append, append-if-missing, delete, delete-if-present, replace', () => {
    expect(
      applyKargsEdits(base, ['--append=a=1', '--append-if-missing=quiet', '--append-if-missing=b']).next,
    ).toStrictEqual([...base, 'a=1', 'b']);
    expect(applyKargsEdits(base, ['--delete=quiet', '--delete-if-present=nope']).next).toStrictEqual(base.slice(0, 4));
    expect(applyKargsEdits(base, ['--delete=console=tty0']).next).toStrictEqual([
      'rw',
      'root=LABEL=root',
      'console=ttyS0',
      'quiet',
    ]);
    expect(applyKargsEdits(['a=1', 'b'], ['--replace=a=2']).next).toStrictEqual(['a=2', 'b']);
    expect(applyKargsEdits(base, ['--replace=console=ttyS0=ttyS1']).next).toStrictEqual([
      'rw',
      'root=LABEL=root',
      'console=tty0',
      'console=ttyS1',
      'quiet',
    ]);
    expect(applyKargsEdits(base, ['--append-if-missing=rw', '--unchanged-exit-77'])).toStrictEqual({
      next: base,
      changed: false,
    });
  });
  it('errors like rpm-ostree on missing or ambiguous keys', () => {
    expect(() => applyKargsEdits(base, ['--delete=nope'])).toThrow(/no karg "nope" found/);
    expect(() => applyKargsEdits(base, ['--delete=console'])).toThrow(/multiple values for key "console"/);
    expect(() => applyKargsEdits(base, ['--replace=console=x'])).toThrow(/multiple values/);
    expect(() => applyKargsEdits(base, ['--replace=missing=x'])).toThrow(/no karg with key "missing"/);
    expect(() => applyKargsEdits(base, ['--append=a b'])).toThrow(/not a single kernel argument/);
    expect(() => applyKargsEdits(base, ['--bogus=1'])).toThrow(/unsupported argument/);
  });
});

describe('applyPackageCommand', () => {
  const none = { requestedPackages: [], requestedBaseRemovals: [] };
  it('override remove / reset and update', () => {
    const rt = applyPackageCommand(
      ['override', 'remove', 'kernel', 'kernel-core', '--install', 'kernel-rt-core'],
      none,
    );
    expect(rt).toStrictEqual({
      requestedBaseRemovals: ['kernel', 'kernel-core'],
      requestedPackages: ['kernel-rt-core'],
    });
    expect(
      applyPackageCommand(['override', 'reset', 'kernel', 'kernel-core', '--uninstall', 'kernel-rt-core'], rt),
    ).toStrictEqual(none);
    expect(
      applyPackageCommand(['update', '--install', 'a', '--install', 'b', '--uninstall', 'x'], {
        requestedPackages: ['x', 'y'],
        requestedBaseRemovals: [],
      }),
    ).toStrictEqual({
      requestedBaseRemovals: [],
      requestedPackages: ['y', 'a', 'b'],
    });
  });
  it('refuses what rpm-ostree refuses', () => {
    expect(() => applyPackageCommand(['override', 'reset', 'kernel'], none)).toThrow(
      /no override for package "kernel"/,
    );
    expect(() => applyPackageCommand(['update', '--uninstall', 'x'], none)).toThrow(/not currently requested/);
    expect(() => applyPackageCommand(['update', '--install'], none)).toThrow(/needs a package/);
    expect(() => applyPackageCommand(['rebase', 'x'], none)).toThrow(/not a package command/);
  });
});

describe('SysrootRpmOstree on real ostree', () => {
  it('reopens from disk, keeps /etc changes across a rebase, rejects unsupported commands', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sysroothost-')), 'sysroot');
    const IMG = 'quay.io/ocp/os@sha256:' + 'c'.repeat(64);
    const host = await SysrootRpmOstree.create({ path, osImageURL: IMG, kargs: ['rw'], osname: 'rhcos' });
    const [booted] = await host.sysroot.deployments();
    expect(booted && host.sysroot.readEtc(booted, 'keelson-image')).toBe(`${IMG}\n`);
    if (booted) host.sysroot.writeEtc(booted, 'local.conf', 'admin edit\n');
    const again = SysrootRpmOstree.open(path);
    expect(again.sysroot.osname).toBe('rhcos');
    const driver = new RpmOstree({ runner: again });
    await driver.rebaseLayered('quay.io/ocp/os@sha256:' + 'd'.repeat(64));
    const [staged] = await again.sysroot.deployments();
    expect(staged && again.sysroot.readEtc(staged, 'local.conf')).toBe('admin edit\n');
    // 3-way merge: a file the admin did not touch follows the new image's default
    expect(staged && again.sysroot.readEtc(staged, 'keelson-image')).toBe(`quay.io/ocp/os@sha256:${'d'.repeat(64)}\n`);
    expect((await driver.staged())?.containerImageReference).toBe(
      `ostree-unverified-registry:quay.io/ocp/os@sha256:${'d'.repeat(64)}`,
    );
    expect(await driver.kargs()).toStrictEqual(['rw']);
    const rebased = await driver.staged();
    await driver.update(['--install', 'usbguard']);
    const layered = await driver.staged();
    expect(layered?.baseChecksum).toBe(rebased?.checksum);
    expect(layered?.version).toBe(rebased?.version);
    expect(layered?.requestedPackages).toStrictEqual(['usbguard']);
    await expect(driver.finalizeDeployment('x')).rejects.toMatchObject({ code: 'RPMOSTREE_COMMAND_FAILED' });
    expect(() => SysrootRpmOstree.open(join(path, 'nope'))).toThrow(/keelson-host\.json/);
    rmSync(join(path, '..'), { recursive: true });
  });
});
