/**
 * The two entry points as real child processes (built dist/bin) against the embedded API server: JSON logs,
 * /healthz and /metrics, the upstream Lease names, graceful SIGTERM (lease released), usage errors.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMaps, Leases } from '@keelson/kube';
import { startTestCluster, waitFor, type TestCluster } from '../helpers/cluster.js';

const bin = (name: string): string => fileURLToPath(new URL(`../../dist/bin/${name}.js`, import.meta.url));
const NS = 'openshift-machine-config-operator';
let tc: TestCluster;
let dir: string;
let kubeconfig: string;

interface Proc {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  exit: Promise<number>;
}

function run(name: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [bin(name), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let buf = '';
  child.stderr?.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        lines.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        lines.push({ raw: l });
      }
    }
  });
  const exit = new Promise<number>((r) =>
    child.on('exit', (code, sig) => {
      r(code ?? (sig ? 128 : 1));
    }),
  );
  return { child, lines, exit };
}

const le = [
  '--leader-elect-lease-duration',
  '2s',
  '--leader-elect-renew-deadline',
  '1500ms',
  '--leader-elect-retry-period',
  '200ms',
  '--metrics-listen-address',
  '127.0.0.1:0',
];

beforeAll(async () => {
  tc = await startTestCluster();
  dir = mkdtempSync(join(tmpdir(), 'mco-proc-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, tc.sandbox.kubeconfigYaml(), { mode: 0o600 });
  await tc.client.resource(ConfigMaps).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: NS },
    data: {
      baseOSContainerImage: 'quay.io/os@sha256:1',
      baseOSExtensionsContainerImage: '',
      releaseVersion: '4.99.1',
    },
  });
}, 30_000);

afterAll(async () => {
  await tc.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('machine-config-controller and machine-config-operator processes', () => {
  it('start, serve health and metrics, hold their Leases, and stop cleanly on SIGTERM', async () => {
    const ctrl = run('machine-config-controller', ['start', '--kubeconfig', kubeconfig, ...le]);
    const op = run('machine-config-operator', ['start', '--kubeconfig', kubeconfig, '--manage-operands=false', ...le], {
      RELEASE_VERSION: '4.99.1',
    });
    try {
      for (const [p, lease] of [
        [ctrl, 'machine-config-controller'],
        [op, 'machine-config'],
      ] as const) {
        const started = await waitFor('started log line', () => p.lines.find((l) => l['msg'] === 'started'));
        expect(typeof started['ts']).toBe('string');
        const url = String(started['healthUrl']);
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
        const metrics = await (await fetch(`${url}/metrics`)).text();
        expect(metrics).toContain('leader_election_master_status');
        const l = await waitFor(`Lease ${lease}`, async () => {
          const x = await tc.client.resource(Leases).get(lease, NS);
          return (x.spec?.holderIdentity ?? '') !== '' ? x : undefined;
        });
        expect(l.spec?.holderIdentity).toBeTruthy();
      }
      // the operator did its job through the controller: ControllerConfig completed and pools rendered
      await waitFor(
        'worker pool rendered',
        async () => {
          const p = await tc.client.request<{ spec: { configuration?: { name?: string } } }>(
            'GET',
            '/apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker',
          );
          return p.spec.configuration?.name || undefined;
          // two processes render the whole template tree first: generous on a loaded CI machine
        },
        90_000,
      );
    } finally {
      ctrl.child.kill('SIGTERM');
      op.child.kill('SIGTERM');
    }
    expect(await ctrl.exit).toBe(0);
    expect(await op.exit).toBe(0);
    expect(ctrl.lines.some((l) => l['msg'] === 'shutting down')).toBe(true);
    const lease = await tc.client.resource(Leases).get('machine-config-controller', NS);
    expect(lease.spec?.holderIdentity ?? '').toBe('');
  }, 180_000);

  it('exits 1 when its Lease is taken away (upstream klog.Fatalf "leaderelection lost")', async () => {
    const ctrl = run('machine-config-controller', [
      'start',
      '--kubeconfig',
      kubeconfig,
      ...le,
      '--resourcelock-namespace',
      'default',
    ]);
    try {
      const leases = tc.client.resource(Leases);
      const held = await waitFor('Lease held', async () => {
        const x = await leases.get('machine-config-controller', 'default').catch(() => undefined);
        return (x?.spec?.holderIdentity ?? '') !== '' ? x : undefined;
      });
      if (held === undefined) throw new Error('no Lease');
      await leases.update({
        ...held,
        spec: { ...held.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600 },
      });
      expect(await ctrl.exit).toBe(1);
      expect(ctrl.lines.some((l) => l['msg'] === 'leaderelection lost')).toBe(true);
      expect((await leases.get('machine-config-controller', 'default')).spec?.holderIdentity).toBe('intruder');
    } finally {
      ctrl.child.kill('SIGKILL');
    }
  }, 60_000);

  it('refuses a leader-election trio client-go would refuse (exit 2, names the flags)', async () => {
    const p = run('machine-config-controller', [
      'start',
      '--kubeconfig',
      kubeconfig,
      '--leader-elect-lease-duration',
      '1s',
      '--leader-elect-renew-deadline',
      '2s',
    ]);
    expect(await p.exit).toBe(2);
    expect(JSON.stringify(p.lines)).toContain(
      '--leader-elect-lease-duration (1s) must be greater than --leader-elect-renew-deadline (2s)',
    );
  }, 30_000);

  it('refuses to start the operator without a release version (exit 2, says what to set)', async () => {
    const p = run(
      'machine-config-operator',
      ['start', '--kubeconfig', kubeconfig, '--leader-elect=false', '--metrics-listen-address', '127.0.0.1:0'],
      { RELEASE_VERSION: '' },
    );
    const code = await p.exit;
    expect(code).toBe(2);
    expect(JSON.stringify(p.lines)).toContain('set RELEASE_VERSION or pass --release-version');
  }, 30_000);

  it('--manage-operands: only true or false; =false with --operands-dir, or no image to deploy them with, is refused', async () => {
    const base = [
      'start',
      '--kubeconfig',
      kubeconfig,
      '--leader-elect=false',
      '--metrics-listen-address',
      '127.0.0.1:0',
    ];
    const env = { RELEASE_VERSION: '4.99.1' };
    const bad = run('machine-config-operator', [...base, '--manage-operands=maybe'], env);
    expect(await bad.exit).not.toBe(0);
    const dirWithout = run('machine-config-operator', [...base, '--manage-operands=false', '--operands-dir', dir], env);
    expect(await dirWithout.exit).toBe(2);
    expect(JSON.stringify(dirWithout.lines)).toContain('--operands-dir: the operator does not deploy its operands');
    // by default the operator deploys its operands, with images.json's machineConfigOperator or the operator image
    const noImage = run('machine-config-operator', base, env);
    expect(await noImage.exit).not.toBe(0);
    expect(JSON.stringify(noImage.lines)).toContain(
      'the operator deploys its operands with the machine-config-operator image',
    );
  }, 30_000);
});
