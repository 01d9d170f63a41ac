/**
 * `--fault`, `--kill` and `--pause-pool` targets checked before a rehearsal starts: typos are refused with "did you
 * mean" (exit 2, nothing started) instead of a rehearsal that injects nothing and reports Completed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateRehearsalReleases, type RehearsalReleases } from '@keelson/payload-gen';
import { openPayload, type ReleasePayload } from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  didYouMean,
  editDistance,
  lastWaitPoint,
  rehearsalTargets,
  validateFaultTargets,
  FaultSpecError,
  parseFaults,
  nodeInventory,
} from '@keelson/rehearsal';
import { cli } from '../cli-helpers.js';

let work: string;
let rel: RehearsalReleases;
let a: ReleasePayload;
let b: ReleasePayload;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'keelson-fault-targets-'));
  rel = await generateRehearsalReleases({ out: join(work, 'rel') });
  a = await openPayload(rel.from.dir);
  b = await openPayload(rel.to.dir);
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const targets = () =>
  rehearsalTargets(
    a,
    b,
    nodeInventory(3, 3, { infra: 2 }).map((n) => n.name),
    ['infra'],
  );
const validate = (faults: string[], kills: string[] = [], pause: string[] = []) =>
  validateFaultTargets(parseFaults(faults, kills, pause), targets());

describe('validateFaultTargets', () => {
  it("accepts targets that exist: B's operators, the nodes, master/worker/custom pools", () => {
    expect(
      validate(
        [
          'degraded-operator=dns',
          'operator-never-updates=console',
          'node-fails-boot=worker-2',
          'on-disk-drift=infra-1:/etc/x',
        ],
        ['daemon@master-0'],
        ['worker', 'infra'],
      ),
    ).toEqual({ notes: [] });
  });

  it('refuses a typo with the closest name', () => {
    expect(() => validate(['degraded-operator=dsn'])).toThrow(
      /--fault degraded-operator=dsn: no ClusterOperator "dsn" in the rehearsal \(did you mean "dns"\?\)/,
    );
    expect(() => validate([], [], ['wroker'])).toThrow(
      /--pause-pool wroker: no pool "wroker" in the rehearsal \(did you mean "worker"\?\); the pools are: infra, master, worker/,
    );
    expect(() => validate(['node-fails-boot=worker-9'])).toThrow(/no node "worker-9".*did you mean "worker-0"/);
    expect(() => validate([], ['daemon@nosuchnode'])).toThrow(FaultSpecError);
    expect(() => validate(['degraded-operator=nosuchop'])).toThrow(
      /no ClusterOperator "nosuchop" in the rehearsal; the ClusterOperators are: /,
    );
  });

  it('says why machine-config cannot be faulted through the simulator', () => {
    expect(() => validate(['degraded-operator=machine-config'])).toThrow(
      /machine-config is run by the real machine-config-operator/,
    );
  });

  it('moves a kill point the update never shows back to the last one it shows, and says so', () => {
    const last = lastWaitPoint(b);
    expect(last?.at).toContain('clusteroperator/machine-config at run level 80');
    expect(last?.fraction).toBeGreaterThan(0.5);
    expect(last?.fraction).toBeLessThan(0.95);
    const r = validate([], ['cvo@99%']);
    expect(r.killCvoAt).toBe(last?.fraction);
    expect(r.notes[0]).toMatch(/^--kill cvo@99%: the update shows no progress past \d+% .*killed at \d+% instead/);
    expect(validate([], ['cvo@10%'])).toEqual({ killCvoAt: 0.1, notes: [] });
  });

  it('edit distance and did-you-mean', () => {
    expect(editDistance('wroker', 'worker')).toBe(2);
    expect(didYouMean('zzzzzz', ['worker'])).toBe('');
  });
});

describe('keelson rehearse with a mistyped target', { timeout: 120_000 }, () => {
  it('exits 2 before starting anything, naming the closest target', async () => {
    const r = await cli('rehearse', '--pause-pool', 'wroker', '--quiet', '--timeout', '30');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--pause-pool wroker: no pool "wroker" in the rehearsal (did you mean "worker"?)');
    expect(r.stdout).toBe('');
    const f = await cli('rehearse', '--fault', 'degraded-operator=nosuchop', '--quiet', '--timeout', '30');
    expect(f.code, f.stderr).toBe(2);
    expect(f.stderr).toContain('no ClusterOperator "nosuchop"');
  });
});
