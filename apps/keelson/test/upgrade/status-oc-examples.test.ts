/**
 * `keelson upgrade status` against upstream's own examples (openshift/oc pkg/cli/admin/upgrade/status/examples,
 * copied in test/fixtures/upstream/oc-upgrade-status): the same inputs must give oc's text byte for byte, plain and with
 * `--details=all`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Node } from '@keelson/api';
import type { ClusterOperator, ClusterVersion, MachineConfigPool } from '../../src/upgrade/api-types.js';
import { computeOcStatus, formatOcStatus } from '../../src/upgrade/status-oc.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'oc-upgrade-status');

function load(file: string): unknown {
  return parse(readFileSync(join(DIR, file), 'utf8'), { maxAliasCount: -1 });
}

function items<T>(file: string): T[] {
  return (load(file) as { items?: T[] }).items ?? [];
}

/** Upstream's mock "now": the latest condition transition of the ClusterVersion and ClusterOperators + 368975 ns. */
function mockNow(cv: ClusterVersion, cos: readonly ClusterOperator[]): number {
  let now = 0;
  for (const c of [...(cv.status?.conditions ?? []), ...cos.flatMap((co) => co.status?.conditions ?? [])]) {
    const t = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : 0;
    if (t > now) now = t;
  }
  return now + 0.368975;
}

const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('-cv.yaml'))
  .map((f) => f.slice(0, -'-cv.yaml'.length))
  .sort();

describe('oc adm upgrade status examples', () => {
  it('has the copied cases', () => expect(cases.length).toBeGreaterThanOrEqual(8));
  for (const name of cases) {
    // the ClusterVersion file holds the object itself or a List of one (both decoded upstream)
    const cvFile = load(`${name}-cv.yaml`) as ClusterVersion & { items?: ClusterVersion[] };
    const cv = cvFile.items?.[0] ?? cvFile;
    const operators = items<ClusterOperator>(`${name}-co.yaml`);
    const mcVersions = new Map(
      items<{ metadata: { name: string; annotations?: Record<string, string> } }>(`${name}-mc.yaml`).map((mc) => [
        mc.metadata.name,
        mc.metadata.annotations?.['machineconfiguration.openshift.io/release-image-version'] ?? '',
      ]),
    );
    const input = {
      clusterVersion: cv,
      operators,
      pools: items<MachineConfigPool>(`${name}-mcp.yaml`),
      nodes: items<Node>(`${name}-node.yaml`),
      mcVersions,
      mcoImage: '',
      now: mockNow(cv, operators),
      ...(existsSync(join(DIR, `${name}-alerts.json`))
        ? { alerts: { json: readFileSync(join(DIR, `${name}-alerts.json`), 'utf8') } }
        : {}),
    };
    it(name, () => {
      const s = computeOcStatus(input);
      expect(formatOcStatus(s, 'none')).toBe(readFileSync(join(DIR, `${name}.output`), 'utf8'));
    });
    it(`${name} --details=all`, () => {
      const s = computeOcStatus(input);
      expect(formatOcStatus(s, 'all')).toBe(readFileSync(join(DIR, `${name}.detailed-output`), 'utf8'));
    });
  }
});

describe('upgrade status --watch rounds', () => {
  it('never lowers the completion of the same target, and restarts for another target', () => {
    const name = '4.14.1-paused-worker-pool';
    const cvFile = load(`${name}-cv.yaml`) as ClusterVersion & { items?: ClusterVersion[] };
    const cv = cvFile.items?.[0] ?? cvFile;
    const operators = items<ClusterOperator>(`${name}-co.yaml`);
    const input = {
      clusterVersion: cv,
      operators,
      pools: items<MachineConfigPool>(`${name}-mcp.yaml`),
      nodes: items<Node>(`${name}-node.yaml`),
      mcVersions: new Map<string, string>(),
      mcoImage: '',
      now: mockNow(cv, operators),
    };
    const first = computeOcStatus(input);
    expect(Math.round(first.controlPlane.completion)).toBe(12);
    const higher = structuredClone(first);
    higher.controlPlane.completion = 50;
    expect(computeOcStatus({ ...input, previous: higher }).controlPlane.completion).toBe(50);
    expect(formatOcStatus(computeOcStatus({ ...input, previous: higher }))).toContain(
      'Completion:      50% (4 operators',
    );
    higher.controlPlane.target.version = '4.14.2';
    expect(Math.round(computeOcStatus({ ...input, previous: higher }).controlPlane.completion)).toBe(12);
  });
});
