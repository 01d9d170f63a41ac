/**
 * The daemon reaches its host only through the root it is given (`--root-mount`), as from its DaemonSet pod with
 * the host at /rootfs. The host root is a real ostree deployment: a tree committed and deployed with Debian's
 * `ostree` (as @keelson/ostree's sysroot tests do) holding dash, the real `usermod` with its libraries, and
 * RECORDING STAND-INS for what cannot exist here — `systemctl`, `rpm-ostree`, `systemd-run`, `update-ca-trust`
 * and `rpm` (shell scripts inside the root that append their argv to /var/log/keelson-standins.log there; the
 * rpm-ostree one answers `status --json` / `kargs` from files in the root). The built CLI runs under `strace -f`:
 * the test asserts that every command was exec'd by a process that had chrooted into the root, and that no process
 * outside the chroot created, wrote, renamed, removed or chmod'ed anything outside the root.
 * Flow: `start --once-from A --skip-reboot` (no cluster), then `start` against the API server: the node goes Done
 * on A, then to B (files, unit enablement, password via the real usermod, kernel argument via rpm-ostree, reboot
 * via systemd-run); the test "reboots" the root (new boot id, staged kargs) and restarts the daemon, which
 * validates B and reports Done. `/metrics` shows the upstream `mcd_*` series.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ANNOTATIONS } from '@keelson/api';
import { OstreeSysroot } from '@keelson/ostree';
import { Nodes } from '../src/daemon/cluster.js';
import {
  DrainResponder,
  annotation,
  createMc,
  machineConfig,
  setDesired,
  startEnv,
  until,
  untilDone,
  type McParts,
  type TestEnv,
} from './daemon-helpers.js';
import { copyWithLibs } from './helpers/host-tree.js';

const BIN = fileURLToPath(new URL('../dist/bin/machine-config-daemon.js', import.meta.url));
const IMG = 'quay.io/test/rhcos@sha256:' + '1'.repeat(64);
const NODE = 'chroot-node';
const A: McParts = {
  osImageURL: IMG,
  files: { '/etc/foo': 'foo-1\n', '/etc/old-only': 'old\n' },
  units: [{ name: 'hello.service', contents: '[Service]\nExecStart=/bin/true\n', enabled: true }],
  sshKeys: ['ssh-ed25519 AAAA key1'],
};
const B: McParts = {
  osImageURL: IMG,
  kernelArguments: ['nosmt'],
  files: { '/etc/foo': 'foo-2\n', '/etc/new/file.conf': 'new\n' },
  units: [
    { name: 'hello.service', contents: '[Service]\nExecStart=/bin/false\n', enabled: true },
    { name: 'other.service', contents: '[Service]\nExecStart=/bin/true\n', enabled: true },
  ],
  sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'],
  passwordHash: '$6$salt$hashhashhash',
};

const hasTool = (t: string): boolean => spawnSync(t, ['--version'], { stdio: 'ignore' }).status === 0;

/** The standard header of every stand-in: record argv inside the root. */
const RECORD = '#!/bin/sh\nprintf "%s\\n" "$(basename "$0") $*" >> /var/log/keelson-standins.log\n';
/** dash has no `cat`: print a file with builtins only. */
const PRINT = 'while IFS= read -r l || [ -n "$l" ]; do printf "%s\\n" "$l"; done <';
const STANDINS: Record<string, string> = {
  // STAND-IN systemctl: records; `is-enabled` answers from the recorded enable/disable lines
  'usr/bin/systemctl': `${RECORD}exit 0\n`,
  'usr/bin/systemd-run': `${RECORD}exit 0\n`,
  'usr/bin/update-ca-trust': `${RECORD}exit 0\n`,
  'usr/bin/rpm': `${RECORD}exit 1\n`,
  // STAND-IN rpm-ostree: status and kargs from /var/lib/standin (written by the test from the real deployment);
  // `kargs --append=X` stages X for the next "boot"
  'usr/bin/rpm-ostree': `${RECORD}case "$1" in
status) ${PRINT} /var/lib/standin/status.json ;;
kargs) if [ $# -eq 1 ]; then ${PRINT} /var/lib/standin/kargs; else
  k=""; while IFS= read -r l || [ -n "$l" ]; do k="$l"; done < /var/lib/standin/kargs
  shift; for a in "$@"; do case "$a" in --append=*) k="$k \${a#--append=}" ;; esac; done
  printf "%s\\n" "$k" > /var/lib/standin/kargs.staged; fi ;;
esac
exit 0
`,
  // `basename` used by RECORD
  'usr/bin/basename': '#!/bin/sh\nprintf "%s\\n" "${1##*/}"\n',
};

function buildTree(tree: string): void {
  copyWithLibs(tree, '/usr/bin/dash', 'usr/bin/sh');
  copyWithLibs(tree, '/usr/sbin/usermod', 'usr/sbin/usermod');
  for (const l of ['bin', 'sbin', 'lib', 'lib64']) symlinkSync(`usr/${l === 'sbin' ? 'sbin' : l}`, join(tree, l));
  for (const [p, text] of Object.entries(STANDINS)) {
    mkdirSync(dirname(join(tree, p)), { recursive: true });
    writeFileSync(join(tree, p), text);
    chmodSync(join(tree, p), 0o755);
  }
  mkdirSync(join(tree, 'usr/lib/modules/6.5.0-1'), { recursive: true });
  writeFileSync(join(tree, 'usr/lib/modules/6.5.0-1/vmlinuz'), 'kernel\n');
  writeFileSync(join(tree, 'usr/lib/modules/6.5.0-1/initramfs.img'), 'initramfs\n');
  writeFileSync(
    join(tree, 'usr/lib/os-release'),
    'NAME="Red Hat Enterprise Linux CoreOS"\nID="rhcos"\nVERSION_ID="9.6"\nRHEL_VERSION="9.6"\n',
  );
  mkdirSync(join(tree, 'usr/etc'), { recursive: true });
  writeFileSync(
    join(tree, 'usr/etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\ncore:x:1000:1000:CoreOS Admin:/var/home/core:/bin/sh\n',
  );
  writeFileSync(join(tree, 'usr/etc/group'), 'root:x:0:\ncore:x:1000:\n');
  writeFileSync(join(tree, 'usr/etc/shadow'), 'root:*:19000:0:99999:7:::\ncore:*:19000:0:99999:7:::\n');
  writeFileSync(join(tree, 'usr/etc/gshadow'), 'root:*::\ncore:!::\n');
}

interface Traced {
  readonly child: ChildProcess;
  readonly exit: Promise<number | null>;
  readonly lines: Array<Record<string, unknown>>;
}

/** Syscalls that change the filesystem (plus process tracking and chroot). */
const TRACE =
  'trace=execve,chroot,clone,clone3,fork,vfork,openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,symlink,symlinkat,link,linkat,chmod,fchmodat,chown,fchownat,lchown,truncate';
const MUTATING =
  /^(creat|mkdir|mkdirat|rename|renameat|renameat2|unlink|unlinkat|rmdir|symlink|symlinkat|link|linkat|chmod|fchmodat|chown|fchownat|lchown|truncate)$/;

interface TraceReport {
  /** Writes by processes outside the chroot that are not under the root. */
  outside: string[];
  /** Commands exec'd outside the chroot other than node and chroot itself. */
  outsideExec: string[];
  /** Commands exec'd inside the chroot. */
  insideExec: string[];
  /** Writes seen under the root by the daemon itself (proves the parser sees the daemon's writes). */
  underRoot: number;
}

/** Reads an strace -f log: which pids chrooted (and their children), what they wrote and exec'd. */
interface Syscall {
  readonly pid: number;
  readonly call: string;
  /** Arguments and result (an interrupted call's <unfinished ...> and resumed halves joined). */
  readonly rest: string;
  readonly ret: string | undefined;
}

/** The syscalls of an strace -f log, in order. */
function parseTrace(traceFile: string): Syscall[] {
  const out: Syscall[] = [];
  const pending = new Map<number, string>();
  for (const line of readFileSync(traceFile, 'utf8').split('\n')) {
    const m = /^(\d+)\s+(?:<\.\.\. )?(\w+)(?: resumed>|\()(.*)$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    if ((m[3] ?? '').endsWith('<unfinished ...>')) {
      pending.set(pid, m[3] ?? '');
      continue;
    }
    const rest = line.includes(' resumed>') ? `${pending.get(pid) ?? ''}${m[3] ?? ''}` : (m[3] ?? '');
    pending.delete(pid);
    out.push({ pid, call: m[2] ?? '', rest, ret: /\)\s+=\s+(-?\d+)/.exec(rest)?.[1] });
  }
  return out;
}

/**
 * Which syscalls ran inside the chroot: those of a pid after its successful chroot(), and all of its descendants'
 * (forked after the chroot; strace -f may print a child's first calls before its parent's clone result, so the
 * process tree is built in a first pass).
 */
function insideChroot(calls: readonly Syscall[]): (c: Syscall, index: number) => boolean {
  const parent = new Map<number, number>();
  const chrootAt = new Map<number, number>();
  calls.forEach((c, i) => {
    if (/^(clone|clone3|fork|vfork)$/.test(c.call) && c.ret !== undefined && Number(c.ret) > 0)
      parent.set(Number(c.ret), c.pid);
    if (c.call === 'chroot' && c.ret === '0' && !chrootAt.has(c.pid)) chrootAt.set(c.pid, i);
  });
  const descendsFromChroot = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined; p = parent.get(p)) if (chrootAt.has(p)) return true;
    return false;
  };
  return (c, i) => ((chrootAt.get(c.pid) ?? Number.POSITIVE_INFINITY) < i ? true : descendsFromChroot(c.pid));
}

/** Reads an strace -f log: what processes outside the chroot wrote and exec'd, what ran inside. */
function analyse(traceFile: string, root: string): TraceReport {
  const report: TraceReport = { outside: [], outsideExec: [], insideExec: [], underRoot: 0 };
  const calls = parseTrace(traceFile);
  const inside = insideChroot(calls);
  calls.forEach((c, i) => {
    const paths = [...c.rest.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => x[1] ?? '');
    if (c.call === 'execve' && c.ret === '0') {
      const exe = paths[0] ?? '';
      if (inside(c, i)) report.insideExec.push(exe);
      else if (!/\/(node|chroot|strace)$/.test(exe)) report.outsideExec.push(exe);
      return;
    }
    if (inside(c, i)) return;
    const writes =
      MUTATING.test(c.call) || (/^(openat|open)$/.test(c.call) && /O_(WRONLY|RDWR|CREAT|TRUNC)/.test(c.rest));
    if (!writes) return;
    // rename/link touch both paths; a symlink's first argument is only the text the link holds (rpm-ostree's
    // /run/ostree/auth.json names the host path of the pull secret, resolved on the host): only the link is written
    const written = c.call.startsWith('symlink')
      ? paths.slice(1, 2)
      : paths.slice(0, c.call.startsWith('rename') || c.call.startsWith('link') ? 2 : 1);
    for (const p of written) {
      if (p.startsWith(`${root}/`) || p === root) report.underRoot++;
      else if (p !== '/dev/null' && p !== '/dev/tty') report.outside.push(`${c.call} ${p}`);
    }
  });
  return report;
}

describe.skipIf(!hasTool('ostree') || !hasTool('strace') || process.getuid?.() !== 0)(
  'daemon in a real ostree root through chroot (strace-checked)',
  () => {
    let env: TestEnv;
    let drains: DrainResponder;
    let kubeconfig: string;
    let root: string;
    const children = new Set<ChildProcess>();

    const traced = (name: string, args: string[], extraEnv: Record<string, string> = {}): Traced => {
      const child = spawn(
        'strace',
        ['-f', '-qq', '-s', '4096', '-e', TRACE, '-o', join(env.dir, `${name}.trace`), process.execPath, BIN, ...args],
        {
          env: { ...process.env, NODE_NAME: NODE, MCD_KILL_AT: '', ...extraEnv },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      children.add(child);
      const lines: Array<Record<string, unknown>> = [];
      let buf = '';
      child.stderr?.on('data', (d: Buffer) => {
        buf += d.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const l = buf.slice(0, i);
          buf = buf.slice(i + 1);
          try {
            lines.push(JSON.parse(l) as Record<string, unknown>);
          } catch {
            lines.push({ raw: l });
          }
        }
      });
      const exit = new Promise<number | null>((r) =>
        child.on('exit', (code, signal) => {
          children.delete(child);
          // strace re-raises the signal that killed the daemon
          r(code ?? (signal === 'SIGKILL' ? 137 : 128));
        }),
      );
      return { child, exit, lines };
    };

    /** SIGTERM to the daemon itself (strace would only detach): its pid is the first one of the trace. */
    const stop = async (name: string, t: Traced): Promise<void> => {
      const pid = Number(/^(\d+)/.exec(readFileSync(join(env.dir, `${name}.trace`), 'utf8'))?.[1]);
      process.kill(pid, 'SIGTERM');
      expect(await t.exit).toBe(0);
    };
    const standinLog = (): string[] =>
      readFileSync(join(root, 'var/log/keelson-standins.log'), 'utf8').trim().split('\n');
    const expectConfined = (name: string): TraceReport => {
      const r = analyse(join(env.dir, `${name}.trace`), root);
      expect(r.outside, `${name}: writes outside the root`).toEqual([]);
      expect(r.outsideExec, `${name}: commands run outside the root`).toEqual([]);
      expect(r.underRoot, `${name}: the daemon's own writes under the root were seen`).toBeGreaterThan(0);
      return r;
    };

    beforeAll(async () => {
      env = await startEnv();
      kubeconfig = await env.sandbox.writeKubeconfig(join(env.dir, 'kubeconfig'));
      drains = await new DrainResponder(env.client).start();
      // the host: a real ostree commit of the tree, deployed with `ostree admin deploy`
      const tree = join(env.dir, 'tree');
      buildTree(tree);
      const sysroot = await new OstreeSysroot({ path: join(env.dir, 'sysroot'), osname: 'rhcos' }).init();
      const checksum = await sysroot.commit(tree, { branch: 'rhcos/test', version: '9.6.1' });
      const deployment = await sysroot.deploy(checksum, { kargsExact: ['rw', 'root=LABEL=root'] });
      root = deployment.path;
      for (const d of [
        'var/log',
        'var/lib/standin',
        'proc/sys/kernel/random',
        'proc/sys/crypto',
        'run',
        'var/home/core',
      ])
        mkdirSync(join(root, d), { recursive: true });
      const status = {
        deployments: [
          {
            id: `rhcos-${checksum}.0`,
            osname: 'rhcos',
            serial: 0,
            checksum,
            booted: true,
            staged: false,
            pinned: false,
            'container-image-reference': `ostree-unverified-registry:${IMG}`,
            'requested-packages': [],
            packages: [],
            'base-removals': [],
            'requested-base-removals': [],
          },
        ],
      };
      writeFileSync(join(root, 'var/lib/standin/status.json'), JSON.stringify(status));
      writeFileSync(join(root, 'var/lib/standin/kargs'), 'rw root=LABEL=root\n');
      writeFileSync(join(root, 'proc/sys/kernel/random/boot_id'), 'boot-1\n');
      writeFileSync(join(root, 'proc/sys/crypto/fips_enabled'), '0\n');
      writeFileSync(join(root, 'var/log/keelson-standins.log'), '');
      await createMc(env.client, machineConfig('rendered-worker-a', A));
      await createMc(env.client, machineConfig('rendered-worker-b', B));
    }, 120_000);

    afterAll(async () => {
      for (const c of children) c.kill('SIGKILL');
      await drains?.stop();
      await env?.stop();
    });

    it('--once-from applies a config without a cluster, every command inside the root', async () => {
      const file = join(env.dir, 'a.json');
      writeFileSync(file, JSON.stringify(machineConfig('rendered-worker-a', A)));
      const p = traced('once-from', ['start', '--once-from', file, '--root-mount', root, '--skip-reboot']);
      expect(await p.exit, JSON.stringify(p.lines.slice(-5))).toBe(0);
      expect(readFileSync(join(root, 'etc/foo'), 'utf8')).toBe('foo-1\n');
      expect(
        JSON.parse(readFileSync(join(root, 'etc/machine-config-daemon/currentconfig'), 'utf8')).metadata.name,
      ).toBe('rendered-worker-a');
      expect(p.lines.some((l) => l['msg'] === 'skipping reboot (--skip-reboot)')).toBe(true);
      expect(standinLog()).toContain('systemctl enable hello.service');
      const r = expectConfined('once-from');
      expect(r.insideExec).toEqual(expect.arrayContaining(['/usr/bin/systemctl', '/usr/bin/rpm-ostree']));
      expect(standinLog().some((l) => l.startsWith('systemd-run'))).toBe(false);
    }, 60_000);

    it('updates the node A → B through chroot: real usermod in the root, stand-ins recorded, reboot, Done; metrics as upstream', async () => {
      await env.client.resource(Nodes).create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: NODE,
          labels: { 'node-role.kubernetes.io/worker': '' },
          annotations: {
            [NODE_ANNOTATIONS.currentConfig]: 'rendered-worker-a',
            [NODE_ANNOTATIONS.desiredConfig]: 'rendered-worker-a',
            [NODE_ANNOTATIONS.state]: 'Done',
          },
        },
        spec: {},
      });
      const args = [
        'start',
        '--root-mount',
        root,
        '--kubeconfig',
        kubeconfig,
        '--metrics-listen-address',
        '127.0.0.1:0',
        // the DaemonSet passes --v=2
        '--v=2',
      ];
      let d = traced('daemon-1', args);
      const d1 = d;
      await untilDone(env.client, NODE, 'rendered-worker-a', 30_000).catch((e: unknown) => {
        throw new Error(
          `${(e as Error).message}\n${d1.lines
            .slice(-10)
            .map((l) => JSON.stringify(l))
            .join('\n')}`,
        );
      });
      await setDesired(env.client, NODE, 'rendered-worker-b');
      await until(
        () => standinLog().some((l) => l.startsWith('systemd-run --unit machine-config-daemon-reboot')),
        60_000,
        'reboot requested through systemd-run in the root',
      );
      // written through the root: files, the password by the real usermod, the kernel argument staged by rpm-ostree
      expect(readFileSync(join(root, 'etc/foo'), 'utf8')).toBe('foo-2\n');
      expect(readFileSync(join(root, 'etc/new/file.conf'), 'utf8')).toBe('new\n');
      expect(readFileSync(join(root, 'etc/shadow'), 'utf8')).toContain('core:$6$salt$hashhashhash:');
      expect(readFileSync(join(root, 'var/lib/standin/kargs.staged'), 'utf8').trim()).toBe('rw root=LABEL=root nosmt');
      expect(standinLog()).toEqual(
        expect.arrayContaining(['systemctl enable hello.service other.service', 'rpm-ostree kargs --append=nosmt']),
      );
      // upstream's OS update events on the Node
      type EventList = { items: Array<{ reason?: string; message?: string; involvedObject?: { name?: string } }> };
      const nodeEvents = async (): Promise<EventList['items']> =>
        (await env.client.request<EventList>('GET', '/api/v1/namespaces/default/events')).items.filter(
          (e) => e.involvedObject?.name === NODE,
        );
      await until(
        async () => (await nodeEvents()).some((e) => e.reason === 'OSUpdateStaged'),
        10_000,
        'OSUpdateStaged event',
      );
      const events = { items: await nodeEvents() };
      expect(events.items.find((e) => e.reason === 'OSUpdateStarted')?.message).toBe('Changing kernel arguments');
      expect(events.items.find((e) => e.reason === 'OSUpdateStaged')?.message).toBe('Changes to OS staged');
      await stop('daemon-1', d);
      const first = expectConfined('daemon-1');
      expect(first.insideExec).toEqual(
        expect.arrayContaining([
          '/usr/sbin/usermod',
          '/usr/bin/systemctl',
          '/usr/bin/rpm-ostree',
          '/usr/bin/systemd-run',
        ]),
      );
      // the "reboot": new boot id, staged kernel arguments booted
      writeFileSync(join(root, 'proc/sys/kernel/random/boot_id'), 'boot-2\n');
      writeFileSync(join(root, 'var/lib/standin/kargs'), readFileSync(join(root, 'var/lib/standin/kargs.staged')));
      d = traced('daemon-2', args);
      const d2 = d;
      await untilDone(env.client, NODE, 'rendered-worker-b', 60_000).catch((e: unknown) => {
        throw new Error(
          `${(e as Error).message}\n${d2.lines
            .slice(-10)
            .map((l) => JSON.stringify(l))
            .join('\n')}`,
        );
      });
      expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.reason)).toBe('');
      const started = await (async () => {
        await until(() => d.lines.some((l) => l['msg'] === 'daemon started'), 10_000, 'daemon started log line');
        return d.lines.find((l) => l['msg'] === 'daemon started') ?? {};
      })();
      expect(started['hostExec']).toBe('chroot');
      const url = String(started['metricsUrl']);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await until(
        async () => (await (await fetch(`${url}/metrics`)).text()).includes('mcd_state{state="Done",reason=""} 1'),
        10_000,
        'mcd_state Done',
      );
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('mcd_host_os_and_version{os="RHCOS",version="9.6"} 1');
      expect(metrics).toContain('mcd_update_state{config="rendered-worker-b",err=""} 1');
      expect(metrics).toContain('mcd_reboots_failed_total 0');
      expect(metrics).toContain('mcd_pivot_errors_total 0');
      await stop('daemon-2', d);
      expectConfined('daemon-2');
    }, 240_000);
    it.each(['after-journal-written', 'file-temp-written@2', 'after-files-written', 'before-reboot'])(
      'killed (SIGKILL) at %s inside the chroot path, restarted: converges, still confined',
      async (point) => {
        const tag = point.replace(/[^a-z0-9]/g, '-');
        const name = `rendered-worker-k-${tag}`;
        const parts: McParts = {
          ...B,
          files: { ...B.files, '/etc/foo': `foo-${point}\n`, '/etc/kill/point': `${point}\n` },
        };
        await createMc(env.client, machineConfig(name, parts));
        const args = [
          'start',
          '--root-mount',
          root,
          '--kubeconfig',
          kubeconfig,
          '--metrics-listen-address',
          '127.0.0.1:0',
        ];
        const reboots = (): number => standinLog().filter((l) => l.startsWith('systemd-run')).length;
        const before = reboots();
        await setDesired(env.client, NODE, name);
        const killed = traced(`kill-${tag}`, args, { MCD_KILL_AT: point });
        const timeout = new Promise<string>((r) => setTimeout(() => r('not killed within 60 s'), 60_000));
        const how = await Promise.race([killed.exit, timeout]);
        if (typeof how === 'string') killed.child.kill('SIGKILL');
        expect(how, `kill point ${point} was not reached`).toBe(137);
        expectConfined(`kill-${tag}`);
        // restarted: finishes the update (or redoes the reboot that did not happen)
        let d = traced(`resume-${tag}`, args);
        await until(() => reboots() > before, 60_000, 'reboot requested after the restart');
        await stop(`resume-${tag}`, d);
        expectConfined(`resume-${tag}`);
        expect(readFileSync(join(root, 'etc/foo'), 'utf8')).toBe(`foo-${point}\n`);
        expect(readdirSync(join(root, 'etc')).filter((f) => f.startsWith('.foo'))).toEqual([]);
        writeFileSync(join(root, 'proc/sys/kernel/random/boot_id'), `boot-${tag}\n`);
        d = traced(`boot-${tag}`, args);
        await untilDone(env.client, NODE, name, 60_000);
        await stop(`boot-${tag}`, d);
        expectConfined(`boot-${tag}`);
        expect(existsSync(join(root, 'etc/machine-config-daemon/update-journal.json'))).toBe(false);
      },
      180_000,
    );
  },
);
