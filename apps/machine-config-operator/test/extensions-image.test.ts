/**
 * Extensions and kernel type changes from `baseOSExtensionsContainerImage`, as upstream's applyLayeredOSChanges:
 * the extensions image pulled and copied out with podman, the `coreos-extensions` repo pointed at it while
 * rpm-ostree runs (`cleanup -p`, kernel-rt swap, `update --install`, staged packages verified), both removed after.
 * The host is a real root entered with `chroot` (the daemon's `ChrootHostExec`) holding dash, the real `mkdir` and
 * RECORDING STAND-INS for what cannot exist here: `podman`, `chcon`, `nice`, `ionice` and `rpm-ostree` (shell scripts
 * in the root appending their argv to /var/log/keelson-standins.log; the rpm-ostree one refuses `update` and
 * `override remove … --install` unless the repo file exists and its baseurl is a directory, as dnf would).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineConfig } from '@keelson/api';
import type { CommandResult, CommandRunner } from '@keelson/ostree';
import { ChrootHostExec } from '../src/daemon/host-exec.js';
import { RpmOstreeOs, hostOsDriver } from '../src/daemon/os.js';
import { HostRoot } from '../src/daemon/root.js';
import {
  EXTENSIONS_REPO_PATH,
  ExtensionsImage,
  extensionsRepoContent,
  needsExtensionsRepo,
} from '../src/daemon/extensions-image.js';
import { copyWithLibs } from './helpers/host-tree.js';

const IMG = 'quay.io/test/rhcos@sha256:' + '1'.repeat(64);
const EXT = 'quay.io/test/rhcos-extensions@sha256:' + '2'.repeat(64);

function mc(name: string, spec: NonNullable<MachineConfig['spec']>): MachineConfig {
  return { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name }, spec };
}
const OLD = mc('rendered-worker-a', { osImageURL: IMG, baseOSExtensionsContainerImage: EXT });
const NEW = mc('rendered-worker-b', {
  osImageURL: IMG,
  baseOSExtensionsContainerImage: EXT,
  extensions: ['usbguard'],
  kernelType: 'realtime',
});

const deployment = (extra: Record<string, unknown>): Record<string, unknown> => ({
  id: 'rhcos-abc.0',
  osname: 'rhcos',
  serial: 0,
  checksum: 'a'.repeat(64),
  'container-image-reference': `ostree-unverified-registry:${IMG}`,
  'requested-packages': [],
  'requested-base-removals': [],
  ...extra,
});
const BOOTED = { deployments: [deployment({ booted: true })] };
const STAGED = {
  deployments: [
    deployment({
      id: 'rhcos-def.0',
      checksum: 'b'.repeat(64),
      staged: true,
      'requested-packages': [
        'kernel-rt-core',
        'kernel-rt-modules',
        'kernel-rt-modules-extra',
        'kernel-rt-kvm',
        'usbguard',
      ],
      'requested-base-removals': [
        'kernel',
        'kernel-core',
        'kernel-modules',
        'kernel-modules-core',
        'kernel-modules-extra',
      ],
    }),
    deployment({ booted: true }),
  ],
};

describe('needsExtensionsRepo (upstream applyLayeredOSChanges)', () => {
  it('only with an extensions image and extensions or a non-default kernel in either config', () => {
    expect(needsExtensionsRepo(OLD, NEW)).toBe(true);
    expect(needsExtensionsRepo(NEW, OLD)).toBe(true); // removing extensions / going back to the default kernel too
    expect(
      needsExtensionsRepo(mc('a', { kernelType: 'realtime' }), mc('b', { baseOSExtensionsContainerImage: EXT })),
    ).toBe(true);
    expect(needsExtensionsRepo(OLD, mc('b', { baseOSExtensionsContainerImage: EXT }))).toBe(false);
    expect(needsExtensionsRepo(OLD, mc('b', { extensions: ['usbguard'] }))).toBe(false);
  });
});

/** An in-process host: podman / nice / chcon answered here, rpm-ostree from status documents. */
class FakeHost implements CommandRunner {
  readonly log: string[] = [];
  pullFailures = 0;
  staged = false;
  constructor(readonly root: HostRoot) {}
  async run(command: string, args: readonly string[]): Promise<CommandResult> {
    await Promise.resolve();
    this.log.push([command, ...args].join(' '));
    const ok = (stdout = ''): CommandResult => ({ exitCode: 0, signal: null, stdout, stderr: '', timedOut: false });
    const fail = (stderr: string): CommandResult => ({
      exitCode: 125,
      signal: null,
      stdout: '',
      stderr,
      timedOut: false,
    });
    if (command === 'nice') return this.run(args[4] ?? '', args.slice(5)); // nice -- ionice -c 3 CMD …
    if (command === 'podman' && args[0] === 'images') return ok('[]\n');
    if (command === 'podman' && args[0] === 'pull') return this.pullFailures-- > 0 ? fail('Error: unauthorized') : ok();
    if (command === 'podman' && args[0] === 'cp') {
      mkdirSync(this.root.resolve(`${args[2] ?? ''}/usr/share/rpm-ostree/extensions`), { recursive: true });
      return ok();
    }
    if (command === 'podman' && args[0] === 'create') return ok('c1d\n');
    if (command === 'rpm-ostree' && args[0] === 'status') return ok(JSON.stringify(this.staged ? STAGED : BOOTED));
    if (command === 'rpm-ostree' && args[0] === 'update') {
      if (!existsSync(this.root.resolve(EXTENSIONS_REPO_PATH))) return fail('error: Packages not found: usbguard');
      this.staged = true;
    }
    return ok();
  }
}

describe('ExtensionsImage with an in-process host', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcd-ext-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('pulls with the kubelet auth file, copies, relabels, writes the repo, runs rpm-ostree, then removes both', async () => {
    const root = new HostRoot(join(dir, 'ok'));
    mkdirSync(root.resolve('/var/lib/kubelet'), { recursive: true });
    writeFileSync(root.resolve('/var/lib/kubelet/config.json'), '{"auths":{}}\n');
    const host = new FakeHost(root);
    const os = new RpmOstreeOs(host, {
      sleep: async () => {},
      extensions: new ExtensionsImage({ root, runner: host, uuid: () => 'u1' }),
    });
    const cmds = await os.applyChanges(OLD, NEW, { force: false });
    const content = host.log.find((l) => l.startsWith('podman cp'))?.split(' ')[3] ?? '';
    expect(content).toMatch(/^\/run\/mco-extensions\/os-extensions-content-\w+$/);
    expect(host.log.slice(0, 8)).toEqual([
      `podman images --format=json --filter reference=${EXT}`,
      `nice -- ionice -c 3 podman pull -q --authfile /var/lib/kubelet/config.json ${EXT}`,
      `podman pull -q --authfile /var/lib/kubelet/config.json ${EXT}`,
      `podman create --net=none --annotation=org.openshift.machineconfigoperator.pivot=true --name ostree-container-pivot-u1 ${EXT}`,
      `nice -- ionice -c 3 podman cp c1d:/ ${content}`,
      `podman cp c1d:/ ${content}`,
      `chcon -R -t var_run_t ${content}`,
      'podman kill ostree-container-pivot-u1',
    ]);
    expect(cmds).toContain(
      'rpm-ostree override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --install kernel-rt-core --install kernel-rt-modules --install kernel-rt-modules-extra --install kernel-rt-kvm',
    );
    expect(cmds).toContain('rpm-ostree update --install usbguard');
    expect(existsSync(root.resolve(EXTENSIONS_REPO_PATH))).toBe(false);
    expect(readdirSync(root.resolve('/run/mco-extensions'))).toEqual([]);
  });

  it('a pull failing 6 times fails the OS change with upstream wording; no rpm-ostree transaction, nothing left', async () => {
    const root = new HostRoot(join(dir, 'fail'));
    const host = new FakeHost(root);
    host.pullFailures = 6;
    const sleeps: number[] = [];
    const os = new RpmOstreeOs(host, {
      extensions: new ExtensionsImage({
        root,
        runner: host,
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
      }),
    });
    await expect(os.applyChanges(OLD, NEW, { force: false })).rejects.toThrow(
      `error pulling extensions image ${EXT}: failed to run command nice (6 tries): [timed out waiting for the condition, running nice -- ionice -c 3 podman pull -q ${EXT} failed: Error: unauthorized: exit status 125]`,
    );
    expect(sleeps).toEqual([5000, 10000, 20000, 40000, 80000]);
    expect(host.log.filter((l) => l.startsWith('rpm-ostree'))).toEqual([]);
    expect(readdirSync(root.resolve('/run/mco-extensions'))).toEqual([]);
    expect(existsSync(root.resolve(EXTENSIONS_REPO_PATH))).toBe(false);
  });

  it('an image already in local storage is not pulled again', async () => {
    const root = new HostRoot(join(dir, 'present'));
    const host = new FakeHost(root);
    const images = host.run.bind(host);
    host.run = async (c, a) =>
      c === 'podman' && a[0] === 'images'
        ? { exitCode: 0, signal: null, stdout: '[{"Id":"x","RepoDigests":[]}]', stderr: '', timedOut: false }
        : images(c, a);
    const cleanup = await new ExtensionsImage({ root, runner: host }).prepare(EXT);
    expect(host.log.some((l) => l.includes('pull'))).toBe(false);
    const repo = readFileSync(root.resolve(EXTENSIONS_REPO_PATH), 'utf8');
    const content = host.log.find((l) => l.startsWith('podman cp'))?.split(' ')[3] ?? '';
    expect(repo).toBe(extensionsRepoContent(content));
    expect(repo).toContain(`baseurl=${content}/usr/share/rpm-ostree/extensions/\n`);
    await cleanup();
    expect(existsSync(root.resolve(EXTENSIONS_REPO_PATH))).toBe(false);
  });
});

const canChroot = process.getuid?.() === 0 && existsSync('/usr/sbin/chroot') && existsSync('/usr/bin/dash');

const RECORD = '#!/bin/sh\nprintf "%s\\n" "$(basename "$0") $*" >> /var/log/keelson-standins.log\n';
const PRINT = 'while IFS= read -r l || [ -n "$l" ]; do printf "%s\\n" "$l"; done <';
/** dnf's view: the repo file must exist and its baseurl must be a directory. */
const NEED_REPO = `r=/etc/yum.repos.d/coreos-extensions.repo
[ -f $r ] || { printf "error: Packages not found\\n" >&2; exit 1; }
while IFS= read -r l; do case "$l" in baseurl=*) u="\${l#baseurl=}" ;; esac; done < $r
[ -d "$u" ] || { printf "error: repo coreos-extensions: %s missing\\n" "$u" >&2; exit 1; }
`;
const STANDINS: Record<string, string> = {
  'usr/bin/basename': '#!/bin/sh\nprintf "%s\\n" "${1##*/}"\n',
  // STAND-IN nice / ionice: record, then run the rest of the line
  'usr/bin/nice': `${RECORD}[ "$1" = "--" ] && shift\nexec "$@"\n`,
  'usr/bin/ionice': `${RECORD}shift 2\nexec "$@"\n`,
  'usr/bin/chcon': `${RECORD}exit 0\n`,
  // STAND-IN podman: no local image; `cp` lays out the extensions repo directory of the image
  'usr/bin/podman': `${RECORD}case "$1" in
images) printf "[]\\n" ;;
create) printf "c0ffee\\n" ;;
cp) mkdir -p "$3/usr/share/rpm-ostree/extensions/repodata" ;;
esac
exit 0
`,
  // STAND-IN rpm-ostree: status from /var/lib/standin; package transactions need the repo, `update` stages
  'usr/bin/rpm-ostree': `${RECORD}case "$1" in
status) ${PRINT} /var/lib/standin/status.json ;;
override) ${NEED_REPO} ;;
update) ${NEED_REPO}${PRINT} /var/lib/standin/staged.json > /var/lib/standin/status.json ;;
esac
exit 0
`,
};

describe.skipIf(!canChroot)('extensions image through the chroot HostExec', () => {
  let tree: string;
  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'mcd-ext-root-'));
    copyWithLibs(tree, '/usr/bin/dash', 'usr/bin/sh');
    copyWithLibs(tree, '/usr/bin/mkdir', 'usr/bin/mkdir');
    for (const l of ['bin', 'sbin', 'lib', 'lib64']) symlinkSync(`usr/${l}`, join(tree, l));
    mkdirSync(join(tree, 'usr/sbin'), { recursive: true });
    for (const [p, text] of Object.entries(STANDINS)) {
      mkdirSync(dirname(join(tree, p)), { recursive: true });
      writeFileSync(join(tree, p), text);
      chmodSync(join(tree, p), 0o755);
    }
    for (const d of ['var/log', 'var/lib/standin', 'etc', 'run']) mkdirSync(join(tree, d), { recursive: true });
    writeFileSync(join(tree, 'var/lib/standin/status.json'), JSON.stringify(BOOTED));
    writeFileSync(join(tree, 'var/lib/standin/staged.json'), JSON.stringify(STAGED));
  });
  afterAll(() => {
    rmSync(tree, { recursive: true, force: true });
  });

  it('kernel-rt swap and extension install find the repo; repo and content removed; the staged packages verified', async () => {
    const os = hostOsDriver(new ChrootHostExec(tree));
    const cmds = await os.applyChanges(OLD, NEW, { force: false });
    const log = readFileSync(join(tree, 'var/log/keelson-standins.log'), 'utf8').trim().split('\n');
    const content = log.find((l) => l.startsWith('podman cp'))?.split(' ')[3] ?? '';
    expect(content).toMatch(/^\/run\/mco-extensions\/os-extensions-content-\w+$/);
    expect(log).toEqual([
      `podman images --format=json --filter reference=${EXT}`,
      `nice -- ionice -c 3 podman pull -q ${EXT}`,
      `ionice -c 3 podman pull -q ${EXT}`,
      `podman pull -q ${EXT}`,
      expect.stringMatching(
        /^podman create --net=none --annotation=org.openshift.machineconfigoperator.pivot=true --name ostree-container-pivot-[0-9a-f-]{36} /,
      ),
      `nice -- ionice -c 3 podman cp c0ffee:/ ${content}`,
      `ionice -c 3 podman cp c0ffee:/ ${content}`,
      `podman cp c0ffee:/ ${content}`,
      `chcon -R -t var_run_t ${content}`,
      expect.stringMatching(/^podman kill ostree-container-pivot-/),
      expect.stringMatching(/^podman rm -f ostree-container-pivot-/),
      'rpm-ostree status --json',
      'rpm-ostree cleanup -p',
      'rpm-ostree override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --install kernel-rt-core --install kernel-rt-modules --install kernel-rt-modules-extra --install kernel-rt-kvm',
      'rpm-ostree update --install usbguard',
      'rpm-ostree status --json',
    ]);
    expect(cmds.at(-2)).toBe('rpm-ostree update --install usbguard');
    expect(existsSync(join(tree, 'etc/yum.repos.d/coreos-extensions.repo'))).toBe(false);
    expect(readdirSync(join(tree, 'run/mco-extensions'))).toEqual([]);
  });

  it('without the repo rpm-ostree refuses: a host whose image copy is empty fails the update and rolls back', async () => {
    writeFileSync(join(tree, 'var/lib/standin/status.json'), JSON.stringify(BOOTED));
    writeFileSync(join(tree, 'var/log/keelson-standins.log'), '');
    // the image content lacks the extensions directory: podman cp copies nothing
    writeFileSync(
      join(tree, 'usr/bin/podman'),
      `${RECORD}case "$1" in images) printf "[]\\n" ;; create) printf "c0ffee\\n" ;; esac\nexit 0\n`,
    );
    const os = hostOsDriver(new ChrootHostExec(tree));
    await expect(os.applyChanges(OLD, NEW, { force: false })).rejects.toThrow(/repo coreos-extensions: .* missing/);
    const log = readFileSync(join(tree, 'var/log/keelson-standins.log'), 'utf8').trim().split('\n');
    expect(log.filter((l) => l.startsWith('rpm-ostree cleanup -p'))).toHaveLength(2); // before, and the roll-back
    expect(existsSync(join(tree, 'etc/yum.repos.d/coreos-extensions.repo'))).toBe(false);
  });
});
