/**
 * The real bin as a child process: SIGKILL in the middle of an update and a restart resume the same update from
 * ClusterVersion status (history[0] Partial) to completion; SIGTERM exits cleanly and releases the Lease.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import type { KubeClient } from '@keelson/kube';
import { startOperatorSimulator, type OperatorFault, type OperatorSimulator, type Sandbox } from '@keelson/kube-sandbox';
import { Signer, startCluster, waitFor, writeFixturePayload, writeOciLayout } from './helpers.js';

const BIN = new URL('../dist/bin/cluster-version-operator.js', import.meta.url).pathname;
const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);

interface CV {
  status?: { history?: { state: string; version: string }[]; conditions?: { type: string; status: string; message?: string }[] };
}

let sandbox: Sandbox;
let client: KubeClient;
let kubeconfig: string;
let dir: string;
let simulator: OperatorSimulator | undefined;

/** The upgrade-sim cluster-operator simulator (from @keelson/kube-sandbox), restarted to change faults. */
async function simulate(faults: Record<string, OperatorFault> = {}): Promise<void> {
  await simulator?.stop();
  const sim = await startOperatorSimulator({ kubeconfig: await readFile(kubeconfig, 'utf8'), delayMs: 20, waitForDeployments: false, faults });
  await sim.synced;
  simulator = sim;
}
const children: ChildProcess[] = [];
let payloadA = '';
let imageB = '';

function startChild(): { child: ChildProcess; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; output: () => string } {
  const child = spawn(process.execPath, [BIN, 'start', `--kubeconfig=${kubeconfig}`, `--payload-dir=${payloadA}`, `--release-image=${IMAGE_A}`, `--payload-cache=${join(dir, 'cache')}`,
    '--listen=127.0.0.1:0', '--update-service=http://127.0.0.1:9/graph', '--time-scale=0.002', '--lease-duration=2s', '--renew-deadline=1500ms', '--retry-period=200ms'], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let out = '';
  child.stderr?.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, output: () => out };
}

const getCv = () => client.request<CV>('GET', '/apis/config.openshift.io/v1/clusterversions/version');

beforeAll(async () => {
  ({ sandbox, client, kubeconfig, dir } = await startCluster());
  const signer = await Signer.create();
  const store = join(dir, 'signatures');
  const verification = { publicKey: signer.publicKey(), store: `file://${store}` };
  payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0', { verification });
  await writeFixturePayload(join(dir, 'payload-b'), '4.18.1', { verification });
  const digestB = await writeOciLayout(join(dir, 'payload-b'), join(dir, 'layout-b'));
  imageB = `oci:${join(dir, 'layout-b')}@${digestB}`;
  await signer.sign(store, digestB, 'quay.io/keelson/release:4.18.1');
  await simulate();
}, 60_000);

afterAll(async () => {
  await simulator?.stop();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('cluster-version-operator process', () => {
  it('resumes an update after SIGKILL and completes it; SIGTERM releases the lease', async () => {
    const first = startChild();
    await waitFor(async () => (await getCv()).status?.history?.[0]?.state === 'Completed', 60_000, 'A installed');
    // console (run level 70) will not report the new version yet: the update stops there
    await simulate({ console: { kind: 'never' } });
    await client.request('PATCH', '/apis/config.openshift.io/v1/clusterversions/version', { body: { spec: { desiredUpdate: { image: imageB, version: '4.18.1' } } }, contentType: 'application/merge-patch+json' });
    const waiting = await waitFor(async () => {
      const cv = await getCv();
      const p = cv.status?.conditions?.find((c) => c.type === 'Progressing');
      return cv.status?.history?.[0]?.version === '4.18.1' && p?.message?.includes('waiting on console') ? cv : undefined;
    }, 60_000, 'update waiting on console');
    expect(waiting.status?.history?.[0]?.state).toBe('Partial');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = startChild();
    await waitFor(() => Promise.resolve(second.output().includes('became leader')), 30_000, 'second instance leading');
    await simulate();
    const done = await waitFor(async () => {
      const cv = await getCv();
      return cv.status?.history?.[0]?.state === 'Completed' && cv.status.history[0].version === '4.18.1' ? cv : undefined;
    }, 60_000, 'B completed after restart');
    expect(done.status?.history?.map((h) => `${h.version} ${h.state}`)).toEqual(['4.18.1 Completed', '4.18.0 Completed']);
    expect(second.output()).toMatch(/"mode":"updating"/);

    second.child.kill('SIGTERM');
    const exit = await second.exited;
    expect(exit.code).toBe(0);
    const lease = await client.request<{ spec: { holderIdentity?: string } }>('GET', '/apis/coordination.k8s.io/v1/namespaces/openshift-cluster-version/leases/version');
    expect(lease.spec.holderIdentity ?? '').toBe('');
  });
});
