import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OstreeSysroot,
  RpmOstree,
  parseRpmOstreeStatus,
  statusToJson,
  type CommandResult,
  type SysrootDeployment,
} from '../src/index.js';

/** Real Debian ostree in a temp dir (OSTREE_SYSROOT_DEBUG=mutable-deployments so it can be deleted). */
let T: string;
let sys: OstreeSysroot;

function tree(name: string, version: string, etc: Record<string, string>): string {
  const dir = join(T, name);
  mkdirSync(join(dir, 'usr/lib/modules/6.5.0-1'), { recursive: true });
  mkdirSync(join(dir, 'usr/etc'), { recursive: true });
  writeFileSync(join(dir, 'usr/lib/modules/6.5.0-1/vmlinuz'), 'kernel');
  writeFileSync(join(dir, 'usr/lib/modules/6.5.0-1/initramfs.img'), 'initramfs');
  writeFileSync(join(dir, 'usr/lib/os-release'), `NAME="Keelson Test OS"\nID=keelson\nVERSION_ID=${version}\n`);
  for (const [k, v] of Object.entries(etc)) writeFileSync(join(dir, 'usr/etc', k), v);
  return dir;
}

beforeAll(async () => {
  T = mkdtempSync(join(tmpdir(), 'keelson-sysroot-'));
  sys = new OstreeSysroot({ path: join(T, 'sysroot'), osname: 'fedora-coreos' });
  await sys.init();
}, 60_000);
afterAll(() => {
  rmSync(T, { recursive: true, force: true });
});

describe('OstreeSysroot on real ostree', () => {
  const REF = 'fedora/x86_64/coreos/stable';
  let c1: string;
  let d1: SysrootDeployment;

  it('creates a sysroot and commits a directory as an OS version', async () => {
    expect(sys.exists()).toBe(true);
    c1 = await sys.commit(tree('t1', '40.1', { 'chrony.conf': 'pool a\n', motd: 'v1\n' }), {
      branch: REF,
      version: '40.20240101.3.0',
    });
    expect(c1).toMatch(/^[0-9a-f]{64}$/);
    expect(await sys.revParse(REF)).toBe(c1);
    expect(await sys.commitVersion(REF)).toBe('40.20240101.3.0');
  });

  it('deploys with kernel arguments and lists it', async () => {
    d1 = await sys.deploy(REF, { kargs: ['root=LABEL=root', 'rw', 'mitigations="auto nosmt"'] });
    expect(d1).toMatchObject({
      index: 0,
      checksum: c1,
      serial: 0,
      version: '40.20240101.3.0',
      refspec: REF,
      pinned: false,
      booted: false,
    });
    expect(d1.kargs).toStrictEqual(['root=LABEL=root', 'rw', 'mitigations="auto nosmt"']);
    expect(d1.originText).toContain(`refspec=${REF}`);
    expect(sys.readEtc(d1, 'chrony.conf')).toBe('pool a\n');
  });

  it('3-way /etc merge: local edits survive, untouched defaults follow the new version', async () => {
    sys.writeEtc(d1, 'chrony.conf', 'pool local\n');
    sys.writeEtc(d1, 'added.conf', 'x\n');
    expect(await sys.configDiff()).toStrictEqual({ modified: ['chrony.conf'], added: ['added.conf'], removed: [] });
    const t2 = tree('t2', '40.2', { 'chrony.conf': 'pool b\n', motd: 'v2\n' });
    const c2 = await sys.commit(t2, { branch: REF, version: '40.20240201.3.0' });
    const d2 = await sys.deploy(REF, { kargsAppend: ['quiet'] });
    expect(d2.checksum).toBe(c2);
    expect(d2.kargs).toStrictEqual(['root=LABEL=root', 'rw', 'mitigations="auto nosmt"', 'quiet']);
    expect(sys.readEtc(d2, 'chrony.conf')).toBe('pool local\n');
    expect(sys.readEtc(d2, 'added.conf')).toBe('x\n');
    expect(sys.readEtc(d2, 'motd')).toBe('v2\n');
    const list = await sys.deployments();
    expect(list.map((d) => d.version)).toStrictEqual(['40.20240201.3.0', '40.20240101.3.0']);
  });

  it('retains, pins, undeploys and cleans up', async () => {
    const t3 = tree('t3', '40.3', { 'chrony.conf': 'pool c\n' });

    await sys.commit(t3, { branch: REF, version: '40.20240301.3.0' });
    await sys.deploy(REF, { retain: true });
    let list = await sys.deployments();
    expect(list.map((d) => d.version)).toStrictEqual(['40.20240301.3.0', '40.20240201.3.0', '40.20240101.3.0']);
    await sys.pin(2);
    list = await sys.deployments();
    expect(list[2]?.pinned).toBe(true);
    expect(list[2]?.originText).toContain('pinned=true');
    await sys.undeploy(1);
    list = await sys.deployments();
    expect(list.map((d) => d.version)).toStrictEqual(['40.20240301.3.0', '40.20240101.3.0']);
    expect(list[1]?.pinned).toBe(true);
    // a fourth deploy without --retain keeps the pinned one
    await sys.commit(tree('t4', '40.4', {}), { branch: REF, version: '40.20240401.3.0' });
    await sys.deploy(REF);
    list = await sys.deployments();
    expect(list.map((d) => d.version)).toContain('40.20240101.3.0');
    await sys.pin(
      list.findIndex((d) => d.pinned),
      true,
    );
    await sys.cleanup();
    list = await sys.deployments();
    expect(list.every((d) => existsSync(d.path))).toBe(true);
    const exact = await sys.deploy(REF, { kargsExact: ['rw', 'x=1', 'x=1', 'y="a b"'], retain: true });
    expect(exact.kargs).toStrictEqual(['rw', 'x=1', 'x=1', 'y="a b"']);
    await sys.deploy(REF, { kargsExact: ['rw', 'x=1', 'y=2'], retain: true });
    const edited = await sys.deploy(REF, { kargs: ['x=3'], kargsDelete: ['y=2'], kargsAppend: ['z'], retain: true });
    expect(edited.kargs).toStrictEqual(['rw', 'x=3', 'z']);
    await sys.appendKargsIfMissing(['foo=bar']);
    expect((await sys.deployments()).every((d) => d.kargs.includes('foo=bar'))).toBe(true);
  });

  it('exposes an rpm-ostree-shaped status the parser accepts', async () => {
    const doc = await sys.toStatusJson(0);
    const s = parseRpmOstreeStatus(JSON.stringify(doc));
    expect(statusToJson(s)).toStrictEqual(doc);
    expect(s.deployments[0]?.booted).toBe(true);
    expect(s.deployments[0]?.origin).toBe(REF);
    // the driver accepts it through any runner
    const runner = {
      run: (): Promise<CommandResult> =>
        Promise.resolve({ exitCode: 0, signal: null, stdout: JSON.stringify(doc), stderr: '', timedOut: false }),
    };
    expect((await new RpmOstree({ runner }).booted()).checksum).toBe(s.deployments[0]?.checksum);
  });

  it('reports ostree failures with command line and stderr', async () => {
    const err = await sys.undeploy(99).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'OSTREE_COMMAND_FAILED' });
    expect((err as Error).message).toContain('undeploy 99');
    await expect(sys.deploy('no/such/ref')).rejects.toMatchObject({ code: 'OSTREE_COMMAND_FAILED' });
    await expect(new OstreeSysroot({ path: T, binary: '/nonexistent/ostree' }).cleanup()).rejects.toMatchObject({
      code: 'OSTREE_NOT_FOUND',
    });
    expect(() => new OstreeSysroot({ path: T, osname: '../x' })).toThrow(/osname/);
    expect(() => sys.readEtc({ path: T } as SysrootDeployment, '../../etc/passwd')).toThrow(/\.\./);
  });
});
