import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OstreeSysroot,
  RpmOstree,
  SimulatedRpmOstree,
  applyOsChangesOnHost,
  bootedDeployment,
  osImageUrlOf,
  stagedDeployment,
  type CommandResult,
  type CommandRunner,
} from '../src/index.js';
import { fixtures } from './helpers.js';
import {
  IMG1,
  IMG2,
  checkStatusContract,
  planContract,
  scenarios,
  simulatedNodeBackends,
  type Scenario,
} from './contract-suite.js';

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
    statuses: simulatedStatuses(
      () => new SimulatedRpmOstree({ statePath: join(mkdtempSync(join(tmpdir(), 'simhost-')), 'state.json') }),
    ),
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

/** Puts a simulated host exactly at `cfg` by running the plan from an empty config and rebooting. */
async function hostAt(
  cfg: Scenario['old'],
  statePath?: string,
): Promise<{ sim: SimulatedRpmOstree; driver: RpmOstree }> {
  const sim = new SimulatedRpmOstree({
    osImageURL: cfg.osImageURL,
    kargs: ['rw', 'root=LABEL=root'],
    ...(statePath ? { statePath } : {}),
  });
  const driver = new RpmOstree({ runner: sim, sleep: () => Promise.resolve() });
  await applyOsChangesOnHost(driver, { osImageURL: cfg.osImageURL }, cfg);
  sim.reboot();
  return { sim, driver };
}

for (const nb of simulatedNodeBackends) planContract(nb);

describe.each([
  { backend: 'memory', path: (): string | undefined => undefined },
  { backend: 'disk', path: (): string | undefined => join(mkdtempSync(join(tmpdir(), 'simhost-')), 'state.json') },
])('failure handling on SimulatedRpmOstree ($backend)', ({ path }) => {
  it('a failing step rolls back with cleanup -p and leaves no staged deployment', async () => {
    const { sim, driver } = await hostAt({ osImageURL: IMG1 }, path());
    sim.failNext('override remove', 'Could not depsolve transaction; 1 problem detected: kernel-rt-core missing');
    const err = await applyOsChangesOnHost(
      driver,
      { osImageURL: IMG1 },
      { osImageURL: IMG2, kernelType: 'realtime' },
      { arch: 'amd64' },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PLAN_STEP_FAILED', rolledBack: true, step: { kind: 'kernel-type' } });
    expect((err as Error).message).toContain('depsolve');
    expect(sim.log.at(-1)).toStrictEqual(['rpm-ostree', 'cleanup', '-p']);
    expect(stagedDeployment(await driver.status())).toBeUndefined();
  });
  it('extension verification fails when the staged deployment misses packages', async () => {
    const { sim, driver } = await hostAt({ osImageURL: IMG1 }, path());
    const real = sim.run.bind(sim);
    sim.run = async (cmd, args, o) =>
      args[0] === 'update' ? real(cmd, ['update', '--install', 'other'], o) : real(cmd, args, o);
    const err = await applyOsChangesOnHost(
      driver,
      { osImageURL: IMG1 },
      { osImageURL: IMG1, extensions: ['usbguard'] },
    ).catch((e: unknown) => e);
    expect((err as Error).message).toContain(
      'the following extension packages are missing from the staged deployment: [usbguard]',
    );
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
