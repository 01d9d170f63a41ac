/**
 * `keelson upgrade` against the embedded sandbox serving the upstream ClusterVersion / ClusterOperator /
 * MachineConfigPool CRDs over real HTTP: the programmatic entry points (requestUpgrade, setChannel,
 * readUpgradeStatus) and the CLI as a child process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClusterVersion } from '../../src/upgrade/api-types.js';
import { readUpgradeStatus, requestUpgrade, setChannel } from '../../src/upgrade/cluster.js';
import { UpgradeRequestError } from '../../src/upgrade/request.js';
import { cli } from '../cli-helpers.js';
import { cond, idleCluster, IMG } from './fixtures.js';

vi.setConfig({ testTimeout: 30_000 });

const CV_PATH = '/apis/config.openshift.io/v1/clusterversions/version';

let sb: Sandbox;
let dir: string;
let kubeconfig: string;
let client: KubeClient;

async function req(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: unknown }> {
  const init: RequestInit = { method, headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': contentType } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${sb.url}${path}`, init);
  return { status: res.status, body: await res.json() };
}

/** Writes a ClusterVersion as the CVO would: the object, then its status through /status. */
async function putClusterVersion(cv: ClusterVersion): Promise<void> {
  const live = await req('GET', CV_PATH);
  if (live.status === 404)
    expect(
      (
        await req('POST', '/apis/config.openshift.io/v1/clusterversions', {
          apiVersion: cv.apiVersion,
          kind: cv.kind,
          metadata: { name: 'version' },
          spec: cv.spec,
        })
      ).status,
    ).toBe(201);
  else {
    const l = live.body as ClusterVersion;
    expect((await req('PUT', CV_PATH, { ...l, spec: cv.spec })).status).toBe(200);
  }
  const cur = (await req('GET', CV_PATH)).body as ClusterVersion;
  const st = await req('PUT', `${CV_PATH}/status`, { ...cur, status: { versionHash: 'h', ...cv.status } });
  expect(st.status, JSON.stringify(st.body)).toBe(200);
}

async function getCv(): Promise<ClusterVersion> {
  return (await req('GET', CV_PATH)).body as ClusterVersion;
}

/** A valid stored form of the fixture (the CRD wants at least one risk per conditional update). */
function storedIdle(): ClusterVersion {
  const cv = idleCluster();
  if (cv.status)
    cv.status.conditionalUpdates = (cv.status.conditionalUpdates ?? []).filter((u) => (u.risks?.length ?? 0) > 0);
  return cv;
}

beforeAll(async () => {
  sb = await startSandbox({ openshiftCrds: ['ClusterVersion', 'ClusterOperator', 'MachineConfigPool'] });
  dir = await mkdtemp(join(tmpdir(), 'keelson-upgrade-'));
  kubeconfig = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
  client = KubeClient.fromKubeconfigString(sb.kubeconfigYaml());
});
afterAll(async () => {
  await client.close();
  await sb.stop();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await putClusterVersion(storedIdle());
});

describe('requestUpgrade / setChannel / readUpgradeStatus against the sandbox', () => {
  // (acceptRisks is behind the ClusterUpdateAcceptRisks gate: the Default CRD prunes it; see request.test.ts)
  it('writes desiredUpdate with a JSON merge patch, and --clear removes it', async () => {
    const r = await requestUpgrade(client, { to: '4.18.4' });
    expect(r.out).toEqual(['Requested update to 4.18.4']);
    expect(r.patch).toEqual({
      spec: { desiredUpdate: { architecture: '', version: '4.18.4', image: IMG(4), force: false } },
    });
    const live = await getCv();
    expect(live.spec.desiredUpdate).toEqual({ architecture: '', version: '4.18.4', image: IMG(4), force: false });
    expect(live.spec.channel).toBe('stable-4.18');

    const cleared = await requestUpgrade(client, { clear: true });
    expect(cleared.out).toEqual(['Cancelled requested upgrade to 4.18.4']);
    expect((await getCv()).spec.desiredUpdate).toBeUndefined();
  });

  it('--to-image with --allow-explicit-upgrade and --force, and --clear of an update equal to the current release', async () => {
    const unknown = `quay.io/openshift-release-dev/ocp-release@sha256:${'e'.repeat(64)}`;
    await expect(requestUpgrade(client, { toImage: unknown })).rejects.toThrow(
      'specify --allow-explicit-upgrade to continue with the update.',
    );
    const r = await requestUpgrade(client, { toImage: unknown, allowExplicitUpgrade: true, force: true });
    expect(r.err.join('\n')).toContain('--allow-explicit-upgrade for the update to proceed anyway');
    expect((await getCv()).spec.desiredUpdate).toMatchObject({ version: '', image: unknown, force: true });
    await putClusterVersion({
      ...storedIdle(),
      spec: { ...storedIdle().spec, desiredUpdate: { version: '4.18.3', image: IMG(3) } },
    });
    expect((await requestUpgrade(client, { clear: true })).out).toEqual(['Cleared the update field, still at 4.18.3']);
    expect((await getCv()).spec.desiredUpdate).toBeUndefined();
  });

  it('refuses while the cluster is updating unless told otherwise', async () => {
    const cv = storedIdle();
    if (cv.status)
      cv.status.conditions = [
        cond('Progressing', 'True', undefined, 'Working towards 4.18.4: 10 of 900 done (1% complete)'),
      ];
    await putClusterVersion(cv);
    await expect(requestUpgrade(client, { to: '4.18.10' })).rejects.toBeInstanceOf(UpgradeRequestError);
    expect((await getCv()).spec.desiredUpdate).toBeUndefined();
    await requestUpgrade(client, { to: '4.18.10', allowUpgradeWithWarnings: true });
    expect((await getCv()).spec.desiredUpdate?.version).toBe('4.18.10');
  });

  it('sets and clears the channel with oc checks', async () => {
    await expect(setChannel(client, 'eus-4.18', false)).rejects.toThrow(
      'the requested channel "eus-4.18" is not one of the available channels (candidate-4.18, fast-4.18, stable-4.18), you must pass --allow-explicit-channel to continue',
    );
    expect((await setChannel(client, 'fast-4.18', false)).changed).toBe(true);
    expect((await getCv()).spec.channel).toBe('fast-4.18');
    expect((await setChannel(client, 'fast-4.18', false)).out).toEqual([
      'info: Cluster is already in fast-4.18 (no change)',
    ]);
    await expect(setChannel(client, '', false)).rejects.toThrow('You are requesting to clear the update channel.');
    const r = await setChannel(client, '', true);
    expect(r.err).toEqual([
      'warning: Clearing channel "fast-4.18"; cluster will no longer request available update recommendations.',
    ]);
    expect((await getCv()).spec.channel ?? '').toBe('');
  });

  it('reads operators and pools for the status diagnosis', async () => {
    for (const [name, version] of [
      ['etcd', '4.18.3'],
      ['dns', '4.18.2'],
    ] as const) {
      await req('POST', '/apis/config.openshift.io/v1/clusteroperators', {
        apiVersion: 'config.openshift.io/v1',
        kind: 'ClusterOperator',
        metadata: { name },
        spec: {},
      });
      await req(
        'PATCH',
        `/apis/config.openshift.io/v1/clusteroperators/${name}/status`,
        {
          status: {
            versions: [{ name: 'operator', version }],
            conditions: [cond('Available', 'True'), cond('Degraded', 'False')],
          },
        },
        'application/merge-patch+json',
      );
    }
    await req('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'worker' },
      spec: {},
    });
    const s = await readUpgradeStatus(client, Date.now());
    expect(s.operators.map((o) => [o.name, o.state])).toEqual([
      ['dns', 'Pending'],
      ['etcd', 'Updated'],
    ]);
    expect(s.pools.map((p) => p.name)).toEqual(['worker']);
  });
});

describe('keelson upgrade as a child process', () => {
  it('prints the oc adm upgrade status block', async () => {
    const r = await cli('upgrade', '--kubeconfig', kubeconfig);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'Cluster version is 4.18.3\n\nUpstream is unset, so the cluster will use an appropriate default.\nChannel: stable-4.18 (available channels: candidate-4.18, fast-4.18, stable-4.18)\n\nRecommended updates:\n\n  VERSION     IMAGE\n  4.18.10     ',
    );
    const j = await cli('upgrade', '--kubeconfig', kubeconfig, '-o', 'json', '--include-not-recommended');
    expect(j.code).toBe(0);
    expect(
      (JSON.parse(j.stdout) as { notRecommendedUpdates: { release: { version: string } }[] }).notRecommendedUpdates.map(
        (u) => u.release.version,
      ),
    ).toEqual(['4.18.5']);
  });

  it('requests an update, rejects bad flags with exit 2 and refusals with exit 1', async () => {
    const ok = await cli('upgrade', '--kubeconfig', kubeconfig, '--to-latest');
    expect(ok.stdout).toBe('Requested update to 4.18.10\n');
    expect(ok.code).toBe(0);
    expect((await getCv()).spec.desiredUpdate?.image).toBe(IMG(7));
    const usage = await cli('upgrade', '--kubeconfig', kubeconfig, '--to', '4.18');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe(
      'error: --to must be a semantic version (e.g. 4.0.1 or 4.1.0-nightly-20181104): No Major.Minor.Patch elements found\n',
    );
    const refused = await cli('upgrade', '--kubeconfig', kubeconfig, '--to', '4.18.5');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: the update 4.18.5 is not one of the recommended updates, but is available as a conditional update.',
    );
  });

  it('upgrade status -o json and text, upgrade channel', async () => {
    const j = await cli('upgrade', 'status', '--kubeconfig', kubeconfig, '-o', 'json');
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ assessment: 'Completed', target: { version: '4.18.3' } });
    // as oc: an idle cluster (Progressing=False, no outdated worker pool) is "not updating"
    const t = await cli('upgrade', 'status', '--kubeconfig', kubeconfig);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toBe('The cluster is not updating.\n');
    const c = await cli('upgrade', 'channel', 'candidate-4.18', '--kubeconfig', kubeconfig);
    expect(c.code, c.stderr).toBe(0);
    expect((await getCv()).spec.channel).toBe('candidate-4.18');
  });

  it('fails clearly without a ClusterVersion', async () => {
    const other = await startSandbox();
    try {
      const kc = await other.writeKubeconfig(join(dir, 'empty-kubeconfig'));
      const r = await cli('upgrade', '--kubeconfig', kc);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error: ');
    } finally {
      await other.stop();
    }
  });
});

describe('keelson upgrade status --watch (child process)', () => {
  it('prints one JSON document per round and stops on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../cli-helpers.js');
    const child = spawn(
      process.execPath,
      [BIN, 'upgrade', 'status', '--kubeconfig', kubeconfig, '-o', 'json', '--watch', '200ms'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (stdout.split('\n').filter((l) => l !== '').length < 2) {
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const docs = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { assessment: string; completion: { percent: number } });
    expect(docs.length).toBeGreaterThanOrEqual(2);
    expect(docs.every((d) => d.assessment === 'Completed')).toBe(true);
  });
});
