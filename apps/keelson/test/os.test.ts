import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OstreeSysroot, parseRpmOstreeStatus, bootedDeployment, osImageUrlOf } from '@keelson/ostree';

/** Runs the built CLI (apps/keelson/dist/bin.js) as a child process. */
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
function keelson(
  args: string[],
  env: Record<string, string> = {},
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const IMG_A = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + '1'.repeat(64);
const IMG_B = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + '2'.repeat(64);
const dir = mkdtempSync(join(tmpdir(), 'keelson-os-cli-'));
const A = join(dir, 'a.yaml');
const B = join(dir, 'b.yaml');
writeFileSync(
  A,
  `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata: {name: rendered-worker-a}\nspec:\n  osImageURL: ${IMG_A}\n  kernelArguments: ["nosmt", "hugepagesz=1G hugepages=4"]\n  extensions: [sysstat]\n`,
);
writeFileSync(
  B,
  `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata: {name: rendered-worker-b}\nspec:\n  osImageURL: ${IMG_B}\n  kernelArguments: ["hugepagesz=1G hugepages=8", 'bar="hello world"']\n  extensions: [usbguard]\n  kernelType: realtime\n`,
);

describe('keelson os plan', { timeout: 60_000 }, () => {
  it('prints the exact rpm-ostree commands in order', () => {
    const r = keelson(['os', 'plan', '--from', A, '--to', B, '--arch', 'amd64']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toStrictEqual([
      'rpm-ostree cleanup -p',
      `rpm-ostree rebase --experimental ostree-unverified-registry:${IMG_B}`,
      `rpm-ostree kargs --delete-if-present=nosmt --delete-if-present=hugepagesz=1G --delete-if-present=hugepages=4 --append=hugepagesz=1G --append=hugepages=8 '--append=bar="hello world"'`,
      'rpm-ostree override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --install kernel-rt-core --install kernel-rt-modules --install kernel-rt-modules-extra --install kernel-rt-kvm',
      'rpm-ostree update --install usbguard --uninstall sysstat',
      '# check the staged deployment requests every extension package: usbguard',
      '# on failure: rpm-ostree cleanup -p',
    ]);
  });
  it('--json gives steps, rollback and diff', () => {
    const r = keelson(['os', 'plan', '--from', B, '--to', A, '--json', '--arch', 'amd64']);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as {
      diff: Record<string, boolean>;
      steps: { kind: string; args: string[] }[];
      rollback: { args: string[] }[];
    };
    expect(plan.diff).toStrictEqual({ osUpdate: true, kargs: true, kernelType: true, extensions: true });
    expect(plan.steps.map((s) => s.kind)).toStrictEqual([
      'cleanup-pending',
      'revert-kernel-swap',
      'rebase',
      'kargs',
      'extensions',
      'verify-extensions',
    ]);
    expect(plan.rollback[0]?.args).toStrictEqual(['cleanup', '-p']);
  });
  it('same config: nothing to do; --no-el drops kernel and extensions', () => {
    expect(keelson(['os', 'plan', '--from', A, '--to', A]).stdout).toBe('# no OS changes\n');
    const r = keelson(['os', 'plan', '--from', A, '--to', B, '--no-el']);
    expect(r.stdout).not.toContain('override');
    expect(r.stdout).not.toContain('update');
  });
  it('bad input: field named, exit 1; missing file: exit 2', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'kind: MachineConfig\nspec:\n  kernelArguments: "nosmt"\n');
    const r = keelson(['os', 'plan', '--from', bad, '--to', A]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('spec.kernelArguments must be a list of strings');
    const cm = join(dir, 'cm.yaml');
    writeFileSync(cm, 'kind: ConfigMap\n');
    expect(keelson(['os', 'plan', '--from', cm, '--to', A]).stderr).toContain('kind is "ConfigMap"');
    const m = keelson(['os', 'plan', '--from', join(dir, 'nope.yaml'), '--to', A]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('cannot read file');
    const ext = join(dir, 'ext.yaml');
    writeFileSync(ext, `kind: MachineConfig\nspec: {osImageURL: ${IMG_A}, extensions: [wireguard]}\n`);
    expect(keelson(['os', 'plan', '--from', A, '--to', ext]).stderr).toContain('invalid extensions found: [wireguard]');
  });
});

describe('keelson os plan refuses what is not a MachineConfig', { timeout: 60_000 }, () => {
  it('Butane (suggests keelson butane), Ignition, foo: bar, a bare spec and unknown spec fields: exit 1, nothing planned', () => {
    const cases: [string, string, string][] = [
      [
        '99-worker.bu',
        'variant: openshift\nversion: 4.18.0\nmetadata: {name: 99-worker-x, labels: {machineconfiguration.openshift.io/role: worker}}\n',
        'a Butane config (variant openshift, version 4.18.0), not a MachineConfig: translate it first with "keelson butane',
      ],
      ['config.ign', '{"ignition":{"version":"3.4.0"},"storage":{}}', 'an Ignition config, not a MachineConfig'],
      ['foo.yaml', 'foo: bar\n', 'not a MachineConfig: has no kind'],
      ['spec.yaml', `spec: {osImageURL: ${IMG_A}}\n`, 'not a MachineConfig: has no kind'],
      [
        'typo.yaml',
        `kind: MachineConfig\nspec: {osImageURL: ${IMG_A}, kernelArgs: [nosmt]}\n`,
        'spec.kernelArgs: unknown field of a MachineConfig spec',
      ],
    ];
    for (const [name, text, message] of cases) {
      const f = join(dir, name);
      writeFileSync(f, text);
      const r = keelson(['os', 'plan', '--from', A, '--to', f]);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toContain(message);
      expect(r.stdout, name).not.toContain('no OS changes');
    }
  });
});

describe('keelson os status', { timeout: 60_000 }, () => {
  it('explains when rpm-ostree is missing', () => {
    const r = keelson(['os', 'status', '--binary', '/nonexistent/rpm-ostree']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rpm-ostree is not available on this machine');
    expect(r.stderr).toContain('--simulate');
  });
  it('simulated host: sim-init, apply, reboot, status (text and --json)', () => {
    const state = join(dir, 'host.json');
    expect(keelson(['os', 'sim-init', '--simulate', state, '--config', A]).code).toBe(0);
    let s = parseRpmOstreeStatus(keelson(['os', 'status', '--simulate', state, '--json']).stdout);
    expect(bootedDeployment(s)?.requestedPackages).toStrictEqual(['sysstat']);
    const dry = keelson(['os', 'apply', '--from', A, '--to', B, '--simulate', state, '--dry-run', '--arch', 'amd64']);
    expect(dry.stdout).toContain('rpm-ostree update --install usbguard --uninstall sysstat');
    expect(
      parseRpmOstreeStatus(keelson(['os', 'status', '--simulate', state, '--json']).stdout).deployments,
    ).toHaveLength(1);
    const run = keelson(['os', 'apply', '--from', A, '--to', B, '--simulate', state, '--arch', 'amd64']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`ran: rpm-ostree rebase --experimental ostree-unverified-registry:${IMG_B}`);
    const text = keelson(['os', 'status', '--simulate', state]).stdout;
    expect(text).toMatch(/sha256:2{64} \(staged\)/);
    expect(keelson(['os', 'reboot', '--simulate', state]).code).toBe(0);
    s = parseRpmOstreeStatus(keelson(['os', 'status', '--simulate', state, '--json']).stdout);
    const b = bootedDeployment(s);
    expect(b && osImageUrlOf(b)).toBe(IMG_B);
    expect([...(b?.requestedPackages ?? [])].sort()).toStrictEqual([
      'kernel-rt-core',
      'kernel-rt-kvm',
      'kernel-rt-modules',
      'kernel-rt-modules-extra',
      'usbguard',
    ]);
    expect(s.deployments[1]?.rollback).toBe(true);
    expect(keelson(['os', 'status', '--simulate', state]).stdout).toContain(
      'LayeredPackages: kernel-rt-core kernel-rt-modules kernel-rt-modules-extra kernel-rt-kvm usbguard',
    );
  });
  it('real ostree node: sim-init --sysroot, apply, reboot, status', () => {
    const node = join(mkdtempSync(join(tmpdir(), 'keelson-os-node-')), 'sysroot');
    const init = keelson(['os', 'sim-init', '--sysroot', node, '--config', A]);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    let s = parseRpmOstreeStatus(keelson(['os', 'status', '--sysroot', node, '--json']).stdout);
    expect(bootedDeployment(s)?.requestedPackages).toStrictEqual(['sysstat']);
    const run = keelson(['os', 'apply', '--from', A, '--to', B, '--sysroot', node, '--arch', 'amd64']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('ran: rpm-ostree update --install usbguard --uninstall sysstat');
    expect(keelson(['os', 'reboot', '--sysroot', node]).code).toBe(0);
    s = parseRpmOstreeStatus(keelson(['os', 'status', '--sysroot', node, '--json']).stdout);
    const b = bootedDeployment(s);
    expect(b && osImageUrlOf(b)).toBe(IMG_B);
    expect([...(b?.requestedPackages ?? [])].sort()).toStrictEqual([
      'kernel-rt-core',
      'kernel-rt-kvm',
      'kernel-rt-modules',
      'kernel-rt-modules-extra',
      'usbguard',
    ]);
    expect(keelson(['os', 'sim-init', '--sysroot', node, '--config', A]).stderr).toContain('already exists');
    expect(keelson(['os', 'reboot']).code).toBe(2);
  });
  it('--sysroot reads a real ostree sysroot', async () => {
    const t = mkdtempSync(join(tmpdir(), 'keelson-os-sysroot-'));
    process.env['OSTREE_SYSROOT_DEBUG'] = 'mutable-deployments';
    const sys = await new OstreeSysroot({ path: join(t, 'sysroot'), osname: 'fedora-coreos' }).init();
    const tree = join(t, 'tree');
    mkdirSync(join(tree, 'usr/lib/modules/6.5.0-1'), { recursive: true });
    mkdirSync(join(tree, 'usr/etc'), { recursive: true });
    writeFileSync(join(tree, 'usr/lib/modules/6.5.0-1/vmlinuz'), 'k');
    writeFileSync(join(tree, 'usr/lib/modules/6.5.0-1/initramfs.img'), 'i');
    writeFileSync(join(tree, 'usr/lib/os-release'), 'NAME=Test\nID=test\n');
    await sys.commit(tree, { branch: 'fedora/x86_64/coreos/stable', version: '41.1' });
    await sys.deploy('fedora/x86_64/coreos/stable', { kargs: ['rw'] });
    const r = keelson(['os', 'status', '--sysroot', join(t, 'sysroot'), '--json']);
    expect(r.stderr).toBe('');
    const s = parseRpmOstreeStatus(r.stdout);
    expect(s.deployments[0]?.version).toBe('41.1');
    expect(s.deployments[0]?.origin).toBe('fedora/x86_64/coreos/stable');
    expect(keelson(['os', 'status', '--sysroot', join(t, 'nothing')]).stderr).toContain('not an ostree sysroot');
  });
});
