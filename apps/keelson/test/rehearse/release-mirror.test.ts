/**
 * Issue 22 §3: a rehearsal with the release only reachable through a mirror completes. B is published only under the
 * mirror repository of the rehearsal registry (its pull spec names the source repository, which does not hold it);
 * the rehearsal creates an ImageDigestMirrorSet once A is installed, the MCO renders it into every node's
 * registries.conf, and the CVO's version Pod on master-0 is pulled by that node's virtual kubelet through it.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '@keelson/kube';
import { describe, expect, it } from 'vitest';
import { parseFaults, nodePullSources, RELEASE_MIRROR_SET, rehearse, type TimelineEvent } from '@keelson/rehearsal';
import { cli } from '../cli-helpers.js';

describe('rehearse --release-mirror', { timeout: 600_000 }, () => {
  it('is refused with --from/--to (it mirrors the generated B)', async () => {
    const r = await cli('rehearse', '--release-mirror', '--from', '/nope/a', '--to', '/nope/b');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--release-mirror mirrors the generated release B: it does not go with --from/--to');
  });

  it('completes with B pulled by master-0 through the mirror its registries.conf names', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rehearse-release-mirror-'));
    const events: TimelineEvent[] = [];
    let priorityClass: unknown;
    try {
      const { report } = await rehearse({
        masters: 1,
        workers: 1,
        pools: {},
        timeScale: 120,
        faults: parseFaults([], [], []),
        timeoutSeconds: 400,
        workDir,
        releaseMirror: true,
        onEvent: (e) => events.push(e),
        hold: async (_report, kubeconfigPath) => {
          const client = KubeClient.fromKubeconfigString(await readFile(kubeconfigPath, 'utf8'));
          // the bootstrap's PriorityClass the version Pod names (kube-apiserver refuses the Pod without it)
          priorityClass = await client.request(
            'GET',
            '/apis/scheduling.k8s.io/v1/priorityclasses/openshift-user-critical',
          );
          await client.close();
        },
      });
      expect(priorityClass).toMatchObject({ value: 1_000_000_000 });
      expect(report.outcome, report.message).toBe('Completed');
      const details = events.filter((e) => e.type === 'phase').map((e) => e.detail);
      const setup = details.find((d) => d.startsWith('releases ')) ?? '';
      const pullSpec = /-> \S+ \((\S+)\)/.exec(setup)?.[1] ?? '';
      expect(pullSpec).toMatch(/^127\.0\.0\.1:\d+\/openshift-release-dev\/ocp-release@sha256:[0-9a-f]{64}$/);
      const mirror = pullSpec.replace('/openshift-release-dev/ocp-release@', '/keelson-mirror/ocp-release@');
      // the mirror was rolled out before the update was requested
      const at = (f: (d: string, phase: string) => boolean): number =>
        events.findIndex((e) => e.type === 'phase' && f(e.detail, e.phase));
      const created = at((d) => d.includes(`ImageDigestMirrorSet ${RELEASE_MIRROR_SET} created`));
      const rolled = at((d) => d.startsWith("release mirror: every node's registries.conf"));
      expect(created).toBeGreaterThan(-1);
      expect(rolled).toBeGreaterThan(created);
      expect(at((_d, phase) => phase === 'upgrade')).toBeGreaterThan(rolled);
      for (const node of ['master-0', 'worker-0'])
        expect(await nodePullSources(join(workDir, 'nodes', node), pullSpec)).toEqual([mirror, pullSpec]);
      // master-0's kubelet wrote B's payload where the CVO reads it
      const base = join(workDir, 'nodes', 'master-0', 'etc', 'cvo', 'updatepayloads');
      const entries = await readdir(base);
      expect(entries).toHaveLength(1);
      const metadata = JSON.parse(
        await readFile(join(base, entries[0] ?? '', 'release-manifests', 'release-metadata'), 'utf8'),
      ) as { version: string };
      expect(metadata.version).toBe(report.to);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
