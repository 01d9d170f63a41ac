/**
 * `keelson upgrade rollback` (oc's hidden `oc adm upgrade rollback`, release-4.20): the decision with oc's texts, and
 * the command against the embedded sandbox as a child process, shown only with OC_ENABLE_CMD_UPGRADE_ROLLBACK=true.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../src/upgrade/api-types.js';
import { planRollback } from '../../src/upgrade/rollback.js';
import { BIN, type Run } from '../cli-helpers.js';
import { cond, idleCluster, IMG, T } from './fixtures.js';

/** The idle 4.18.3 cluster of the fixtures, updated from `previous` (the older history entry). */
function updatedFrom(previous: { version: string; image: string }, progressing = cond('Progressing', 'False')) {
  const cv = idleCluster();
  const status = cv.status!;
  status.history = [
    ...(status.history ?? []),
    { state: 'Completed', startedTime: T, completionTime: T, verified: true, ...previous },
  ];
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'Progressing'), progressing];
  return cv;
}

describe('planRollback (oc adm upgrade rollback, pure)', () => {
  it('asks for the release before the current target within the same minor', () => {
    expect(planRollback(updatedFrom({ version: '4.18.1', image: IMG(1) }))).toEqual({
      desiredUpdate: { version: '4.18.1', image: IMG(1) },
      from: '4.18.3',
      to: '4.18.1',
    });
  });

  it("refuses what oc refuses, with oc's messages", () => {
    expect(() => planRollback(idleCluster())).toThrow(
      `no previous version found in ClusterVersion's status.history besides the current 4.18.3 (${IMG(3)}).`,
    );
    expect(() => planRollback(updatedFrom({ version: '4.18.4', image: IMG(4) }))).toThrow(
      `previous version 4.18.4 (${IMG(4)}) is greater than or equal to current version 4.18.3 (${IMG(3)}).  Use 'oc adm upgrade ...' to update, and not this rollback command.`,
    );
    expect(() => planRollback(updatedFrom({ version: '4.17.9', image: IMG(9) }))).toThrow(
      "4.17.9 is less than the current target 4.18.3 and matches the cluster's previous version, but rollbacks that change major or minor versions are not recommended.",
    );
    expect(() => planRollback(updatedFrom({ version: '4.18', image: IMG(8) }))).toThrow(
      'previous version "4.18" invalid SemVer: No Major.Minor.Patch elements found',
    );
    const updating = updatedFrom(
      { version: '4.18.1', image: IMG(1) },
      cond('Progressing', 'True', 'ClusterOperatorsUpdating', 'Working towards 4.18.3: 700 of 900 done'),
    );
    expect(() => planRollback(updating)).toThrow(
      'unable to rollback while an update is Progressing=True: ClusterOperatorsUpdating: Working towards 4.18.3: 700 of 900 done.',
    );
    const unknown = updatedFrom({ version: '4.18.1', image: IMG(1) });
    unknown.status!.conditions = unknown.status!.conditions!.filter((c) => c.type !== 'Progressing');
    expect(() => planRollback(unknown)).toThrow('no current Progressing info');
  });
});

describe('keelson upgrade rollback (child process against the sandbox)', () => {
  let sb: Sandbox;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    sb = await startSandbox({ openshiftCrds: ['ClusterVersion'] });
    dir = await mkdtemp(join(tmpdir(), 'keelson-rollback-'));
    kubeconfig = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await sb.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const keelson = (env: Record<string, string>, ...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
      });
    });
  const api = async (method: string, path: string, body?: unknown): Promise<ClusterVersion> => {
    const res = await fetch(`${sb.url}/apis/config.openshift.io/v1/clusterversions${path}`, {
      method,
      headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (await res.json()) as ClusterVersion;
  };

  it('is hidden unless OC_ENABLE_CMD_UPGRADE_ROLLBACK=true; then requests the previous release', async () => {
    const cv = updatedFrom({ version: '4.18.1', image: IMG(1) });
    // the stored form: the CRD wants at least one risk per conditional update
    cv.status!.conditionalUpdates = (cv.status!.conditionalUpdates ?? []).filter((u) => (u.risks?.length ?? 0) > 0);
    const created = await api('POST', '', {
      apiVersion: cv.apiVersion,
      kind: cv.kind,
      metadata: { name: 'version' },
      spec: cv.spec,
    });
    await api('PUT', '/version/status', { ...created, status: { ...cv.status, versionHash: 'h' } });

    const gated = await keelson({}, 'upgrade', 'rollback', '--kubeconfig', kubeconfig);
    expect(gated.code).not.toBe(0);
    expect((await api('GET', '/version')).spec.desiredUpdate).toBeUndefined();

    const on = { OC_ENABLE_CMD_UPGRADE_ROLLBACK: 'true' };
    expect((await keelson(on, 'upgrade', '--help')).stdout).not.toContain('rollback');
    const r = await keelson(on, 'upgrade', 'rollback', '--kubeconfig', kubeconfig);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('Requested rollback from 4.18.3 to 4.18.1\n');
    expect(r.code).toBe(0);
    expect((await api('GET', '/version')).spec.desiredUpdate).toMatchObject({ version: '4.18.1', image: IMG(1) });
  });
});
