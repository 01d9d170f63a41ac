/**
 * Crash safety: the built `machine-config-daemon start --virtual-nodes 1` runs as a real child process; with
 * MCD_KILL_AT=<step> it SIGKILLs itself at that step of an update, then a fresh process is started on the same
 * root. For every kill point the node must converge to the desired config: Done, every file with the new bytes,
 * no temp file left behind, the distribution original still backed up, stale files gone, the OS rebased and the
 * kernel arguments applied. The parent plays the controller (sets desiredConfig) and the drain controller (test
 * double in daemon-helpers.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KILL_POINTS } from '../src/daemon/crash.js';
import { NODE_ANNOTATIONS } from '@keelson/api';
import {
  DrainResponder,
  annotation,
  createMc,
  createPool,
  machineConfig,
  setDesired,
  setPollInterval,
  startEnv,
  until,
  untilDone,
  type McParts,
  type TestEnv,
} from './daemon-helpers.js';

const BIN = fileURLToPath(new URL('../dist/bin/machine-config-daemon.js', import.meta.url));
const IMG1 = 'quay.io/test/rhcos@sha256:' + '1'.repeat(64);
const IMG2 = 'quay.io/test/rhcos@sha256:' + '2'.repeat(64);

const A: McParts = {
  osImageURL: IMG1,
  files: { '/etc/foo': 'foo-1\n', '/etc/old-only': 'old\n' },
  units: [{ name: 'hello.service', contents: '[Service]\nExecStart=/bin/true\n', enabled: true }],
  sshKeys: ['ssh-ed25519 AAAA key1'],
};
const B: McParts = {
  osImageURL: IMG2,
  kernelArguments: ['nosmt', 'mitigations=auto'],
  files: {
    '/etc/foo': 'foo-2\n',
    '/etc/chrony.conf': 'server time.example.com iburst\n',
    '/etc/new/file.conf': 'new\n',
  },
  units: [
    {
      name: 'hello.service',
      contents: '[Service]\nExecStart=/bin/false\n',
      enabled: true,
      dropins: [{ name: '10-x.conf', contents: '[Service]\nEnvironment=X=1\n' }],
    },
    { name: 'other.service', contents: '[Service]\nExecStart=/bin/true\n', enabled: false },
  ],
  sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'],
  passwordHash: '$6$salt$hash',
};
// reboot-less: only policy.json (Reload crio.service) and SSH keys (None)
const C: McParts = {
  ...A,
  files: { ...A.files, '/etc/containers/policy.json': '{"default":[]}\n' },
  sshKeys: ['ssh-ed25519 CCCC key3'],
};

/** Kill points: every step of the list, plus later occurrences of the per-file steps. */
const CASES: string[] = [
  ...KILL_POINTS,
  'file-temp-written@3',
  'file-temp-written@5',
  'after-file-renamed@2',
  'before-file-write@3',
];

function listAll(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    out.push(p);
    if (e.isDirectory()) out.push(...listAll(p));
  }
  return out;
}

describe('daemon crash safety (SIGKILL at every step, real child processes)', () => {
  let env: TestEnv;
  let drains: DrainResponder;
  let kubeconfig: string;
  const children = new Set<ChildProcess>();

  /** Runs the daemon CLI for nodes kp-<first> … kp-<first+count-1>. */
  const run = (
    first: number,
    count: number,
    killAt?: string,
  ): { child: ChildProcess; exit: Promise<NodeJS.Signals | number | null>; stderr: () => string } => {
    const args = [
      BIN,
      'start',
      '--virtual-nodes',
      String(count),
      '--first-index',
      String(first),
      '--kubeconfig',
      kubeconfig,
      '--pool',
      'worker',
      '--virtual-root',
      join(env.dir, 'roots'),
      '--name-prefix',
      'kp-',
    ];
    const child = spawn(process.execPath, args, {
      env: { ...process.env, KEELSON_LOG_LEVEL: 'warn', ...(killAt ? { MCD_KILL_AT: killAt } : { MCD_KILL_AT: '' }) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.add(child);
    let err = '';
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const exit = new Promise<NodeJS.Signals | number | null>((resolve) => {
      child.on('exit', (code, signal) => {
        children.delete(child);
        resolve(signal ?? code);
      });
    });
    return { child, exit, stderr: () => err };
  };

  beforeAll(async () => {
    if (!existsSync(BIN))
      throw new Error(
        `${BIN} is missing: build first (pnpm turbo run build --filter=@keelson/machine-config-operator)`,
      );
    setPollInterval(200);
    env = await startEnv();
    kubeconfig = await env.sandbox.writeKubeconfig(join(env.dir, 'kubeconfig'));
    drains = await new DrainResponder(env.client).start();
    await createMc(env.client, machineConfig('rendered-worker-a', A));
    await createMc(env.client, machineConfig('rendered-worker-b', B));
    await createMc(env.client, machineConfig('rendered-worker-c', C));
    await createPool(env.client, 'worker', 'rendered-worker-a');
    // provision every node once (one process): first boot from the pool's config, Done on A
    const provision = run(0, CASES.length);
    for (let i = 0; i < CASES.length; i++) {
      await untilDone(env.client, `kp-${i}`, 'rendered-worker-a', 240_000);
      await until(
        async () => (await annotation(env.client, `kp-${i}`, NODE_ANNOTATIONS.reason)) === '',
        120_000,
        'first boot validated',
      );
    }
    provision.child.kill('SIGTERM');
    expect(await provision.exit).toBe(0);
  }, 400_000);

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await drains.stop();
    await env.stop();
  });

  it.concurrent.each(CASES.map((c, i) => [c, i] as const))(
    'killed at %s, restarted, converges',
    async (point, i) => {
      const node = `kp-${i}`;
      const target = point === 'rebootless-after-actions' ? 'rendered-worker-c' : 'rendered-worker-b';
      const root = join(env.dir, 'roots', node);
      const journal = join(root, 'etc/machine-config-daemon/update-journal.json');
      // 2. the update, killed at the step
      await setDesired(env.client, node, target);
      const killed = run(i, 1, point);
      const how = await Promise.race([killed.exit, new Promise((r) => setTimeout(() => r('timeout'), 180_000))]);
      if (how === 'timeout') killed.child.kill('SIGKILL');
      expect(how, `kill point ${point} was not reached; stderr: ${killed.stderr().slice(-2000)}`).toBe('SIGKILL');
      // 3. restart: converges
      const again = run(i, 1);
      try {
        await untilDone(env.client, node, target, 180_000);
        await until(
          async () => (await annotation(env.client, node, NODE_ANNOTATIONS.reason)) === '' && !existsSync(journal),
          120_000,
          'reason cleared and journal removed',
        );
      } catch (e) {
        throw new Error(
          `${(e as Error).message}; state=${await annotation(env.client, node, NODE_ANNOTATIONS.state)} reason=${await annotation(env.client, node, NODE_ANNOTATIONS.reason)}; stderr: ${again.stderr().slice(-3000)}`,
          { cause: e },
        );
      }
      again.child.kill('SIGTERM');
      expect(await again.exit).toBe(0);
      const f = (p: string) => readFileSync(join(root, p), 'utf8');
      expect(listAll(root).filter((p) => p.includes('.mcdtmp'))).toEqual([]);
      if (target === 'rendered-worker-b') {
        expect(f('/etc/foo')).toBe('foo-2\n');
        expect(f('/etc/chrony.conf')).toBe('server time.example.com iburst\n');
        expect(f('/etc/machine-config-daemon/orig/etc/chrony.conf.mcdorig')).toBe('pool 2.rhel.pool.ntp.org iburst\n');
        expect(f('/etc/new/file.conf')).toBe('new\n');
        expect(existsSync(join(root, 'etc/old-only'))).toBe(false);
        expect(f('/etc/systemd/system/hello.service')).toBe('[Service]\nExecStart=/bin/false\n');
        expect(f('/etc/systemd/system/hello.service.d/10-x.conf')).toBe('[Service]\nEnvironment=X=1\n');
        expect(statSync(join(root, 'etc/systemd/system/other.service')).mode & 0o777).toBe(0o644);
        expect(f('/home/core/.ssh/authorized_keys.d/ignition')).toBe('ssh-ed25519 AAAA key1\nssh-ed25519 BBBB key2\n');
        const os = JSON.parse(f('/var/lib/keelson-virtual/rpm-ostree.json')) as {
          deployments: { booted: boolean; id: string; 'container-image-reference'?: string }[];
          kargs: Record<string, string[]>;
        };
        const booted = os.deployments.find((d) => d.booted);
        expect(booted?.['container-image-reference']).toBe(`ostree-unverified-registry:${IMG2}`);
        expect(os.kargs[booted?.id ?? '']).toEqual(expect.arrayContaining(['nosmt', 'mitigations=auto']));
        expect(os.deployments.filter((d) => !d.booted && d.id.includes('staged'))).toEqual([]);
        const systemd = JSON.parse(f('/var/lib/keelson-virtual/systemd.json')) as {
          enabled: Record<string, boolean>;
          passwords: Record<string, string>;
        };
        expect(systemd.enabled).toMatchObject({ 'hello.service': true, 'other.service': false });
        expect(systemd.passwords['core']).toBe('$6$salt$hash');
      } else {
        expect(f('/etc/containers/policy.json')).toBe('{"default":[]}\n');
        expect(f('/home/core/.ssh/authorized_keys.d/ignition')).toBe('ssh-ed25519 CCCC key3\n');
      }
    },
    600_000,
  );
});
