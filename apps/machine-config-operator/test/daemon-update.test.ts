/**
 * The daemon's update flow end to end on a virtual node against the embedded API server: first boot from the
 * pool's config, an SSH-key-only change (no drain, no reboot), a reboot-less policy.json change (crio reload), a
 * kernel argument change (drain + reboot), a file edited by hand (Degraded with the upstream message, recovered by
 * fixing the file and by the force file), an OS image change (rebase + reboot) and stale files (originals restored).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ANNOTATIONS, type MachineConfig } from '@keelson/api';
import { Events, MachineConfigs } from '@keelson/kube';
import { startVirtualNodes, type VirtualNodes } from '../src/virtual/harness.js';
import type { DaemonEvent } from '../src/daemon/events.js';
import {
  DrainResponder,
  annotation,
  createMc,
  createPool,
  machineConfig,
  setDesired,
  startEnv,
  until,
  untilDone,
  type McParts,
  type TestEnv,
} from './daemon-helpers.js';

const IMG1 = 'quay.io/test/rhcos@sha256:' + '1'.repeat(64);
const IMG2 = 'quay.io/test/rhcos@sha256:' + '2'.repeat(64);
const NODE = 'worker-0';

describe('daemon update flow on a virtual node', () => {
  let env: TestEnv;
  let drains: DrainResponder;
  let vn: VirtualNodes;
  const events: DaemonEvent[] = [];
  const base: McParts = {
    osImageURL: IMG1,
    files: { '/etc/foo': 'foo-1\n', '/etc/old-only': 'old\n' },
    units: [
      {
        name: 'hello.service',
        contents: '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n',
        enabled: true,
      },
    ],
    sshKeys: ['ssh-ed25519 AAAA key1'],
  };
  const machine = () => {
    const m = vn.machines.get(NODE);
    if (!m) throw new Error('no machine');
    return m;
  };
  const rootFile = (p: string) => join(env.dir, NODE, p);

  beforeAll(async () => {
    env = await startEnv();
    drains = await new DrainResponder(env.client).start();
    await createMc(env.client, machineConfig('rendered-worker-a', base));
    await createPool(env.client, 'worker', 'rendered-worker-a');
    vn = await startVirtualNodes({
      client: env.client,
      nodes: [{ name: NODE, role: 'worker', zone: 'z1' }],
      rootDir: env.dir,
      syncBackoff: { initialMs: 50, maxMs: 400 },
      onEvent: (e) => events.push(e),
      // one node updated a dozen times within seconds: client-go's event spam filter (25 events per node, then one
      // per 5 minutes) would drop the later updates' Events this file reads; this clock makes 5 minutes 3 ms
      timeScale: 100_000,
    });
    await untilDone(env.client, NODE, 'rendered-worker-a');
    // node-annotations.json already says Done; the daemon's own Done after validating the first boot sets reason ""
    await until(
      async () => (await annotation(env.client, NODE, NODE_ANNOTATIONS.reason)) === '',
      20_000,
      'first boot validated',
    );
  }, 60_000);

  afterAll(async () => {
    await vn.stop();
    await drains.stop();
    await env.stop();
  });

  it('first boot: Ignition files written, firstboot rebased the OS and the daemon reported Done', async () => {
    expect(readFileSync(rootFile('/etc/foo'), 'utf8')).toBe('foo-1\n');
    expect(readFileSync(rootFile('/home/core/.ssh/authorized_keys.d/ignition'), 'utf8')).toBe(
      'ssh-ed25519 AAAA key1\n',
    );
    const m = machine();
    expect(m.reboots).toBe(1); // the firstboot reboot into IMG1
    expect(m.os.log.some((l) => l.join(' ').includes(`rebase --experimental ostree-unverified-registry:${IMG1}`))).toBe(
      true,
    );
    expect(existsSync(rootFile('/etc/machine-config-daemon/node-annotation.json.bak'))).toBe(true);
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.firstPivotConfig)).toBe('rendered-worker-a');
  });

  it('an SSH-key-only change completes with no drain and no reboot', async () => {
    await createMc(
      env.client,
      machineConfig('rendered-worker-b', { ...base, sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'] }),
    );
    const reboots = machine().reboots;
    await setDesired(env.client, NODE, 'rendered-worker-b');
    await untilDone(env.client, NODE, 'rendered-worker-b');
    expect(readFileSync(rootFile('/home/core/.ssh/authorized_keys.d/ignition'), 'utf8')).toBe(
      'ssh-ed25519 AAAA key1\nssh-ed25519 BBBB key2\n',
    );
    expect(machine().reboots).toBe(reboots);
    expect(drains.seen(NODE)).not.toContain('drain-rendered-worker-b');
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.reason)).toBe('');
  });

  it('a policy.json change reloads crio without drain or reboot (node disruption policy)', async () => {
    await createMc(
      env.client,
      machineConfig('rendered-worker-c', {
        ...base,
        sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'],
        files: { ...base.files, '/etc/containers/policy.json': '{"default":[{"type":"insecureAcceptAnything"}]}\n' },
      }),
    );
    const reboots = machine().reboots;
    await setDesired(env.client, NODE, 'rendered-worker-c');
    await untilDone(env.client, NODE, 'rendered-worker-c');
    expect(machine().reboots).toBe(reboots);
    expect(machine().host.serviceActions).toContainEqual(['reload', 'crio.service']);
    expect(drains.seen(NODE)).not.toContain('drain-rendered-worker-c');
  });

  it('a kernel argument change drains and reboots; kargs applied with rpm-ostree', async () => {
    base.files = { ...base.files, '/etc/chrony.conf': 'server time.example.com iburst\n' };
    const parts: McParts = {
      ...base,
      sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'],
      kernelArguments: ['nosmt'],
    };
    await createMc(env.client, machineConfig('rendered-worker-d', parts));
    const reboots = machine().reboots;
    await setDesired(env.client, NODE, 'rendered-worker-d');
    await untilDone(env.client, NODE, 'rendered-worker-d');
    expect(machine().reboots).toBe(reboots + 1);
    expect(drains.seen(NODE)).toEqual(
      expect.arrayContaining(['drain-rendered-worker-d', 'uncordon-rendered-worker-d']),
    );
    expect(machine().os.bootedKargs()).toContain('nosmt');
    expect(machine().os.log.map((l) => l.join(' '))).toContain('rpm-ostree kargs --append=nosmt');
    // first write over a distribution file (it has /usr/etc/chrony.conf): the original was backed up
    expect(readFileSync(rootFile('/etc/machine-config-daemon/orig/etc/chrony.conf.mcdorig'), 'utf8')).toBe(
      'pool 2.rhel.pool.ntp.org iburst\n',
    );
    expect(readFileSync(rootFile('/etc/chrony.conf'), 'utf8')).toBe('server time.example.com iburst\n');
    expect(events.some((e) => e.phase === 'rebooting' && e.config === 'rendered-worker-d')).toBe(true);
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.postConfigAction)).toBe('');
  });

  it('config drift monitor: a hand edit while Done degrades the node within seconds (ConfigDriftDetected); fixing it recovers', async () => {
    // nothing else syncs this node while it is Done (no desiredConfig change, no periodic resync): only the drift
    // monitor's file watch can degrade it; the generous wait is a hang detector for a loaded CI machine
    const from = events.length;
    writeFileSync(rootFile('/etc/foo'), 'edited while Done\n');
    await until(
      async () => (await annotation(env.client, NODE, NODE_ANNOTATIONS.state)) === 'Degraded',
      30_000,
      'Degraded by the drift monitor',
    );
    // upstream's drift reason: the validator's text without the "unexpected on-disk state" prefix
    expect(
      events.slice(from).some((e) => e.phase === 'degraded' && e.message === 'content mismatch for file "/etc/foo"'),
    ).toBe(true);
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.reason)).toContain(
      'content mismatch for file "/etc/foo"',
    );
    writeFileSync(rootFile('/etc/foo'), 'foo-1\n');
    await untilDone(env.client, NODE, 'rendered-worker-d', 30_000);
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.reason)).toBe('');
  }, 90_000);

  it('a file edited by hand degrades the node with the upstream message; fixing the file recovers', async () => {
    writeFileSync(rootFile('/etc/foo'), 'edited by an admin\n');
    await createMc(
      env.client,
      machineConfig('rendered-worker-e', {
        ...base,
        sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'],
        kernelArguments: ['nosmt'],
        files: { ...base.files, '/etc/bar': 'bar\n' },
      }),
    );
    await setDesired(env.client, NODE, 'rendered-worker-e');
    // the drift monitor reports the edit first (without the prefix); the update's preflight check then with it
    const want = 'unexpected on-disk state validating against rendered-worker-d: content mismatch for file "/etc/foo"';
    await until(
      async () => (await annotation(env.client, NODE, NODE_ANNOTATIONS.reason)) === want,
      20_000,
      'preflight reason',
    );
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.state)).toBe('Degraded');
    writeFileSync(rootFile('/etc/foo'), 'foo-1\n');
    await untilDone(env.client, NODE, 'rendered-worker-e');
    expect(readFileSync(rootFile('/etc/bar'), 'utf8')).toBe('bar\n');
  });

  it('a wrong mode is reported; the force file skips validation, forces the update and reboots', async () => {
    const { chmodSync } = await import('node:fs');
    chmodSync(rootFile('/etc/foo'), 0o600);
    const parts: McParts = {
      ...base,
      sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'],
      kernelArguments: ['nosmt'],
      files: { ...base.files, '/etc/bar': 'bar-2\n' },
    };
    await createMc(env.client, machineConfig('rendered-worker-f', parts));
    await setDesired(env.client, NODE, 'rendered-worker-f');
    const want =
      'unexpected on-disk state validating against rendered-worker-e: mode mismatch for file: "/etc/foo"; expected: -rw-r--r--/420/0644; received: -rw-------/384/0600';
    await until(
      async () => (await annotation(env.client, NODE, NODE_ANNOTATIONS.reason)) === want,
      20_000,
      'preflight reason',
    );
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.state)).toBe('Degraded');
    const reboots = machine().reboots;
    writeFileSync(rootFile('/run/machine-config-daemon-force'), '');
    await untilDone(env.client, NODE, 'rendered-worker-f');
    expect(machine().reboots).toBe(reboots + 1);
    expect(existsSync(rootFile('/run/machine-config-daemon-force'))).toBe(false);
    expect(readFileSync(rootFile('/etc/bar'), 'utf8')).toBe('bar-2\n');
  });

  it('an OS image change rebases, reboots, removes stale files and restores originals', async () => {
    const files = { '/etc/foo': 'foo-1\n' };
    await createMc(
      env.client,
      machineConfig('rendered-worker-g', {
        ...base,
        osImageURL: IMG2,
        files,
        sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'],
        kernelArguments: ['nosmt'],
      }),
    );
    const reboots = machine().reboots;
    await setDesired(env.client, NODE, 'rendered-worker-g');
    await untilDone(env.client, NODE, 'rendered-worker-g');
    expect(machine().reboots).toBe(reboots + 1);
    const status = machine().os.statusJson() as {
      deployments: { booted: boolean; 'container-image-reference'?: string }[];
    };
    expect(status.deployments.find((d) => d.booted)?.['container-image-reference']).toBe(
      `ostree-unverified-registry:${IMG2}`,
    );
    expect(existsSync(rootFile('/etc/old-only'))).toBe(false);
    expect(existsSync(rootFile('/etc/bar'))).toBe(false);
    // /etc/chrony.conf is a distribution file (it has /usr/etc/chrony.conf): its original came back
    expect(readFileSync(rootFile('/etc/chrony.conf'), 'utf8')).toBe('pool 2.rhel.pool.ntp.org iburst\n');
    expect(existsSync(rootFile('/etc/machine-config-daemon/orig/etc/chrony.conf.mcdorig'))).toBe(false);
  });

  it('an unreconcilable change (new passwd group) sets Unreconcilable with the upstream reason', async () => {
    const mc = machineConfig('rendered-worker-h', {
      ...base,
      osImageURL: IMG2,
      files: { '/etc/foo': 'foo-1\n' },
      sshKeys: ['ssh-ed25519 AAAA key1', 'ssh-ed25519 BBBB key2'],
      kernelArguments: ['nosmt'],
    });
    const config = mc.spec?.config as { passwd: { groups?: { name: string }[] } };
    config.passwd.groups = [{ name: 'admins' }];
    await createMc(env.client, mc);
    await setDesired(env.client, NODE, 'rendered-worker-h');
    await until(
      async () => (await annotation(env.client, NODE, NODE_ANNOTATIONS.state)) === 'Unreconcilable',
      20_000,
      'Unreconcilable',
    );
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.reason)).toBe(
      'can\'t reconcile config rendered-worker-g with rendered-worker-h: configs rendered-worker-g, rendered-worker-h are not reconcilable: new machineconfig "rendered-worker-g" is not reconcilable against "rendered-worker-h": invalid passwd change(s): ignition Passwd Groups section contains changes',
    );
    expect(await annotation(env.client, NODE, NODE_ANNOTATIONS.currentConfig)).toBe('rendered-worker-g');
  });
  it("staying on a realtime kernel: the OS part still runs (cleanup -p only) with upstream's OSUpdateStarted text", async () => {
    const g = await env.client.resource(MachineConfigs).get('rendered-worker-g');
    const variant = (name: string, foo: string): MachineConfig => {
      const mc = machineConfig(name, { ...base, osImageURL: IMG2, files: { '/etc/foo': foo } });
      return { ...mc, spec: { ...g.spec, config: mc.spec?.config ?? null, kernelType: 'realtime' } };
    };
    await createMc(env.client, variant('rendered-worker-rt1', 'rt-1\n'));
    await setDesired(env.client, NODE, 'rendered-worker-rt1');
    await untilDone(env.client, NODE, 'rendered-worker-rt1');
    const os = machine().os;
    expect(os.log.map((a) => a.join(' '))).toContain(
      'rpm-ostree override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --install kernel-rt-core --install kernel-rt-modules --install kernel-rt-modules-extra --install kernel-rt-kvm',
    );
    const from = os.log.length;
    await createMc(env.client, variant('rendered-worker-rt2', 'rt-2\n'));
    await setDesired(env.client, NODE, 'rendered-worker-rt2');
    await untilDone(env.client, NODE, 'rendered-worker-rt2');
    const after = os.log.slice(from).map((a) => a.join(' '));
    expect(after).toContain('rpm-ostree cleanup -p');
    expect(after.filter((l) => l.includes('override'))).toEqual([]);
    const started = (await env.client.resource(Events).list({ namespace: 'default' })).items
      .filter((e) => e.reason === 'OSUpdateStarted')
      .map((e) => e.message);
    expect(started).toContain('Updating to a target config with realtime kernel');
  });
});
