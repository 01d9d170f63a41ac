/**
 * The README's own releases: `node tooling/payload-gen/dist/cli.js --rehearsal --out DIR`, then
 * `keelson rehearse --from DIR/4.18.7 --to DIR/4.18.8 --force`, both as real child processes. These releases carry the
 * generator's MCO manifests (not the MCO app's): they used to put the machine-config ClusterOperator before the
 * operator's Deployment, so the CVO waited at the ClusterOperator for an operator it never rolled out and the update
 * failed ("Cluster operator machine-config is not available"). A release with that order is now refused up front.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openPayload } from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RehearsalReport, findOrderingProblems } from '@keelson/rehearsal';
import { cli } from '../cli-helpers.js';

const PAYLOAD_GEN = fileURLToPath(new URL('../../../../tooling/payload-gen/dist/cli.js', import.meta.url));

let work: string;
let rel: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'keelson-readme-rel-'));
  rel = join(work, 'rel');
  await promisify(execFile)(process.execPath, [PAYLOAD_GEN, '--rehearsal', '--out', rel]);
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("the README's generated releases", { timeout: 600_000 }, () => {
  it("order the MCO Deployment before its ClusterOperator, as upstream's install/ does", async () => {
    for (const v of ['4.18.7', '4.18.8']) {
      const files = (await readdir(join(rel, v, 'release-manifests'))).filter(
        (n) => n.startsWith('0000_80_machine-config_') && !n.includes('.crd.'),
      );
      const deployment = files.findIndex((n) => n.endsWith('_deployment.yaml'));
      const co = files.findIndex((n) => n.endsWith('_clusteroperator.yaml'));
      expect(deployment, files.join(' ')).toBeGreaterThanOrEqual(0);
      expect(deployment, files.join(' ')).toBeLessThan(co);
      expect(findOrderingProblems(await openPayload(join(rel, v)))).toEqual([]);
    }
  });

  it('rehearse 4.18.7 -> 4.18.8 to Completed', async () => {
    const r = await cli(
      'rehearse',
      '--from',
      join(rel, '4.18.7'),
      '--to',
      join(rel, '4.18.8'),
      '--force',
      '--masters',
      '1',
      '--workers',
      '1',
      '--time-scale',
      '120',
      '--timeout',
      '300',
      '--json',
    );
    const report = JSON.parse(r.stdout) as RehearsalReport;
    expect(report.outcome, `${report.message}\n${r.stderr.slice(-2000)}`).toBe('Completed');
    expect(r.code).toBe(0);
    expect(report.operators.find((o) => o.name === 'machine-config')?.reachedMs).not.toBeNull();
  });

  it("a target whose ClusterOperator precedes its operator's Deployment is refused up front with the reason", async () => {
    const b = join(work, 'co-first');
    await cp(join(rel, '4.18.8'), b, { recursive: true });
    const rm_ = join(b, 'release-manifests');
    await rename(
      join(rm_, '0000_80_machine-config_06_clusteroperator.yaml'),
      join(rm_, '0000_80_machine-config_03_clusteroperator.yaml'),
    );
    const problems = findOrderingProblems(await openPayload(b));
    expect(problems.map((p) => p.code)).toEqual(['REHEARSAL_OPERATOR_AFTER_CLUSTEROPERATOR']);
    const r = await cli('rehearse', '--from', join(rel, '4.18.7'), '--to', b, '--force', '--quiet');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('REHEARSAL_OPERATOR_AFTER_CLUSTEROPERATOR');
    expect(r.stderr).toContain(
      '0000_80_machine-config_03_clusteroperator.yaml (ClusterOperator machine-config) comes before 0000_80_machine-config_04_deployment.yaml',
    );
  });
});
