/**
 * Hostile-input / crash suite of the ostree sysroot backend (issue 14 item 13), on a REAL ostree sysroot: the
 * rpm-ostree metadata lives in each deployment's origin (written by `ostree admin deploy` with it), an apply that dies
 * half-way leaves a staged deployment that is discarded, never booted, and a command killed between deploying a new
 * staged deployment and removing the old one leaves nothing a later command cannot handle. A crash is played here by
 * dropping the host object in the middle of an apply (the process-level kill -9 test is apps/keelson/test/os-kill.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RpmOstree, SysrootRpmOstree } from '../../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'ostree-crash-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
const IMG = (d: string) => `quay.io/ocp/os@sha256:${d.repeat(64)}`;
let n = 0;
async function node(): Promise<{ path: string; host: SysrootRpmOstree }> {
  const path = join(root, `n${n++}`);
  return {
    path,
    host: await SysrootRpmOstree.create({ path, osImageURL: IMG('a'), kargs: ['rw', 'nosmt'], osname: 'rhcos' }),
  };
}

describe('sysroot backend crash safety', () => {
  it('keeps the rpm-ostree metadata in the deployment origin (no separate file to lose)', async () => {
    const { path, host } = await node();
    const driver = new RpmOstree({ runner: host });
    await driver.rebaseLayered(IMG('b'));
    await driver.update(['--install', 'usbguard']);
    const [staged] = await host.sysroot.deployments();
    expect(staged?.originText).toContain(`container-image-reference=ostree-unverified-registry:${IMG('b')}`);
    expect(staged?.originText).toContain('requested=usbguard;');
    const state = JSON.parse(readFileSync(join(path, 'keelson-host.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(state).sort()).toEqual(['booted', 'osname']);
    // a reopened host reads everything back from ostree
    const st = await new RpmOstree({ runner: SysrootRpmOstree.open(path) }).staged();
    expect(st?.requestedPackages).toEqual(['usbguard']);
  });

  it('an apply that dies half-way: its staged deployment is discarded by the next command, reboot stays on the old one', async () => {
    const { path, host } = await node();
    const before = await new RpmOstree({ runner: host }).booted();
    host.beginApply();
    const driver = new RpmOstree({ runner: host });
    await driver.rebaseLayered(IMG('b'));
    // ... the process is killed here: no kargs change, no finishApply
    const next = SysrootRpmOstree.open(path);
    const done = await next.recover();
    expect(done).toEqual([expect.stringMatching(/discarded the incomplete staged deployment of an interrupted apply/)]);
    expect(await next.reboot()).toBe(`${before?.checksum ?? ''}.${before?.serial ?? 0}`);
    const s = await new RpmOstree({ runner: next }).status();
    expect(s.deployments.filter((d) => d.staged)).toEqual([]);
    expect(s.deployments.find((d) => d.booted)?.containerImageReference).toBe(`ostree-unverified-registry:${IMG('a')}`);
  });

  it('a finished apply is booted whole', async () => {
    const { path, host } = await node();
    host.beginApply();
    const driver = new RpmOstree({ runner: host });
    await driver.rebaseLayered(IMG('b'));
    await host.run('rpm-ostree', ['kargs', '--delete=nosmt', '--append=hugepages=8']);
    host.finishApply();
    const next = SysrootRpmOstree.open(path);
    expect(await next.recover()).toEqual([]);
    await next.reboot();
    expect((await next.run('rpm-ostree', ['kargs'])).stdout.trim()).toBe('rw hugepages=8');
  });

  it('a command killed between deploying a new staged deployment and removing the old: the newest is kept', async () => {
    const { path, host } = await node();
    const driver = new RpmOstree({ runner: host });
    await driver.rebaseLayered(IMG('b'));
    // play the crash: deploy a second pending deployment by hand, as #stage does before it undeploys the first
    const origin = join(root, 'origin');
    writeFileSync(
      origin,
      `[origin]\ncontainer-image-reference=ostree-unverified-registry:${IMG('c')}\n\n[keelson]\nbase-checksum=${(await host.sysroot.deployments())[0]?.checksum ?? ''}\n`,
    );
    const [first] = await host.sysroot.deployments();
    await host.sysroot.deploy(first?.checksum ?? '', { retain: true, kargsExact: ['rw'], originFile: origin });
    expect((await host.sysroot.deployments()).length).toBe(3);
    const next = SysrootRpmOstree.open(path);
    expect(await next.recover()).toEqual([expect.stringMatching(/superseded staged deployment/)]);
    const st = await new RpmOstree({ runner: next }).staged();
    expect(st?.containerImageReference).toBe(`ostree-unverified-registry:${IMG('c')}`);
  });

  it('a deployment without a keelson origin is named, not a crash', async () => {
    const { path, host } = await node();
    const [d] = await host.sysroot.deployments();
    const origin = join(root, 'plain-origin');
    writeFileSync(origin, '[origin]\nrefspec=other:ref\n');
    await host.sysroot.deploy(d?.checksum ?? '', { retain: true, kargsExact: ['rw'], originFile: origin });
    const r = await SysrootRpmOstree.open(path).run('rpm-ostree', ['status', '--json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/has no rpm-ostree origin/);
  });

  it('the host state file is replaced atomically (no temp file left)', async () => {
    const { path, host } = await node();
    host.beginApply();
    host.finishApply();
    expect(() => readFileSync(join(path, 'keelson-host.json.tmp'))).toThrow();
  });
});
