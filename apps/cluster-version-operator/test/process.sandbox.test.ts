/**
 * The real bin as a child process: SIGKILL in the middle of an update and a restart resume the same update from
 * ClusterVersion status (history[0] Partial) to completion; SIGTERM exits cleanly and releases the Lease.
 * Then SIGKILL at 20 points of updates (the k-th write observed by the API server after desiredUpdate is set): each
 * restarted process completes the same update, re-applies nothing already applied, and keeps run-level order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '@keelson/kube';
import type { ChangeEvent } from '@keelson/kube-sandbox';
import type { OperatorFault, Sandbox } from '@keelson/kube-sandbox';
import {
  COMPONENTS,
  RestartableOperatorSimulator,
  startCluster,
  waitFor,
  writeFixturePayload,
  writeOciLayout,
  writeSignedReleasePair,
  type Signer,
} from './helpers.js';

const BIN = new URL('../dist/bin/cluster-version-operator.js', import.meta.url).pathname;
const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);

interface CV {
  status?: {
    history?: { state: string; version: string }[];
    conditions?: { type: string; status: string; message?: string }[];
  };
}

let sandbox: Sandbox;
let client: KubeClient;
let kubeconfig: string;
let dir: string;

/** The upgrade-sim cluster-operator simulator (from @keelson/kube-sandbox), restarted to change faults. */
const simulator = new RestartableOperatorSimulator(() => kubeconfig);
const simulate = (faults: Record<string, OperatorFault> = {}): Promise<void> => simulator.simulate(faults);
const children: ChildProcess[] = [];
let payloadA = '';
let imageB = '';
let signer: Signer;
let verification: { publicKey: string; store: string };

function startChild(): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
} {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'start',
      `--kubeconfig=${kubeconfig}`,
      `--payload-dir=${payloadA}`,
      `--release-image=${IMAGE_A}`,
      `--payload-cache=${join(dir, 'cache')}`,
      '--listen=', // metrics are HTTPS-only (upstream); this test reads none
      '--update-service=http://127.0.0.1:9/graph',
      '--time-scale=0.002',
      '--lease-duration=2s',
      '--renew-deadline=1500ms',
      '--retry-period=200ms',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => out };
}

const getCv = () => client.request<CV>('GET', '/apis/config.openshift.io/v1/clusterversions/version');

beforeAll(async () => {
  ({ sandbox, client, kubeconfig, dir } = await startCluster());
  ({ payloadA, imageB, signer, verification } = await writeSignedReleasePair(dir));
  await simulate();
}, 60_000);

afterAll(async () => {
  await simulator.stop();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('cluster-version-operator process', () => {
  it('resumes an update after SIGKILL and completes it; SIGTERM releases the lease', async () => {
    const first = startChild();
    // on a timeout, say what the process printed and whether it is still running (a CI run once timed out here)
    await waitFor(async () => (await getCv()).status?.history?.[0]?.state === 'Completed', 60_000, 'A installed').catch(
      (e: unknown) => {
        const state = first.child.exitCode ?? first.child.signalCode ?? 'running';
        throw new Error(
          `${(e as Error).message}; process ${String(state)}; stderr tail:\n${first.output().slice(-3000)}`,
        );
      },
    );
    // console (run level 70) will not report the new version yet: the update stops there
    await simulate({ console: { kind: 'never' } });
    await client.request('PATCH', '/apis/config.openshift.io/v1/clusterversions/version', {
      body: { spec: { desiredUpdate: { image: imageB, version: '4.18.1' } } },
      contentType: 'application/merge-patch+json',
    });
    const waiting = await waitFor(
      async () => {
        const cv = await getCv();
        const p = cv.status?.conditions?.find((c) => c.type === 'Progressing');
        return cv.status?.history?.[0]?.version === '4.18.1' && p?.message?.includes('waiting on console')
          ? cv
          : undefined;
      },
      60_000,
      'update waiting on console',
    );
    expect(waiting.status?.history?.[0]?.state).toBe('Partial');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = startChild();
    await waitFor(() => Promise.resolve(second.output().includes('became leader')), 30_000, 'second instance leading');
    await simulate();
    const done = await waitFor(
      async () => {
        const cv = await getCv();
        return cv.status?.history?.[0]?.state === 'Completed' && cv.status.history[0].version === '4.18.1'
          ? cv
          : undefined;
      },
      60_000,
      'B completed after restart',
    );
    expect(done.status?.history?.map((h) => `${h.version} ${h.state}`)).toEqual([
      '4.18.1 Completed',
      '4.18.0 Completed',
    ]);
    expect(second.output()).toMatch(/"mode":"updating"/);

    second.child.kill('SIGTERM');
    const exit = await second.exited;
    expect(exit.code).toBe(0);
    const lease = await client.request<{ spec: { holderIdentity?: string } }>(
      'GET',
      '/apis/coordination.k8s.io/v1/namespaces/openshift-cluster-version/leases/version',
    );
    expect(lease.spec.holderIdentity ?? '').toBe('');
  });

  it('exits with "leaderelection lost" when another holder takes its Lease, as upstream (the kubelet restarts it)', async () => {
    const c = startChild();
    await waitFor(() => Promise.resolve(c.output().includes('became leader')), 30_000, 'leading');
    const path = '/apis/coordination.k8s.io/v1/namespaces/openshift-cluster-version/leases/version';
    const lease = await client.request<{ metadata: Record<string, unknown>; spec: Record<string, unknown> }>(
      'GET',
      path,
    );
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    await client.request('PUT', path, {
      body: {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: 'another-cvo',
          acquireTime: now,
          renewTime: now,
          leaseDurationSeconds: 3600,
        },
      },
    });
    const exit = await c.exited;
    expect(exit.code).toBe(1);
    expect(c.output()).toContain('"msg":"leaderelection lost"');
    // leave the Lease free for the next test
    const taken = await client.request<{ metadata: Record<string, unknown>; spec: Record<string, unknown> }>(
      'GET',
      path,
    );
    await client.request('PUT', path, {
      body: { ...taken, spec: { ...taken.spec, holderIdentity: '', leaseDurationSeconds: 1 } },
    });
  });

  it('completes each update after SIGKILL at 20 points, re-applying nothing and keeping run-level order', async () => {
    const KILL_POINTS = 20;
    const levelOf = new Map(COMPONENTS.map(([level, c]) => [c, level]));
    const store = verification.store.slice('file://'.length);
    const images: string[] = [];
    for (let i = 0; i < KILL_POINTS; i++) {
      const version = `4.18.${String(i + 2)}`;
      await writeFixturePayload(join(dir, `payload-${version}`), version, { verification });
      const digest = await writeOciLayout(join(dir, `payload-${version}`), join(dir, `layout-${version}`));
      await signer.sign(store, digest, `quay.io/keelson/release:${version}`);
      images.push(`oci:${join(dir, `layout-${version}`)}@${digest}`);
    }
    let current = startChild();
    await waitFor(() => Promise.resolve(current.output().includes('became leader')), 30_000, 'first instance leading');
    for (let i = 0; i < KILL_POINTS; i++) {
      const from = `4.18.${String(i + 1)}`;
      const to = `4.18.${String(i + 2)}`;
      // kill point: the killAt-th change the API server stores after desiredUpdate=to (manifest writes, operator and
      // ClusterVersion status; 0 = at the desiredUpdate write itself). An update here makes ~18 such changes, so the
      // 20 points cover positions 0..17 of the update (two positions are hit twice).
      const killAt = Math.round((i * 17) / (KILL_POINTS - 1));
      let seen = 0;
      let armed = false;
      let killed: { child: ChildProcess; historyTop: string } | undefined;
      const reported = new Map<string, string>();
      let cvHistory: { state: string; version: string }[] = [];
      const writes = new Map<string, number>();
      const violations: string[] = [];
      const kill = (): void => {
        if (killed) return;
        current.child.kill('SIGKILL');
        const top = cvHistory[0];
        killed = { child: current.child, historyTop: `${top?.version ?? ''} ${top?.state ?? ''}` };
      };
      const stop = sandbox.cluster.onChange((e: ChangeEvent) => {
        const o = e.object as {
          kind?: string;
          metadata: { name: string; namespace?: string; generation?: number };
          spec?: { desiredUpdate?: { version?: string } };
          status?: { versions?: { name: string; version: string }[]; history?: { state: string; version: string }[] };
        };
        const kind = o.kind ?? '';
        if (kind === 'ClusterVersion') cvHistory = o.status?.history ?? [];
        if (!armed) {
          armed = kind === 'ClusterVersion' && o.spec?.desiredUpdate?.version === to;
          if (armed && killAt === 0) kill();
          return;
        }
        if (kind === 'ClusterOperator')
          reported.set(o.metadata.name, o.status?.versions?.find((v) => v.name === 'operator')?.version ?? '');
        const component =
          o.metadata.namespace?.replace(/^openshift-/, '') ??
          (kind === 'Namespace' ? o.metadata.name.replace(/^openshift-/, '') : '');
        const level = levelOf.get(component);
        const prevGen = (e.previous as { metadata?: { generation?: number } } | undefined)?.metadata?.generation;
        const contentWrite =
          kind === 'ConfigMap' || kind === 'Namespace' || (kind === 'Deployment' && o.metadata.generation !== prevGen);
        if (level !== undefined && contentWrite) {
          const key = `${kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
          writes.set(key, (writes.get(key) ?? 0) + 1);
          // a run level starts only after every ClusterOperator of the earlier levels reported the target version
          for (const [l, c] of COMPONENTS)
            if (l < level && reported.get(c) !== to)
              violations.push(`${key} (level ${level}) written before ${c} (level ${l}) reported ${to}`);
        }
        // openshift-config-managed/signatures-managed (the signature persister) is not a manifest write
        const persisted = kind === 'ConfigMap' && o.metadata.namespace === 'openshift-config-managed';
        if (
          ['ConfigMap', 'Deployment', 'ClusterOperator', 'ClusterVersion'].includes(kind) &&
          !persisted &&
          ++seen === killAt
        )
          kill();
      });
      try {
        await client.request('PATCH', '/apis/config.openshift.io/v1/clusterversions/version', {
          body: { spec: { desiredUpdate: { image: images[i], version: to } } },
          contentType: 'application/merge-patch+json',
        });
        await waitFor(() => Promise.resolve(killed), 20_000, `kill point ${String(killAt)} of ${from} -> ${to}`);
        expect(killed?.historyTop, `kill point ${String(killAt)} fell inside the update`).not.toBe(`${to} Completed`);
        expect((await current.exited).signal).toBe('SIGKILL');
        current = startChild();
        const cv = await waitFor(
          async () => {
            const c = await getCv();
            return c.status?.history?.[0]?.version === to && c.status.history[0].state === 'Completed' ? c : undefined;
          },
          60_000,
          `${to} completed after the kill at point ${String(killAt)}`,
        );
        const history = cv.status?.history ?? [];
        expect(history.slice(0, 2).map((h) => `${h.version} ${h.state}`)).toEqual([
          `${to} Completed`,
          `${from} Completed`,
        ]);
        expect(history.filter((h) => h.version === to)).toHaveLength(1);
        expect(history.filter((h) => h.state === 'Partial')).toEqual([]);
      } finally {
        stop();
      }
      expect(violations).toEqual([]);
      // every manifest that changed was written exactly once (no re-apply after the restart); unchanged ones never
      const expected = new Map<string, number>();
      for (const [, c] of COMPONENTS) {
        expected.set(`ConfigMap openshift-${c}/${c}-config`, 1);
        expected.set(`Deployment openshift-${c}/${c}-operator`, 1);
      }
      expect(Object.fromEntries(writes)).toEqual(Object.fromEntries(expected));
    }
    current.child.kill('SIGTERM');
    expect((await current.exited).code).toBe(0);
  }, 400_000); // 20 process restarts: a hang detector sized for a loaded 2-core CI machine
});
