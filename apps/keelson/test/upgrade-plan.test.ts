/**
 * `keelson upgrade plan` as a real child process, on rehearsal releases A → B: as directories, and as signed images
 * from the in-process registry with the local update service (graph + PromQL risk) over loopback.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publishRehearsalReleases, type PublishedReleases } from '@keelson/payload-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { computeMaxUnavailable, computePoolPlan } from '../src/plan/pools.js';
import {
  computePreconditions,
  decideAcceptance,
  offlineClusterVersion,
  withGraphVerdict,
  type GraphVerdict,
} from '../src/plan/preconditions.js';
import type { UpgradePlan } from '../src/plan/compute-plan.js';
import { startUpdateService, type UpdateService } from '@keelson/rehearsal';
import { cli } from './cli-helpers.js';

let work = '';
let pub: PublishedReleases;
let svc: UpdateService;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'upgrade-plan-'));
  pub = await publishRehearsalReleases({ out: join(work, 'releases') });
  svc = await startUpdateService({
    from: { version: pub.from.version, payload: pub.from.pullSpec },
    to: { version: pub.to.version, payload: pub.to.pullSpec },
  });
}, 60_000);

afterAll(async () => {
  await svc.close();
  await pub.close();
  await rm(work, { recursive: true, force: true });
});

describe('keelson upgrade plan', { timeout: 60_000 }, () => {
  it('plans A -> B from directories: changes, deletions, run levels in CVO order, pools that reboot', async () => {
    const r = await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as UpgradePlan;
    expect(plan.from).toBe('4.18.7');
    expect(plan.manifests.deleted.map((d) => d.name)).toEqual(['openshift-console-operator/legacy-console-plugin']);
    expect(plan.manifests.changed.map((c) => c.file)).toContain(pub.changedManifest);
    const levels = plan.runLevels.map((l) => l.level).filter((l) => l !== '(none)');
    expect(levels).toEqual([...levels].sort());
    expect(levels[0]).toBe('00');
    const mco = plan.runLevels.find((l) => l.operators.some((o) => o.name === 'machine-config'));
    expect(mco?.level).toBe('80');
    expect(mco?.operators.find((o) => o.name === 'machine-config')).toEqual({
      name: 'machine-config',
      from: '4.18.7',
      to: '4.18.8',
    });
    const worker = plan.pools.find((p) => p.name === 'worker');
    expect(worker?.action).toBe('reboot');
    expect(worker?.to).toMatch(/^rendered-worker-[0-9a-f]{32}$/);
    expect(worker?.from).not.toBe(worker?.to);
    expect(worker?.changes).toEqual(expect.arrayContaining(['osUpdate', 'kargs']));
    expect(worker?.kargs).toContain(`--append=${pub.addedKernelArgument}`);
    expect(worker?.estimatedSeconds).toBe(3 * (60 + 15 + 240));
    expect(plan.preconditions.find((p) => p.name === 'ClusterVersionRecommendedUpdate')?.state).toBe('NotEvaluated');
    expect(plan.acceptance).toEqual({ verdict: 'Accepted', notEvaluated: ['ClusterVersionRecommendedUpdate'] });
  });

  it('plans from signed images with the update service: signature, risks, custom pools and user MachineConfigs', async () => {
    const mcs = join(work, 'mcs');
    await mkdir(mcs, { recursive: true });
    await writeFile(
      join(mcs, '99-infra-chrony.yaml'),
      'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-infra-chrony\n  labels:\n    machineconfiguration.openshift.io/role: infra\nspec:\n  config:\n    ignition:\n      version: 3.2.0\n    storage:\n      files:\n      - path: /etc/chrony.conf\n        mode: 420\n        contents:\n          source: data:,pool%20example.com\n',
    );
    const pools = join(work, 'pools.yaml');
    await writeFile(
      pools,
      'pools:\n- {name: master, nodes: 3}\n- {name: worker, nodes: 10, maxUnavailable: "20%"}\n- name: infra\n  nodes: 2\n  paused: true\n  machineConfigSelector:\n    matchExpressions:\n    - {key: machineconfiguration.openshift.io/role, operator: In, values: [worker, infra]}\n',
    );
    const r = await cli(
      'upgrade',
      'plan',
      '--from',
      `docker://${pub.from.pullSpec}`,
      '--to',
      `docker://${pub.to.pullSpec}`,
      '--upstream',
      svc.upstream,
      '--channel',
      svc.channel,
      '--prometheus',
      svc.prometheus,
      '--machineconfigs',
      mcs,
      '--pools',
      pools,
      '-o',
      'json',
    );
    expect(r.stderr).toBe('');
    const plan = JSON.parse(r.stdout) as UpgradePlan;
    expect(plan.signature?.verified).toBe(true);
    expect(plan.signature?.detail).toContain(pub.key.fingerprint);
    expect(plan.preconditions.find((p) => p.name === 'ClusterVersionRecommendedUpdate')?.state).toBe('Passed');
    expect(plan.updates?.recommended.map((u) => u.version)).toEqual([pub.to.version]);
    expect(plan.updates?.conditional).toEqual([
      {
        version: svc.conditionalVersion,
        image: expect.stringMatching(/@sha256:c{64}$/) as unknown,
        risks: ['RehearsalPlatformNoneIngressRegression'],
        recommended: {
          status: 'False',
          reason: 'RehearsalPlatformNoneIngressRegression',
          message: expect.stringContaining('lose ingress') as unknown,
        },
      },
    ]);
    expect(plan.acceptance).toEqual({ verdict: 'Accepted' });
    const worker = plan.pools.find((p) => p.name === 'worker');
    expect(worker?.maxUnavailable).toBe(2);
    expect(worker?.batches).toBe(5);
    const infra = plan.pools.find((p) => p.name === 'infra');
    expect(infra?.to).toMatch(/^rendered-infra-/);
    expect(infra?.paused).toBe(true);
    expect(infra?.estimatedSeconds).toBe(0);
    const text = await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '--pools', pools);
    expect(text.stdout).toContain('PAUSED');
    expect(text.stdout).toMatch(/\n {2}worker {3,}10 {3,}2 {3,}false {3,}drain and reboot {3,}5 {3,}26m 15s\n/);
  });

  it('evaluates a risk it cannot query as Recommended=Unknown (upstream EvaluationFailed)', async () => {
    const r = await cli(
      'upgrade',
      'plan',
      '--from',
      pub.from.dir,
      '--to',
      pub.to.dir,
      '--upstream',
      svc.upstream,
      '--channel',
      svc.channel,
      '--prometheus',
      'http://127.0.0.1:1',
      '-o',
      'json',
    );
    expect(r.stderr).toBe('');
    const plan = JSON.parse(r.stdout) as UpgradePlan;
    expect(plan.updates?.conditional[0]?.recommended).toMatchObject({ status: 'Unknown', reason: 'EvaluationFailed' });
    const text = await cli(
      'upgrade',
      'plan',
      '--from',
      pub.from.dir,
      '--to',
      pub.to.dir,
      '--upstream',
      svc.upstream,
      '--channel',
      svc.channel,
      '--prometheus',
      'http://127.0.0.1:1',
    );
    expect(text.stdout).toContain(
      `Upstream: ${svc.upstream}\nChannel: ${svc.channel}\n\nRecommended updates:\n\n  VERSION     IMAGE\n  ${pub.to.version}`,
    );
    expect(text.stdout).toContain(`Updates with known issues:\n\n  Version: ${svc.conditionalVersion}\n`);
    expect(text.stdout).toContain('  Recommended: Unknown\n  Reason: EvaluationFailed\n');
  });

  it('refuses bad input with a usage or input error', async () => {
    expect((await cli('upgrade', 'plan', '--from', pub.from.dir)).code).toBe(2);
    const missing = await cli('upgrade', 'plan', '--from', join(work, 'nope'), '--to', pub.to.dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--from/);
    const pools = join(work, 'bad-pools.yaml');
    await writeFile(pools, 'pools:\n- {name: worker, nodes: -1}\n');
    const bad = await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '--pools', pools);
    expect(bad.stderr).toMatch(/pools\[0\]\.nodes/);
  });
});

describe('keelson upgrade plan as an admin reads it (issue 23 #15)', { timeout: 60_000 }, () => {
  it("says which node counts it assumed without a cluster, and shows each pool's node steps: drain, rebase, kargs, reboot", async () => {
    const r = await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'Note: no cluster was read and no --pools given: assumed master 3 nodes, worker 3 nodes (the pools 4.18.8 declares, 3 nodes each); give --pools FILE or --kubeconfig for your sizes',
    );
    expect(r.stdout).toMatch(
      / {2}worker: rendered-worker-\w+ -> rendered-worker-\w+ \[Reboot\]\n(?:.*\n)*? {4}on each node, in order:\n {6}1\. cordon and drain the node.*\n(?: {6}\d\. .*\n)*? {6}\d\. rpm-ostree rebase --experimental ostree-unverified-registry:\S+\n {6}\d\. rpm-ostree kargs .*--append=systemd\.unified_cgroup_hierarchy=1\n {6}\d\. reboot into the new deployment \(systemctl reboot\)\n {6}\d\. uncordon the node\n/,
    );
    const withPools = join(work, 'sized.yaml');
    await writeFile(withPools, 'pools:\n- {name: worker, nodes: 5}\n');
    expect(
      (await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '--pools', withPools)).stdout,
    ).not.toContain('assumed');
  });

  it('gives a custom pool without a selector the OpenShift default: worker + its role (it inherits the worker configs)', async () => {
    const pools = join(work, 'custom.yaml');
    await writeFile(pools, 'pools:\n- {name: infra, nodes: 2}\n');
    const r = await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '--pools', pools, '-o', 'json');
    const plan = JSON.parse(r.stdout) as UpgradePlan;
    const infra = plan.pools.find((p) => p.name === 'infra');
    expect(infra?.from).toMatch(/^rendered-infra-[0-9a-f]{32}$/);
    expect(infra?.to).toMatch(/^rendered-infra-[0-9a-f]{32}$/);
    expect(infra?.kargs).toContain(`--append=${pub.addedKernelArgument}`);
    expect(infra?.error).toBeUndefined();
  });

  it('refuses two MachineConfigs of the same name, and one named like a release MachineConfig', async () => {
    const dir = join(work, 'dup-mcs');
    await mkdir(dir, { recursive: true });
    const mc = (name: string, karg: string): string =>
      `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: ${name}\n  labels: {machineconfiguration.openshift.io/role: worker}\nspec:\n  kernelArguments: [${karg}]\n`;
    await writeFile(join(dir, 'a.yaml'), mc('99-worker-kargs', 'nosmt'));
    await writeFile(join(dir, 'b.yaml'), mc('99-worker-kargs', 'nosmt'));
    const r = await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '--machineconfigs', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `two MachineConfigs named 99-worker-kargs (${join(dir, 'a.yaml')} and ${join(dir, 'b.yaml')})`,
    );
    const dir2 = join(work, 'clash-mcs');
    await mkdir(dir2, { recursive: true });
    await writeFile(join(dir2, 'a.yaml'), mc('50-worker-release-base', 'nosmt'));
    const c = await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '--machineconfigs', dir2);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('MachineConfig 50-worker-release-base has the name of one the release ships');
  });

  it('-o yaml', async () => {
    const r = await cli('upgrade', 'plan', '--from', pub.from.dir, '--to', pub.to.dir, '-o', 'yaml');
    expect(r.code, r.stderr).toBe(0);
    const plan = parseYaml(r.stdout) as UpgradePlan;
    expect(plan.to).toBe('4.18.8');
    expect(plan.pools.find((p) => p.name === 'worker')?.steps.length).toBeGreaterThan(3);
  });
});

describe('plan decisions', () => {
  it('scales maxUnavailable like the MCO', () => {
    expect(computeMaxUnavailable(undefined, 10)).toBe(1);
    expect(computeMaxUnavailable('10%', 5)).toBe(1);
    expect(computeMaxUnavailable('50%', 7)).toBe(3);
    expect(computeMaxUnavailable(0, 3)).toBe(1);
    expect(() => computeMaxUnavailable('x', 3)).toThrow(TypeError);
  });
  it('an unchanged pool does nothing', () => {
    const mc = {
      metadata: { name: '00-worker', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: { config: { ignition: { version: '3.5.0' } } },
    };
    const side = { configs: [mc], controllerConfig: { baseOSContainerImage: 'quay.io/x@sha256:' + 'a'.repeat(64) } };
    const p = computePoolPlan({ name: 'worker', nodes: 4 }, side, side);
    expect(p.action).toBe('none');
    expect(p.estimatedSeconds).toBe(0);
    expect(p.from).toBe(p.to);
  });
  const offline = (current: string, target: string, graph?: GraphVerdict): ReturnType<typeof computePreconditions> => {
    const cv = offlineClusterVersion({ version: current, image: 'img' });
    return computePreconditions(graph === undefined ? cv : withGraphVerdict(cv, graph), target, {
      live: false,
      graph: graph !== undefined,
    });
  };
  it('judges preconditions with the CVO functions and the upstream reasons', () => {
    expect(offline('4.18.7', '4.18.3').results.find((p) => p.name === 'ClusterVersionRollback')?.reason).toBe(
      'LowDesiredVersion',
    );
    expect(offline('4.16.1', '4.18.3').results.find((p) => p.name === 'ClusterVersionGiantHop')?.reason).toBe(
      'MultipleMinorVersionsUpdate',
    );
    expect(offline('4.17.1', '4.18.3').results.find((p) => p.name === 'ClusterVersionUpgradeable')?.state).toBe(
      'NotEvaluated',
    );
    expect(offline('4.17.1', '4.17.3').results.find((p) => p.name === 'ClusterVersionUpgradeable')?.state).toBe(
      'Passed',
    );
    const graph: GraphVerdict = {
      upstream: 'u',
      channel: 'c',
      recommended: [{ version: '4.18.8', image: 'i8' }],
      conditional: [
        {
          version: '4.18.9',
          image: 'i9',
          risks: ['Risky'],
          recommended: { status: 'False', reason: 'Risky', message: 'bad' },
        },
      ],
    };
    const rec = offline('4.18.7', '4.18.9', graph);
    expect(rec.results.find((p) => p.name === 'ClusterVersionRecommendedUpdate')).toEqual({
      name: 'ClusterVersionRecommendedUpdate',
      state: 'Failed',
      warning: true,
      reason: 'Risky',
      message: 'Update from 4.18.7 to 4.18.9 is not recommended:\n\nbad',
    });
    expect(offline('4.18.7', '4.18.10', graph).errors[0]?.message).toBe(
      'RetrievedUpdates=True (), so the update from 4.18.7 to 4.18.10 is probably neither recommended nor supported.',
    );
  });
  it('decides acceptance like the CVO: signature first, then the preconditions summary, force', () => {
    const errors = offline('4.16.1', '4.18.3').errors;
    expect(decideAcceptance({ version: '4.18.3', image: 'img@x', errors, force: false })).toEqual({
      verdict: 'Blocked',
      reason: 'PreconditionChecks',
      message:
        'Preconditions failed for payload loaded version="4.18.3" image="img@x": Precondition "ClusterVersionGiantHop" failed because of "MultipleMinorVersionsUpdate": 4.18.3 is more than one minor version beyond the current target 4.16.1 (4.18 > 4.(16+1)), and only updates within the current minor version or to the next minor version are supported.',
    });
    const unsigned = { verified: false, detail: 'verification is not possible' };
    expect(
      decideAcceptance({ version: '4.18.3', image: 'img@x', errors: [], signature: unsigned, force: false }),
    ).toEqual({
      verdict: 'Blocked',
      reason: 'RetrievePayload',
      message:
        'Retrieving payload failed version="4.18.3" image="img@x" failure=The update cannot be verified: verification is not possible',
    });
    const forced = decideAcceptance({ version: '4.18.3', image: 'img@x', errors, signature: unsigned, force: true });
    expect(forced.verdict).toBe('AcceptedWithRisks');
    expect(forced.message?.split('\n')[0]).toBe(
      'Target release version="4.18.3" image="img@x" cannot be verified, but continuing anyway because the update was forced: The update cannot be verified: verification is not possible',
    );
    expect(forced.message).toMatch(/\nForced through blocking failures: Precondition "ClusterVersionGiantHop"/);
  });
});
