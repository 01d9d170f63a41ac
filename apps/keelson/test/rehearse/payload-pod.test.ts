/**
 * The rehearsal retrieves the target payload as upstream does: the CVO creates its `version-<v>-<rand>` Pod on
 * master-0 and that virtual node's kubelet pulls the release image and writes it to the node's
 * `/etc/cvo/updatepayloads/<hash>`, from which the CVO loads it (a whole `keelson rehearse` as a child process).
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cvoArgs, type RehearsalReport } from '@keelson/rehearsal';
import { cli } from '../cli-helpers.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('payload retrieval in the rehearsal', { timeout: 600_000 }, () => {
  it('the CVO process is started with upstream Pod retrieval on its node', () => {
    const args = cvoArgs({
      kubeconfig: '/k',
      payloadDir: '/p',
      releaseImage: 'r@sha256:1',
      payloadCache: '/w/nodes/master-0/etc/cvo/updatepayloads',
      nodeName: 'master-0',
      updateService: 'http://u',
      promqlTarget: 'http://q',
      timeScale: 0.01,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(args.join(' ')).toContain(
      '--payload-cache /w/nodes/master-0/etc/cvo/updatepayloads --payload-retrieval pod --node-name master-0',
    );
  });

  it("an update completes with the payload written by master-0's kubelet under its /etc/cvo/updatepayloads", async () => {
    const work = await mkdtemp(join(tmpdir(), 'keelson-payload-pod-'));
    dirs.push(work);
    const r = await cli(
      'rehearse',
      '--json',
      '--masters',
      '1',
      '--workers',
      '1',
      '--time-scale',
      '120',
      '--timeout',
      '400',
      '--work-dir',
      join(work, 'w'),
    );
    const report = JSON.parse(r.stdout) as RehearsalReport;
    expect(report.outcome, report.message).toBe('Completed');
    const base = join(work, 'w', 'nodes', 'master-0', 'etc', 'cvo', 'updatepayloads');
    const entries = await readdir(base);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatch(/^[A-Za-z0-9_-]{22}$/); // base64url(md5(pull spec)), as upstream names it
    const metadata = JSON.parse(
      await readFile(join(base, entries[0] ?? '', 'release-manifests', 'release-metadata'), 'utf8'),
    ) as { version: string };
    expect(metadata.version).toBe(report.to);
  });
});
