import { describe, expect, it } from 'vitest';
import { applyOsChanges, executePlan, formatPlan, isEL10, RpmOstree, SimulatedRpmOstree } from '../src/index.js';

const A = 'quay.io/ocp/os@sha256:' + 'a'.repeat(64);
const B = 'quay.io/ocp/os@sha256:' + 'b'.repeat(64);

describe('applyOsChanges plan builder', () => {
  it('orders every kind of step like the daemon', () => {
    const plan = applyOsChanges(
      {
        metadata: { name: 'rendered-worker-1' },
        spec: { osImageURL: A, kernelArguments: ['nosmt'], extensions: ['ipsec'], kernelType: 'realtime' },
      },
      {
        metadata: { name: 'rendered-worker-2' },
        spec: {
          osImageURL: B,
          kernelArguments: ['hugepages=4 x="a b"'],
          extensions: ['sysstat'],
          kernelType: 'realtime',
        },
      },
      { arch: 'amd64' },
    );
    expect(plan.steps.map((s) => s.kind)).toStrictEqual([
      'cleanup-pending',
      'revert-kernel-swap',
      'rebase',
      'kargs',
      'kernel-type',
      'extensions',
      'verify-extensions',
    ]);
    expect(formatPlan(plan)).toStrictEqual([
      'rpm-ostree cleanup -p',
      'rpm-ostree override reset kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --uninstall kernel-rt-core --uninstall kernel-rt-modules --uninstall kernel-rt-modules-extra --uninstall kernel-rt-kvm',
      `rpm-ostree rebase --experimental ostree-unverified-registry:${A.replace('a'.repeat(64), 'b'.repeat(64))}`,
      `rpm-ostree kargs --delete-if-present=nosmt --append=hugepages=4 '--append=x="a b"'`,
      'rpm-ostree override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --install kernel-rt-core --install kernel-rt-modules --install kernel-rt-modules-extra --install kernel-rt-kvm',
      'rpm-ostree update --install sysstat --uninstall NetworkManager-libreswan --uninstall libreswan --uninstall openvswitch3.5-ipsec',
      '# check the staged deployment requests every extension package: sysstat',
    ]);
    expect(plan.rollback.map((s) => s.args)).toStrictEqual([['cleanup', '-p']]);
    expect(plan.steps.find((s) => s.kind === 'rebase')?.retryAnyFailure).toBe(true);
  });
  it('does nothing when nothing OS-related changed (default kernel)', () => {
    const plan = applyOsChanges({ spec: { osImageURL: A } }, { spec: { osImageURL: A } });
    expect(plan.steps).toStrictEqual([]);
    expect(plan.notes).toContain('no OS changes');
  });
  it('re-applies a non-default kernel even without changes (daemon behaviour) but skips rebase/kernel switch', () => {
    const plan = applyOsChanges({ osImageURL: A, kernelType: 'realtime' }, { osImageURL: A, kernelType: 'realtime' });
    expect(plan.steps.map((s) => s.kind)).toStrictEqual(['cleanup-pending']);
  });
  it('skips the rebase when the booted image already is the target', () => {
    const plan = applyOsChanges(
      { osImageURL: A },
      { osImageURL: B, kernelArguments: ['a'] },
      { booted: { requestedPackages: [], requestedBaseRemovals: [], osImageURL: B } },
    );
    expect(plan.diff.osUpdate).toBe(false);
    expect(plan.steps.map((s) => s.kind)).toStrictEqual(['cleanup-pending', 'kargs']);
    expect(plan.notes.join()).toContain('already in desired image');
  });
  it('force re-runs the rebase unless the booted image already matches', () => {
    const drifted = { requestedPackages: [], requestedBaseRemovals: [], osImageURL: B };
    expect(
      applyOsChanges({ osImageURL: A }, { osImageURL: A }, { force: true, booted: drifted }).steps.map((s) => s.kind),
    ).toStrictEqual(['cleanup-pending', 'rebase']);
    expect(applyOsChanges({ osImageURL: A }, { osImageURL: A }, { booted: drifted }).steps).toStrictEqual([]);
    // node assumed at `old` (booted = A): nothing to do even with force, like the daemon's booted-image check
    expect(applyOsChanges({ osImageURL: A }, { osImageURL: A }, { force: true }).steps).toStrictEqual([]);
  });
  it('64k-pages needs arm64; non-EL hosts skip kernel and extensions', () => {
    expect(() =>
      applyOsChanges({ osImageURL: A }, { osImageURL: A, kernelType: '64k-pages' }, { arch: 'amd64' }),
    ).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_KERNEL_TYPE' }));
    const arm = applyOsChanges({ osImageURL: A }, { osImageURL: A, kernelType: '64k-pages' }, { arch: 'arm64' });
    expect(arm.steps.at(-1)?.args).toContain('kernel-64k-modules-core');
    const fcos = applyOsChanges(
      { osImageURL: A },
      { osImageURL: B, kernelType: 'realtime', extensions: ['usbguard'] },
      { isEL: false, arch: 'amd64' },
    );
    expect(fcos.steps.map((s) => s.kind)).toStrictEqual(['cleanup-pending', 'rebase']);
  });
  it('local container storage rebase and missing container feature', () => {
    const p = applyOsChanges(
      { osImageURL: A },
      { osImageURL: B },
      { localImageRepoDigest: 'quay.io/ocp/os@sha256:cc' },
    );
    expect(p.steps[1]?.args).toStrictEqual([
      'rebase',
      '--experimental',
      'ostree-unverified-image:containers-storage:quay.io/ocp/os@sha256:cc',
    ]);
    expect(() => applyOsChanges({ osImageURL: A }, { osImageURL: B }, { hasContainerFeature: false })).toThrow(
      /container/,
    );
    expect(() => applyOsChanges({ osImageURL: A }, { osImageURL: '' })).toThrow(/osImageURL is empty/);
  });
  it('rejects unknown extensions before running anything', () => {
    expect(() => applyOsChanges({ osImageURL: A }, { osImageURL: A, extensions: ['wireguard'] })).toThrow(
      /invalid extensions found: \[wireguard\]/,
    );
  });
  it('dry-run executes nothing', async () => {
    const sim = new SimulatedRpmOstree();
    const plan = applyOsChanges({ osImageURL: A }, { osImageURL: B });
    const r = await executePlan(plan, new RpmOstree({ runner: sim }), { dryRun: true });
    expect(r).toStrictEqual({ completed: [], dryRun: true });
    expect(sim.log).toStrictEqual([]);
  });
  it('reports a failing rollback too', async () => {
    const sim = new SimulatedRpmOstree({ osImageURL: A });
    sim.failNext('cleanup', 'daemon crashed', 1);
    const driver = new RpmOstree({ runner: sim, sleep: () => Promise.resolve() });
    const plan = applyOsChanges({ osImageURL: A }, { osImageURL: B });
    // the first step (cleanup -p) failing is fatal before anything was staged
    await expect(executePlan(plan, driver)).rejects.toThrow(/failed to remove pending deployment.*daemon crashed/);
    sim.failNext('rebase', 'pull failed', 7);
    let cleanups = 0;
    const real = sim.run.bind(sim);
    sim.run = async (cmd, args, o) =>
      args[0] === 'cleanup' && ++cleanups === 2
        ? { exitCode: 1, signal: null, stdout: '', stderr: 'error: daemon crashed', timedOut: false }
        : real(cmd, args, o);
    const err = await executePlan(plan, driver).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PLAN_STEP_FAILED', rolledBack: false });
    expect((err as Error).message).toMatch(/pull failed.*rolling back ALSO failed.*daemon crashed/s);
  });
});

describe('the realtime kernel set of the host release (upstream getKernelPackagesForRelease)', () => {
  const rt = { spec: { kernelType: 'realtime' } };
  const kernelStep = (el10?: boolean): string | undefined =>
    formatPlan(applyOsChanges({ spec: {} }, rt, el10 === undefined ? {} : { el10 })).find((l) =>
      l.includes('override remove'),
    );
  it('installs kernel-rt-kvm on a RHEL 9 based host and not on a RHEL 10 based one', () => {
    expect(kernelStep()).toBe(
      'rpm-ostree override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --install kernel-rt-core --install kernel-rt-modules --install kernel-rt-modules-extra --install kernel-rt-kvm',
    );
    expect(kernelStep(true)).toBe(
      'rpm-ostree override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --install kernel-rt-core --install kernel-rt-modules --install kernel-rt-modules-extra',
    );
  });
  it('tells a RHEL 10 based CoreOS from its os-release', () => {
    expect(isEL10('NAME="Red Hat Enterprise Linux CoreOS"\nID="rhcos"\nVERSION_ID="4.20"\nRHEL_VERSION="9.6"\n')).toBe(
      false,
    );
    expect(isEL10('ID="rhcos"\nVERSION_ID="10.1"\nRHEL_VERSION="10.1"\n')).toBe(true);
    expect(isEL10('ID="scos"\nVERSION_ID="10"\n')).toBe(true);
    expect(isEL10('ID=fedora\nVERSION_ID=10\n')).toBe(false);
    expect(isEL10('')).toBe(false);
  });
});
