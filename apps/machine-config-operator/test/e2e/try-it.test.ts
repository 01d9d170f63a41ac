/**
 * The README's "Try it" as a new user runs it: an API server with the MCO CRDs, the operator and the controller
 * bins, and one `machine-config-daemon start --virtual-nodes` process per pool (7 workers, 3 masters), all real
 * child processes, started in both orders:
 * - daemons first: each virtual node waits (with a log line saying what for) until its pool exists and has a
 *   rendered config, instead of exiting;
 * - operator and controller first: the daemons join pools that are already rendered.
 * Either way every node ends `state=Done` with `currentConfig` = `desiredConfig` = the pool's rendered config, the
 * `UpdateInProgress` taint gone, and both pools Updated with every machine counted ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MachineConfigPool, Node } from '@keelson/api';
import { ConfigMaps, MachineConfigPools } from '@keelson/kube';
import { Nodes } from '../../src/daemon/cluster.js';
import { startTestCluster, waitFor, type TestCluster } from '../helpers/cluster.js';

const bin = (name: string): string => fileURLToPath(new URL(`../../dist/bin/${name}.js`, import.meta.url));
const NS = 'openshift-machine-config-operator';
const WORKERS = 7;
const MASTERS = 3;

interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly lines: Array<Record<string, unknown>>;
  readonly exit: Promise<number>;
  exited: boolean;
}

let tc: TestCluster;
let dir: string;
let kubeconfig: string;
let procs: Proc[] = [];

function run(name: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [bin(name), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
  const p: Proc = { name, child, lines, exited: false, exit: Promise.resolve(0) };
  (p as { exit: Promise<number> }).exit = new Promise<number>((r) =>
    child.on('exit', (code, sig) => {
      p.exited = true;
      r(code ?? (sig ? 128 : 1));
    }),
  );
  procs.push(p);
  return p;
}

const le = ['--leader-elect=false', '--metrics-listen-address', '127.0.0.1:0'];

function startOperatorAndController(): void {
  run('machine-config-operator', ['start', '--kubeconfig', kubeconfig, '--manage-operands=false', ...le], {
    RELEASE_VERSION: '4.99.1',
  });
  run('machine-config-controller', ['start', '--kubeconfig', kubeconfig, ...le], {
    KEELSON_CONTROLLER_DURATIONS: JSON.stringify({ renderDelayMs: 100, nodeSyncDelayMs: 50, drainDelayMs: 20 }),
  });
}

function startDaemons(roots = join(dir, 'roots')): { worker: Proc; master: Proc } {
  const common = ['--kubeconfig', kubeconfig, '--virtual-root', roots, '--zones', 'a,b,c'];
  return {
    worker: run('machine-config-daemon', ['start', '--virtual-nodes', String(WORKERS), '--pool', 'worker', ...common]),
    master: run('machine-config-daemon', ['start', '--virtual-nodes', String(MASTERS), '--pool', 'master', ...common]),
  };
}

const ann = (n: Node, k: string): string => n.metadata.annotations?.[`machineconfiguration.openshift.io/${k}`] ?? '';

/** The last log lines of every process (printed when a wait times out). */
function lastLines(): string {
  return procs
    .map(
      (p) =>
        `--- ${p.name} ${p.child.spawnargs.slice(2, 6).join(' ')}\n${p.lines
          .slice(-8)
          .map((l) => JSON.stringify(l))
          .join('\n')}`,
    )
    .join('\n');
}

async function expectConverged(): Promise<void> {
  const pools = await waitFor(
    'both pools Updated with every machine ready',
    async () => {
      const ps = await Promise.all(['worker', 'master'].map((p) => tc.client.resource(MachineConfigPools).get(p)));
      const ok = ps.every((p: MachineConfigPool) => {
        const want = p.metadata.name === 'worker' ? WORKERS : MASTERS;
        const updated = p.status?.conditions?.find((c) => c.type === 'Updated')?.status;
        return (
          updated === 'True' &&
          p.status?.readyMachineCount === want &&
          p.status.updatedMachineCount === want &&
          p.status.machineCount === want
        );
      });
      return ok ? ps : undefined;
    },
    60_000,
    250,
  ).catch(async (e: unknown) => {
    const ps = await Promise.all(
      ['worker', 'master'].map((p) =>
        tc.client
          .resource(MachineConfigPools)
          .get(p)
          .catch(() => undefined),
      ),
    );
    const ns = (await tc.client.resource(Nodes).list()).items.map((n) => ({
      n: n.metadata.name,
      a: n.metadata.annotations,
      t: n.spec?.taints,
    }));
    throw new Error(
      `${(e as Error).message}\n${JSON.stringify(ps.map((p) => ({ spec: p?.spec.configuration?.name, status: p?.status })))}\n${JSON.stringify(ns)}\n${lastLines()}`,
    );
  });
  const nodes = (await tc.client.resource(Nodes).list()).items;
  expect(nodes).toHaveLength(WORKERS + MASTERS);
  for (const pool of pools) {
    const rendered = pool.spec?.configuration?.name ?? '';
    expect(rendered).toMatch(/^rendered-/);
    expect(pool.status?.conditions?.find((c) => c.type === 'Updating')?.status).toBe('False');
    for (const n of nodes.filter((x) => (x.metadata.name ?? '').startsWith(`virtual-${pool.metadata.name ?? ''}-`))) {
      expect({
        node: n.metadata.name,
        current: ann(n, 'currentConfig'),
        desired: ann(n, 'desiredConfig'),
        state: ann(n, 'state'),
      }).toEqual({
        node: n.metadata.name,
        current: rendered,
        desired: rendered,
        state: 'Done',
      });
      expect((n.spec?.taints ?? []).map((t) => t.key)).not.toContain('UpdateInProgress');
    }
  }
}

beforeEach(async () => {
  procs = [];
  tc = await startTestCluster();
  dir = mkdtempSync(join(tmpdir(), 'mco-try-it-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, tc.sandbox.kubeconfigYaml(), { mode: 0o600 });
  await tc.client.resource(ConfigMaps).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: NS },
    data: { baseOSContainerImage: 'quay.io/os@sha256:1', baseOSExtensionsContainerImage: '', releaseVersion: '4.99.1' },
  });
}, 30_000);

afterEach(async () => {
  for (const p of procs) if (!p.exited) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exit));
  await tc.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's Try it, 7 workers + 3 masters, processes started by hand", () => {
  it('daemons started before the pools exist wait for them, then every node ends Done and counted', async () => {
    const d = startDaemons();
    // each daemon process says what it waits for and keeps running
    for (const p of [d.worker, d.master]) {
      await waitFor(`${p.name} waiting log line`, () =>
        p.lines.find((l) => l['msg'] === 'waiting for the pool' && String(l['for']).includes('does not exist yet')),
      );
    }
    expect(d.worker.exited || d.master.exited).toBe(false);
    startOperatorAndController();
    await waitFor(
      'a daemon logs the rendered config arriving',
      () =>
        d.worker.lines.find(
          (l) => l['msg'] === 'waiting for the pool' && String(l['for']).includes('has no rendered config yet'),
        ) ?? d.worker.lines.find((l) => l['msg'] === 'virtual nodes running'),
    );
    await expectConverged();
    expect(d.worker.exited || d.master.exited).toBe(false);
  }, 180_000);

  it('daemons started after the pools are rendered join them, end Done and are counted', async () => {
    startOperatorAndController();
    await waitFor(
      'both pools rendered',
      async () => {
        const ps = await Promise.all(['worker', 'master'].map((p) => tc.client.resource(MachineConfigPools).get(p)));
        return ps.every((p) => (p.spec?.configuration?.name ?? '') !== '') ? true : undefined;
      },
      60_000,
      200,
    );
    const d = startDaemons();
    await expectConverged();
    expect(d.worker.exited || d.master.exited).toBe(false);
  }, 180_000);

  it('machines whose roots come from an earlier cluster (the default --virtual-root reused) join the new pools and are counted', async () => {
    const roots = join(dir, 'old-roots');
    startOperatorAndController();
    startDaemons(roots);
    await expectConverged();
    // a new API server (a second "keelson sandbox start"), the same machine roots: provisioned, no Node objects
    for (const p of procs) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exit));
    procs = [];
    await tc.stop();
    tc = await startTestCluster();
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
    const d = startDaemons(roots);
    startOperatorAndController();
    await expectConverged();
    expect(d.worker.exited || d.master.exited).toBe(false);
  }, 240_000);
});
