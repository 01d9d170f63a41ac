import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OstreeSysroot,
  RpmOstree,
  SimulatedRpmOstree,
  applyOsChanges,
  applyOsChangesOnHost,
  bootedDeployment,
  formatPlan,
  osImageUrlOf,
  parseOstreeImageReference,
  parseRpmOstreeStatus,
  stagedDeployment,
  statusToJson,
  type CommandResult,
  type CommandRunner,
  type RpmOstreeStatus,
} from '../src/index.js';
import { fixtures } from './helpers.js';

/** Status invariants every backend's `status --json` must satisfy. */
function checkStatusContract(text: string, label: string): RpmOstreeStatus {
  const s = parseRpmOstreeStatus(text, label);
  expect(statusToJson(s), `${label}: lossless`).toStrictEqual(JSON.parse(text));
  expect(s.deployments.filter((d) => d.booted).length, `${label}: one booted`).toBeLessThanOrEqual(1);
  const staged = s.deployments.filter((d) => d.staged);
  expect(staged.length, `${label}: at most one staged`).toBeLessThanOrEqual(1);
  if (staged[0]) expect(s.deployments.indexOf(staged[0]), `${label}: staged first`).toBe(0);
  for (const d of s.deployments) {
    expect(d.id, `${label}: id`).toBe(`${d.osname}-${d.checksum}.${d.serial}`);
    expect(d.origin !== undefined || d.containerImageReference !== undefined, `${label}: has an origin`).toBe(true);
    if (d.containerImageReference !== undefined) expect(() => parseOstreeImageReference(d.containerImageReference as string)).not.toThrow();
    if (d.finalizationLocked) expect(d.staged).toBe(true);
    if (d.pending) expect(s.deployments.indexOf(d)).toBe(0);
  }
  return s;
}

/** A runner that answers `status --json` with fixed text (the parser backend). */
class FixtureRunner implements CommandRunner {
  constructor(readonly text: string) {}
  run(): Promise<CommandResult> {
    return Promise.resolve({ exitCode: 0, signal: null, stdout: this.text, stderr: '', timedOut: false });
  }
}

interface Backend {
  name: string;
  statuses(): Promise<[string, string][]>;
}

function simulatedStatuses(make: () => SimulatedRpmOstree): () => Promise<[string, string][]> {
  return async () => {
    const sim = make();
    const driver = new RpmOstree({ runner: sim, sleep: () => Promise.resolve() });
    const out: [string, string][] = [];
    const snap = async (label: string): Promise<void> => {
      out.push([label, (await sim.run('rpm-ostree', ['status', '--json'])).stdout]);
      await driver.status();
    };
    await snap('fresh');
    await driver.rebaseLayered('quay.io/ocp/os@sha256:' + '1'.repeat(64));
    await snap('staged rebase');
    await driver.kargsRaw(['--append=nosmt']);
    await snap('staged rebase+kargs');
    await driver.switchKernel('realtime');
    await driver.update(['--install', 'usbguard']);
    await snap('staged layered');
    sim.reboot();
    await snap('rebooted');
    await driver.rebase('ostree-image-signed:docker://quay.io/fedora/fedora-coreos:stable', { lockFinalization: true });
    await snap('locked');
    sim.reboot();
    await snap('locked discarded');
    await driver.cleanup({ rollback: true });
    await snap('no rollback');
    return out;
  };
}

/** Real Debian ostree: a sysroot with three deployments (one pinned) exposed in the rpm-ostree shape. */
async function sysrootStatuses(): Promise<[string, string][]> {
  const t = mkdtempSync(join(tmpdir(), 'contract-sysroot-'));
  const sys = await new OstreeSysroot({ path: join(t, 'sysroot'), osname: 'fedora-coreos' }).init();
  const out: [string, string][] = [];
  for (const v of ['1', '2', '3']) {
    const tree = join(t, `tree${v}`);
    mkdirSync(join(tree, 'usr/lib/modules/6.5.0-1'), { recursive: true });
    mkdirSync(join(tree, 'usr/etc'), { recursive: true });
    writeFileSync(join(tree, 'usr/lib/modules/6.5.0-1/vmlinuz'), `k${v}`);
    writeFileSync(join(tree, 'usr/lib/modules/6.5.0-1/initramfs.img'), `i${v}`);
    writeFileSync(join(tree, 'usr/lib/os-release'), `NAME=Test\nID=test\nVERSION_ID=${v}\n`);
    await sys.commit(tree, { branch: 'fedora/x86_64/coreos/stable', version: `41.${v}` });
    await sys.deploy('fedora/x86_64/coreos/stable', { retain: true, kargs: ['rw'] });
    out.push([`sysroot after deploy ${v}`, JSON.stringify(await sys.toStatusJson(1))]);
  }
  await sys.pin(2);
  out.push(['sysroot pinned', JSON.stringify(await sys.toStatusJson(0))]);
  rmSync(t, { recursive: true, force: true });
  return out;
}

const backends: Backend[] = [
  { name: 'OstreeSysroot (real Debian ostree)', statuses: sysrootStatuses },
  { name: 'parser on real fixtures', statuses: () => Promise.resolve(fixtures()) },
  { name: 'SimulatedRpmOstree in memory', statuses: simulatedStatuses(() => new SimulatedRpmOstree()) },
  {
    name: 'SimulatedRpmOstree on disk',
    statuses: simulatedStatuses(() => new SimulatedRpmOstree({ statePath: join(mkdtempSync(join(tmpdir(), 'simhost-')), 'state.json') })),
  },
];

describe.each(backends)('status contract: $name', { timeout: 60_000 }, (backend) => {
  it('every status document satisfies the invariants and is parsed by the driver', async () => {
    const all = await backend.statuses();
    expect(all.length).toBeGreaterThan(0);
    for (const [label, text] of all) {
      checkStatusContract(text, label);
      const s = await new RpmOstree({ runner: new FixtureRunner(text) }).status();
      expect(s.deployments.length).toBe(JSON.parse(text).deployments.length);
    }
  });
});

const IMG1 = 'quay.io/ocp/os@sha256:' + 'a'.repeat(64);
const IMG2 = 'quay.io/ocp/os@sha256:' + 'b'.repeat(64);

interface Scenario {
  name: string;
  old: { osImageURL: string; kernelArguments?: string[]; extensions?: string[]; kernelType?: string };
  new: { osImageURL: string; kernelArguments?: string[]; extensions?: string[]; kernelType?: string };
}
const scenarios: Scenario[] = [
  { name: 'OS image only', old: { osImageURL: IMG1 }, new: { osImageURL: IMG2 } },
  { name: 'kargs only', old: { osImageURL: IMG1, kernelArguments: ['a=1 b'] }, new: { osImageURL: IMG1, kernelArguments: ['b', 'c="x y"'] } },
  { name: 'to realtime with extensions', old: { osImageURL: IMG1 }, new: { osImageURL: IMG1, kernelType: 'realtime', extensions: ['usbguard', 'sysstat'] } },
  { name: 'realtime back to default with OS update', old: { osImageURL: IMG1, kernelType: 'realtime', extensions: ['sysstat'] }, new: { osImageURL: IMG2, extensions: [] } },
  { name: 'everything', old: { osImageURL: IMG1, kernelArguments: ['nosmt'], extensions: ['ipsec'] }, new: { osImageURL: IMG2, kernelArguments: ['hugepages=4'], extensions: ['kerberos'], kernelType: 'realtime' } },
];

/** Puts a simulated host exactly at `cfg` by running the plan from an empty config and rebooting. */
async function hostAt(cfg: Scenario['old'], statePath?: string): Promise<{ sim: SimulatedRpmOstree; driver: RpmOstree }> {
  const sim = new SimulatedRpmOstree({ osImageURL: cfg.osImageURL, kargs: ['rw', 'root=LABEL=root'], ...(statePath ? { statePath } : {}) });
  const driver = new RpmOstree({ runner: sim, sleep: () => Promise.resolve() });
  await applyOsChangesOnHost(driver, { osImageURL: cfg.osImageURL }, cfg);
  sim.reboot();
  return { sim, driver };
}

describe.each([
  { backend: 'memory', path: (): string | undefined => undefined },
  { backend: 'disk', path: (): string | undefined => join(mkdtempSync(join(tmpdir(), 'simhost-')), 'state.json') },
])('plan contract on SimulatedRpmOstree ($backend)', ({ path }) => {
  for (const sc of scenarios) {
    it(`${sc.name}: live plan equals the pure plan, executes, and reboots into the new config`, async () => {
      const statePath = path();
      const { sim, driver } = await hostAt(sc.old, statePath);
      const pure = applyOsChanges({ spec: sc.old }, { spec: sc.new }, { arch: 'amd64' });
      const { plan: live } = await applyOsChangesOnHost(driver, { spec: sc.old }, { spec: sc.new }, { dryRun: true, arch: 'amd64' });
      expect(formatPlan(live)).toStrictEqual(formatPlan(pure));
      const before = sim.log.length;
      await applyOsChangesOnHost(driver, { spec: sc.old }, { spec: sc.new }, { arch: 'amd64' });
      const ran = sim.log.slice(before).map((a) => a.slice(1)).filter((a) => a[0] !== 'status' && a[0] !== '--version');
      expect(ran).toStrictEqual(pure.steps.filter((s) => s.args.length > 0).map((s) => [...s.args]));
      sim.reboot();
      const b = bootedDeployment(await driver.status());
      expect(b && osImageUrlOf(b)).toBe(sc.new.osImageURL);
      const kernelPkgs = sc.new.kernelType === 'realtime' ? ['kernel-rt-core', 'kernel-rt-modules', 'kernel-rt-modules-extra'] : [];
      expect([...(b?.requestedPackages ?? [])].sort()).toStrictEqual(
        [...kernelPkgs, ...applyOsChanges({}, { spec: { osImageURL: 'x', extensions: sc.new.extensions ?? [] } }).steps.flatMap((s) => (s.kind === 'verify-extensions' ? [...(s.expectPackages ?? [])] : []))].sort(),
      );
      const kargs = sim.bootedKargs();
      for (const k of applyOsChanges({}, { kernelArguments: sc.new.kernelArguments ?? [] }).steps.flatMap((s) => s.args.filter((a) => a.startsWith('--append=')))) {
        expect(kargs).toContain(k.slice('--append='.length));
      }
      for (const k of sc.old.kernelArguments ?? []) for (const a of k.split(' ')) if (!(sc.new.kernelArguments ?? []).join(' ').split(' ').includes(a)) expect(kargs).not.toContain(a);
      // nothing left to do afterwards
      const again = await applyOsChangesOnHost(driver, { spec: sc.new }, { spec: sc.new }, { dryRun: true, arch: 'amd64' });
      expect(again.plan.steps.filter((s) => s.kind === 'revert-kernel-swap' || s.kind === 'extensions')).toStrictEqual([]);
      if (statePath) expect(JSON.parse(readFileSync(statePath, 'utf8')).deployments.length).toBeGreaterThan(0);
    });
  }
  it('a failing step rolls back with cleanup -p and leaves no staged deployment', async () => {
    const { sim, driver } = await hostAt({ osImageURL: IMG1 }, path());
    sim.failNext('override remove', 'Could not depsolve transaction; 1 problem detected: kernel-rt-core missing');
    const err = await applyOsChangesOnHost(driver, { osImageURL: IMG1 }, { osImageURL: IMG2, kernelType: 'realtime' }, { arch: 'amd64' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PLAN_STEP_FAILED', rolledBack: true, step: { kind: 'kernel-type' } });
    expect((err as Error).message).toContain('depsolve');
    expect(sim.log.at(-1)).toStrictEqual(['rpm-ostree', 'cleanup', '-p']);
    expect(stagedDeployment(await driver.status())).toBeUndefined();
  });
  it('extension verification fails when the staged deployment misses packages', async () => {
    const { sim, driver } = await hostAt({ osImageURL: IMG1 }, path());
    const real = sim.run.bind(sim);
    sim.run = async (cmd, args, o) => (args[0] === 'update' ? real(cmd, ['update', '--install', 'other'], o) : real(cmd, args, o));
    const err = await applyOsChangesOnHost(driver, { osImageURL: IMG1 }, { osImageURL: IMG1, extensions: ['usbguard'] }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('the following extension packages are missing from the staged deployment: [usbguard]');
    expect(stagedDeployment(await driver.status())).toBeUndefined();
  });
  it('busy simulated daemon is retried by the driver', async () => {
    const { sim, driver } = await hostAt({ osImageURL: IMG1 }, path());
    sim.holdTransaction(2);
    await driver.cleanup({ pending: true });
    expect(sim.log.filter((a) => a[1] === 'cleanup').length).toBe(3);
  });
});

describe('SimulatedRpmOstree.atConfig', () => {
  for (const sc of scenarios) {
    it(`${sc.name}: a host created at the config equals one brought there by the plan`, async () => {
      const viaPlan = await hostAt(sc.new);
      const direct = SimulatedRpmOstree.atConfig(sc.new);
      const a = bootedDeployment(await new RpmOstree({ runner: viaPlan.sim }).status());
      const b = bootedDeployment(await new RpmOstree({ runner: direct }).status());
      expect(b && osImageUrlOf(b)).toBe(a && osImageUrlOf(a));
      expect([...(b?.requestedPackages ?? [])].sort()).toStrictEqual([...(a?.requestedPackages ?? [])].sort());
      expect([...(b?.requestedBaseRemovals ?? [])].sort()).toStrictEqual([...(a?.requestedBaseRemovals ?? [])].sort());
      expect(direct.bootedKargs()).toStrictEqual(viaPlan.sim.bootedKargs());
      expect(b?.checksum).toBe(a?.checksum);
    });
  }
});
