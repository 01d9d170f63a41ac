import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  RpmOstree,
  SimulatedRpmOstree,
  SysrootRpmOstree,
  rollbackDeployment,
  applyOsChanges,
  applyOsChangesOnHost,
  bootedDeployment,
  formatPlan,
  osImageUrlOf,
  parseOstreeImageReference,
  parseRpmOstreeStatus,
  stagedDeployment,
  statusToJson,
  type CommandRunner,
  type RpmOstreeStatus,
} from '../src/index.js';

/** Status invariants every backend's `status --json` must satisfy. */
export function checkStatusContract(text: string, label: string): RpmOstreeStatus {
  const s = parseRpmOstreeStatus(text, label);
  expect(statusToJson(s), `${label}: lossless`).toStrictEqual(JSON.parse(text));
  expect(s.deployments.filter((d) => d.booted).length, `${label}: one booted`).toBeLessThanOrEqual(1);
  const staged = s.deployments.filter((d) => d.staged);
  expect(staged.length, `${label}: at most one staged`).toBeLessThanOrEqual(1);
  if (staged[0]) expect(s.deployments.indexOf(staged[0]), `${label}: staged first`).toBe(0);
  for (const d of s.deployments) {
    expect(d.id, `${label}: id`).toBe(`${d.osname}-${d.checksum}.${d.serial}`);
    expect(d.origin !== undefined || d.containerImageReference !== undefined, `${label}: has an origin`).toBe(true);
    if (d.containerImageReference !== undefined)
      expect(() => parseOstreeImageReference(d.containerImageReference as string)).not.toThrow();
    if (d.finalizationLocked) expect(d.staged).toBe(true);
    if (d.pending) expect(s.deployments.indexOf(d)).toBe(0);
  }
  return s;
}

export const IMG1 = 'quay.io/ocp/os@sha256:' + 'a'.repeat(64);
export const IMG2 = 'quay.io/ocp/os@sha256:' + 'b'.repeat(64);

export interface Scenario {
  name: string;
  old: { osImageURL: string; kernelArguments?: string[]; extensions?: string[]; kernelType?: string };
  new: { osImageURL: string; kernelArguments?: string[]; extensions?: string[]; kernelType?: string };
}
export const scenarios: Scenario[] = [
  { name: 'OS image only', old: { osImageURL: IMG1 }, new: { osImageURL: IMG2 } },
  {
    name: 'kargs only',
    old: { osImageURL: IMG1, kernelArguments: ['a=1 b'] },
    new: { osImageURL: IMG1, kernelArguments: ['b', 'c="x y"'] },
  },
  {
    name: 'to realtime with extensions',
    old: { osImageURL: IMG1 },
    new: { osImageURL: IMG1, kernelType: 'realtime', extensions: ['usbguard', 'sysstat'] },
  },
  {
    name: 'realtime back to default with OS update',
    old: { osImageURL: IMG1, kernelType: 'realtime', extensions: ['sysstat'] },
    new: { osImageURL: IMG2, extensions: [] },
  },
  {
    name: 'everything',
    old: { osImageURL: IMG1, kernelArguments: ['nosmt'], extensions: ['ipsec'] },
    new: { osImageURL: IMG2, kernelArguments: ['hugepages=4'], extensions: ['kerberos'], kernelType: 'realtime' },
  },
];

/** A node OS backend the plan contract runs against (same tests for every backend). */
export interface NodeBackend {
  backend: string;
  create(image: string): Promise<{
    runner: CommandRunner & { log: string[][] };
    reboot(): unknown;
    bootedKargs(): Promise<string[]>;
    statePath?: string;
  }>;
}
export const simulatedNodeBackends: NodeBackend[] = [
  {
    backend: 'SimulatedRpmOstree in memory',
    create: (image) => {
      const sim = new SimulatedRpmOstree({ osImageURL: image, kargs: ['rw', 'root=LABEL=root'] });
      return Promise.resolve({
        runner: sim,
        reboot: () => sim.reboot(),
        bootedKargs: () => Promise.resolve(sim.bootedKargs()),
      });
    },
  },
  {
    backend: 'SimulatedRpmOstree on disk',
    create: (image) => {
      const statePath = join(mkdtempSync(join(tmpdir(), 'simhost-')), 'state.json');
      const sim = new SimulatedRpmOstree({ osImageURL: image, kargs: ['rw', 'root=LABEL=root'], statePath });
      return Promise.resolve({
        runner: sim,
        reboot: () => sim.reboot(),
        bootedKargs: () => Promise.resolve(sim.bootedKargs()),
        statePath,
      });
    },
  },
];

/** Temp directories to delete after the suite (deployments are mutable: OSTREE_SYSROOT_DEBUG=mutable-deployments). */
const tempDirs: string[] = [];

export const sysrootNodeBackend: NodeBackend = {
  backend: 'SysrootRpmOstree on real ostree',
  create: async (image) => {
    const dir = mkdtempSync(join(tmpdir(), 'sysroothost-'));
    tempDirs.push(dir);
    const host = await SysrootRpmOstree.create({
      path: join(dir, 'sysroot'),
      osImageURL: image,
      kargs: ['rw', 'root=LABEL=root'],
    });
    return {
      runner: host,
      reboot: () => host.reboot(),
      bootedKargs: async () => {
        const s = await host.statusJson();
        const idx = (s['deployments'] as { booted: boolean }[]).findIndex((d) => d.booted);
        return [...((await host.sysroot.deployments())[idx]?.kargs ?? [])];
      },
    };
  },
};

export function planContract(nb: NodeBackend, only?: readonly string[]): void {
  describe(`plan contract on ${nb.backend}`, { timeout: 120_000 }, () => {
    afterAll(() => {
      for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });
    for (const sc of scenarios.filter((x) => only === undefined || only.includes(x.name))) {
      it(`${sc.name}: live plan equals the pure plan, executes, and reboots into the new config`, async () => {
        const node = await nb.create(sc.old.osImageURL);
        const driver = new RpmOstree({ runner: node.runner, sleep: () => Promise.resolve() });
        await applyOsChangesOnHost(driver, { osImageURL: sc.old.osImageURL }, sc.old);
        await node.reboot();
        const pure = applyOsChanges({ spec: sc.old }, { spec: sc.new }, { arch: 'amd64' });
        const { plan: live } = await applyOsChangesOnHost(
          driver,
          { spec: sc.old },
          { spec: sc.new },
          { dryRun: true, arch: 'amd64' },
        );
        expect(formatPlan(live)).toStrictEqual(formatPlan(pure));
        const before = node.runner.log.length;
        await applyOsChangesOnHost(driver, { spec: sc.old }, { spec: sc.new }, { arch: 'amd64' });
        const ran = node.runner.log
          .slice(before)
          .map((a) => a.slice(1))
          .filter((a) => a[0] !== 'status' && a[0] !== '--version');
        expect(ran).toStrictEqual(pure.steps.filter((s) => s.args.length > 0).map((s) => [...s.args]));
        const pending = await driver.status();
        checkStatusContract(JSON.stringify(statusToJson(pending)), `${nb.backend} staged`);
        if (pure.steps.length > 0) expect(stagedDeployment(pending)).toBeDefined();
        await node.reboot();
        const after = await driver.status();
        checkStatusContract(JSON.stringify(statusToJson(after)), `${nb.backend} rebooted`);
        const b = bootedDeployment(after);
        expect(b && osImageUrlOf(b)).toBe(sc.new.osImageURL);
        const kernelPkgs =
          sc.new.kernelType === 'realtime'
            ? ['kernel-rt-core', 'kernel-rt-modules', 'kernel-rt-modules-extra', 'kernel-rt-kvm']
            : [];
        expect([...(b?.requestedPackages ?? [])].sort()).toStrictEqual(
          [
            ...kernelPkgs,
            ...applyOsChanges({}, { spec: { osImageURL: 'x', extensions: sc.new.extensions ?? [] } }).steps.flatMap(
              (s) => (s.kind === 'verify-extensions' ? [...(s.expectPackages ?? [])] : []),
            ),
          ].sort(),
        );
        const kargs = await node.bootedKargs();
        for (const k of applyOsChanges({}, { kernelArguments: sc.new.kernelArguments ?? [] }).steps.flatMap((s) =>
          s.args.filter((a) => a.startsWith('--append=')),
        )) {
          expect(kargs).toContain(k.slice('--append='.length));
        }
        for (const k of sc.old.kernelArguments ?? [])
          for (const a of k.split(' '))
            if (!(sc.new.kernelArguments ?? []).join(' ').split(' ').includes(a)) expect(kargs).not.toContain(a);
        // nothing left to do afterwards
        const again = await applyOsChangesOnHost(
          driver,
          { spec: sc.new },
          { spec: sc.new },
          { dryRun: true, arch: 'amd64' },
        );
        expect(
          again.plan.steps.filter((s) => s.kind === 'revert-kernel-swap' || s.kind === 'extensions'),
        ).toStrictEqual([]);
        if (node.statePath)
          expect(JSON.parse(readFileSync(node.statePath, 'utf8')).deployments.length).toBeGreaterThan(0);
      });
    }
    it('cleanup -p drops a staged change, cleanup -r the rollback', async () => {
      const node = await nb.create(IMG1);
      const driver = new RpmOstree({ runner: node.runner, sleep: () => Promise.resolve() });
      await driver.rebaseLayered(IMG2);
      expect(stagedDeployment(await driver.status())).toBeDefined();
      await driver.removePendingDeployment();
      let s = await driver.status();
      expect(stagedDeployment(s)).toBeUndefined();
      expect(s.deployments).toHaveLength(1);
      await driver.rebaseLayered(IMG2);
      await node.reboot();
      s = await driver.status();
      expect(s.deployments).toHaveLength(2);
      expect(rollbackDeployment(s)).toBeDefined();
      await driver.cleanup({ rollback: true });
      s = await driver.status();
      expect(s.deployments).toHaveLength(1);
      const b = bootedDeployment(s);
      expect(b && osImageUrlOf(b)).toBe(IMG2);
    });
  });
}
