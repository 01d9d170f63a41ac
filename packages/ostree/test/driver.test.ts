import { beforeEach, describe, expect, it } from 'vitest';
import {
  ChildProcessRunner,
  RpmOstree,
  RpmOstreeError,
  rpmOstreeArgs,
  parseRpmOstreeVersion,
  versionAtLeast,
  zincatiStageArgs,
  mcoRebootCommand,
} from '../src/index.js';
import { makeFakeRpmOstree, type FakeRpmOstree } from './fake-rpm-ostree.js';
import { fixture } from './helpers.js';

let fake: FakeRpmOstree;
let driver: RpmOstree;
let sleeps: number[];

beforeEach(() => {
  fake = makeFakeRpmOstree();
  fake.setStatus(fixture('rpmostree-client-go/fcos-with-overrides-status.json'));
  sleeps = [];
  driver = new RpmOstree({
    runner: new ChildProcessRunner({ env: { ...process.env, FAKE_RPMOSTREE_DIR: fake.dir } }),
    binary: fake.bin,
    clientId: 'machine-config-daemon',
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
});

describe('RpmOstree driver against a stand-in rpm-ostree child process', () => {
  it('status(), booted(), staged(), rollback() with RPMOSTREE_CLIENT_ID', async () => {
    const s = await driver.status();
    expect(s.deployments).toHaveLength(2);
    expect((await driver.booted()).booted).toBe(true);
    expect((await driver.staged())?.requestedPackages).toContain('strace');
    expect(await driver.rollback()).toBeUndefined();
    expect(fake.calls()[0]).toStrictEqual({ argv: ['status', '--json'], clientId: 'machine-config-daemon' });
  });
  it("every operation sends upstream's exact argument list", async () => {
    await driver.rebaseLayered('quay.io/openshift/os@sha256:aa');
    await driver.rebaseFromContainerStorage('quay.io/openshift/os@sha256:bb');
    await driver.rebase('ostree-image-signed:docker://quay.io/fedora/fedora-coreos:stable', {
      lockFinalization: true,
      revision: 'sha256:cc',
    });
    await driver.kargsRaw(['--delete-if-present=a=1', '--append=b=2']);
    await driver.editKargs({
      append: ['x'],
      delete: ['y'],
      replace: ['z=1=2'],
      appendIfMissing: ['w'],
      deleteIfPresent: ['v'],
    });
    await driver.switchKernel('realtime');
    await driver.switchKernel('64k-pages');
    await driver.switchKernel('default');
    await driver.update(['--install', 'sysstat', '--uninstall', 'usbguard']);
    await driver.cleanup({ pending: true });
    await driver.cleanup({ rollback: true });
    await driver.cleanup({ base: true, repomd: true });
    await driver.deploy('revision=abc', { lockFinalization: true, skipBranchCheck: true, disallowDowngrade: true });
    await driver.deploy('sha256:dd', { lockFinalization: true });
    await driver.registerDriver('Zincati');
    await driver.finalizeDeployment('abc');
    await driver.overrideReset(['kernel', 'kernel-core'], ['kernel-rt-core']);
    await driver.overrideReplace(['https://example.com/kernel-6.1.rpm'], ['kernel-debug']);
    expect(fake.calls().map((c) => c.argv)).toStrictEqual([
      ['rebase', '--experimental', 'ostree-unverified-registry:quay.io/openshift/os@sha256:aa'],
      ['rebase', '--experimental', 'ostree-unverified-image:containers-storage:quay.io/openshift/os@sha256:bb'],
      [
        'rebase',
        '--lock-finalization',
        'ostree-image-signed:docker://quay.io/fedora/fedora-coreos:stable',
        'sha256:cc',
      ],
      ['kargs', '--delete-if-present=a=1', '--append=b=2'],
      ['kargs', '--delete-if-present=v', '--delete=y', '--replace=z=1=2', '--append=x', '--append-if-missing=w'],
      [
        'override',
        'remove',
        'kernel',
        'kernel-core',
        'kernel-modules',
        'kernel-modules-core',
        'kernel-modules-extra',
        '--install',
        'kernel-rt-core',
        '--install',
        'kernel-rt-modules',
        '--install',
        'kernel-rt-modules-extra',
        '--install',
        'kernel-rt-kvm',
      ],
      [
        'override',
        'remove',
        'kernel',
        'kernel-core',
        'kernel-modules',
        'kernel-modules-core',
        'kernel-modules-extra',
        '--install',
        'kernel-64k-core',
        '--install',
        'kernel-64k-modules',
        '--install',
        'kernel-64k-modules-core',
        '--install',
        'kernel-64k-modules-extra',
      ],
      ['update', '--install', 'sysstat', '--uninstall', 'usbguard'],
      ['cleanup', '-p'],
      ['cleanup', '-r'],
      ['cleanup', '-b', '-m'],
      ['deploy', '--lock-finalization', '--skip-branch-check', 'revision=abc', '--disallow-downgrade'],
      ['deploy', '--lock-finalization', 'sha256:dd'],
      ['deploy', '', '--register-driver=Zincati'],
      ['finalize-deployment', 'abc'],
      ['override', 'reset', 'kernel', 'kernel-core', '--uninstall', 'kernel-rt-core'],
      ['override', 'replace', 'https://example.com/kernel-6.1.rpm', '--remove', 'kernel-debug'],
    ]);
  });
  it('reads kargs with quote handling', async () => {
    expect(await driver.kargs()).toStrictEqual(['rw', 'root=UUID=abc', 'quiet', 'mitigations="auto nosmt"']);
  });
  it('--version YAML feature detection', async () => {
    expect(await driver.isNewEnoughForLayering()).toBe(true);
    expect((await driver.version()).version).toBe('2024.3');
    fake.setVersion("rpm-ostree:\n Version: '2021.5'\n Git: x\n Features:\n  - rust\n");
    expect(await driver.isNewEnoughForLayering()).toBe(false);
    fake.setVersion('not: [yaml');
    await expect(driver.version()).rejects.toMatchObject({ code: 'VERSION_PARSE' });
  });
  it('retries busy transactions with exponential backoff, then succeeds', async () => {
    fake.setBusy(3);
    await driver.cleanup({ pending: true });
    expect(fake.calls()).toHaveLength(4);
    expect(sleeps).toStrictEqual([1000, 2000, 4000]);
  });
  it('gives up on a daemon that stays busy with RPMOSTREE_BUSY', async () => {
    fake.setBusy(100);
    const err = await driver.cleanup({ pending: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpmOstreeError);
    expect(err).toMatchObject({ code: 'RPMOSTREE_BUSY', exitCode: 1 });
    expect((err as RpmOstreeError).stderr).toContain('Transaction in progress');
    expect(fake.calls()).toHaveLength(5);
  });
  it('does not retry ordinary failures; the error carries command line, exit code and stderr', async () => {
    fake.setFail('rebase', 'error: Creating importer: failed to invoke method OpenImage: manifest unknown\n', 1);
    const err = (await driver
      .rebase('ostree-unverified-registry:quay.io/x/y:1', { experimental: true })
      .catch((e: unknown) => e)) as RpmOstreeError;
    expect(err.code).toBe('RPMOSTREE_COMMAND_FAILED');
    expect(err.exitCode).toBe(1);
    expect(err.argv).toStrictEqual([fake.bin, 'rebase', '--experimental', 'ostree-unverified-registry:quay.io/x/y:1']);
    expect(err.commandLine).toBe(`${fake.bin} rebase --experimental ostree-unverified-registry:quay.io/x/y:1`);
    expect(err.message).toContain('manifest unknown');
    expect(fake.calls()).toHaveLength(1);
  });
  it('rebaseLayered retries any failure like the daemon (7 tries, 10s doubling capped at 60s)', async () => {
    fake.setFail('rebase', 'error: network\n', 1);
    await expect(driver.rebaseLayered('quay.io/x/y:1')).rejects.toMatchObject({ code: 'RPMOSTREE_COMMAND_FAILED' });
    expect(fake.calls()).toHaveLength(7);
    expect(sleeps).toStrictEqual([10000, 20000, 40000, 60000, 60000, 60000]);
  });
  it('kills a hung rpm-ostree and reports RPMOSTREE_TIMEOUT', async () => {
    fake.setHang();
    const d = new RpmOstree({
      runner: new ChildProcessRunner({ env: { ...process.env, FAKE_RPMOSTREE_DIR: fake.dir }, killGraceMs: 100 }),
      binary: fake.bin,
      timeoutMs: 300,
    });
    await expect(d.status()).rejects.toMatchObject({ code: 'RPMOSTREE_TIMEOUT' });
  });
  it('reports a missing binary clearly', async () => {
    const d = new RpmOstree({ binary: '/nonexistent/rpm-ostree' });
    await expect(d.status()).rejects.toMatchObject({ code: 'RPMOSTREE_NOT_FOUND' });
  });
  it('unchanged-exit-77 is reported as "no change"', async () => {
    fake.setFail('kargs', '', 77);
    expect(await driver.editKargs({ appendIfMissing: ['a'], unchangedExit77: true })).toBe(false);
  });
});

describe('argument builders and version helpers', () => {
  it('refuses arguments with newlines/NUL and empty cleanups', () => {
    expect(() => rpmOstreeArgs.kargs({ append: ['a\nb'] })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => rpmOstreeArgs.rebase('')).toThrow(/empty/);
    expect(() => rpmOstreeArgs.cleanup({})).toThrow(/at least one/);
    expect(
      rpmOstreeArgs.rebase('ostree-unverified-registry:x', {
        experimental: true,
        customOriginUrl: 'pivot://x',
        customOriginDescription: 'Managed by machine-config-operator',
      }),
    ).toStrictEqual([
      'rebase',
      '--experimental',
      'ostree-unverified-registry:x',
      '--custom-origin-url',
      'pivot://x',
      '--custom-origin-description',
      'Managed by machine-config-operator',
    ]);
    expect(rpmOstreeArgs.finalizeDeployment('c', true)).toStrictEqual([
      'finalize-deployment',
      '--allow-missing-checksum',
      'c',
    ]);
  });
  it('Zincati staging argument lists', () => {
    expect(zincatiStageArgs({ checksum: 'abc' })).toStrictEqual([
      'deploy',
      '--lock-finalization',
      '--skip-branch-check',
      'revision=abc',
      '--disallow-downgrade',
    ]);
    expect(zincatiStageArgs({ checksum: 'abc' }, true)).toStrictEqual([
      'deploy',
      '--lock-finalization',
      '--skip-branch-check',
      'revision=abc',
    ]);
    expect(zincatiStageArgs({ digest: 'sha256:00' })).toStrictEqual([
      'deploy',
      '--lock-finalization',
      'sha256:00',
      '--disallow-downgrade',
    ]);
    expect(
      zincatiStageArgs({
        digest: 'sha256:00',
        rebaseTo: 'ostree-image-signed:docker://quay.io/fedora/fedora-coreos:stable',
      }),
    ).toStrictEqual([
      'rebase',
      '--lock-finalization',
      'ostree-image-signed:docker://quay.io/fedora/fedora-coreos:stable',
      'sha256:00',
      '--disallow-downgrade',
    ]);
  });
  it('daemon reboot command', () => {
    expect(mcoRebootCommand('Node will reboot into config rendered-worker-2')).toStrictEqual([
      'systemd-run',
      '--unit',
      'machine-config-daemon-reboot',
      '--description',
      'machine-config-daemon: Node will reboot into config rendered-worker-2',
      '-p',
      'Requires=ostree-finalize-staged.service',
      '-p',
      'After=ostree-finalize-staged.service',
      '/bin/sh',
      '-c',
      'systemctl reboot',
    ]);
    expect(mcoRebootCommand('x', false)).toStrictEqual([
      'systemd-run',
      '--unit',
      'machine-config-daemon-reboot',
      '--description',
      'machine-config-daemon: x',
      '/bin/sh',
      '-c',
      'systemctl reboot',
    ]);
  });
  it('parses --version and compares versions', () => {
    const v = parseRpmOstreeVersion("rpm-ostree:\n Version: '2022.10'\n Git: g\n Features:\n  - container\n");
    expect(v).toStrictEqual({ version: '2022.10', git: 'g', features: ['container'] });
    expect(versionAtLeast('2022.10', '2022.2')).toBe(true);
    expect(versionAtLeast('2023.1', '2022.10')).toBe(true);
    expect(versionAtLeast('2022.1', '2022.10')).toBe(false);
    expect(() => parseRpmOstreeVersion('foo: 1')).toThrow(/missing "rpm-ostree"/);
  });
});
