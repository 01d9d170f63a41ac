import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { KubeClient, KubeConfig } from '@keelson/kube';
import { cli } from './cli-helpers.js';
import { humanAge, poolRows } from '../src/commands/mcp.js';

const MC = 'machineconfiguration.openshift.io';
let sb: Sandbox;
let c: KubeClient;
let dir: string;
let kubeconfig: string;

const pool = (
  name: string,
  spec: Record<string, unknown>,
  labels: Record<string, string> = {},
): Record<string, unknown> => ({
  apiVersion: `${MC}/v1`,
  kind: 'MachineConfigPool',
  metadata: { name, labels },
  spec: {
    machineConfigSelector: { matchLabels: { [`${MC}/role`]: name } },
    nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    ...spec,
  },
});

async function setStatus(name: string, status: Record<string, unknown>): Promise<void> {
  await c.request('PATCH', `/apis/${MC}/v1/machineconfigpools/${name}/status`, {
    body: { status },
    contentType: 'application/merge-patch+json',
  });
}

async function node(name: string, labels: Record<string, string>, annotations: Record<string, string>): Promise<void> {
  sb.setNodeReady(name, true, labels);
  await c.request('PATCH', `/api/v1/nodes/${name}`, {
    body: { metadata: { annotations } },
    contentType: 'application/merge-patch+json',
  });
}

const a = (cur: string, des: string, state: string, extra: Record<string, string> = {}): Record<string, string> => ({
  [`${MC}/currentConfig`]: cur,
  [`${MC}/desiredConfig`]: des,
  [`${MC}/state`]: state,
  ...extra,
});

beforeAll(async () => {
  sb = await startSandbox({ openshiftCrds: true });
  dir = mkdtempSync(join(tmpdir(), 'keelson-mcp-'));
  kubeconfig = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
  const kc = new KubeConfig();
  kc.loadFromString(sb.kubeconfigYaml());
  c = new KubeClient(kc);
  const cond = (t: string, s: string, message = ''): Record<string, string> => ({
    type: t,
    status: s,
    message,
    reason: '',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  });
  // worker: updating from v1 to v2, maxUnavailable 2
  await c.request('POST', `/apis/${MC}/v1/machineconfigpools`, {
    body: pool('worker', { maxUnavailable: 2, configuration: { name: 'rendered-worker-v2' } }),
  });
  await setStatus('worker', {
    configuration: { name: 'rendered-worker-v1' },
    machineCount: 4,
    readyMachineCount: 1,
    updatedMachineCount: 1,
    degradedMachineCount: 1,
    unavailableMachineCount: 2,
    conditions: [cond('Updated', 'False'), cond('Updating', 'True'), cond('Degraded', 'True')],
  });
  // infra: paused with a pending config
  await c.request('POST', `/apis/${MC}/v1/machineconfigpools`, {
    body: pool('infra', { paused: true, configuration: { name: 'rendered-infra-v2' } }),
  });
  await setStatus('infra', {
    configuration: { name: 'rendered-infra-v1' },
    machineCount: 1,
    readyMachineCount: 1,
    updatedMachineCount: 0,
    degradedMachineCount: 0,
    conditions: [
      cond('Updated', 'False'),
      cond('Updating', 'False', 'Pool is paused; will not update to MachineConfig rendered-infra-v2'),
      cond('Degraded', 'False'),
    ],
  });
  await c.request('POST', `/apis/${MC}/v1/machineconfigpools`, {
    body: pool('gpu', { configuration: { name: 'rendered-gpu-v1' } }),
  });
  const W = { 'node-role.kubernetes.io/worker': '' };
  await node(
    'worker-0',
    W,
    a('rendered-worker-v1', 'rendered-worker-v2', 'Working', {
      [`${MC}/desiredDrain`]: 'drain-rendered-worker-v2',
      [`${MC}/lastAppliedDrain`]: 'uncordon-rendered-worker-v1',
    }),
  );
  await node(
    'worker-1',
    W,
    a('rendered-worker-v1', 'rendered-worker-v1', 'Degraded', {
      [`${MC}/reason`]:
        'unexpected on-disk state validating against rendered-worker-v1: content mismatch for file "/etc/chrony.conf"',
    }),
  );
  await node('worker-2', W, a('rendered-worker-v2', 'rendered-worker-v2', 'Done'));
  await node('worker-3', W, a('rendered-worker-v1', 'rendered-worker-v1', 'Done'));
  await node(
    'infra-0',
    { ...W, 'node-role.kubernetes.io/infra': '' },
    a('rendered-infra-v1', 'rendered-infra-v1', 'Done'),
  );
  await node(
    'gpu-0',
    { ...W, 'node-role.kubernetes.io/gpu': '' },
    a('rendered-gpu-v0', 'rendered-gpu-v1', 'Degraded', {
      [`${MC}/reason`]:
        'failed to update OS to quay.io/x/os@sha256:2: error running rpm-ostree rebase --experimental ostree-unverified-registry:quay.io/x/os@sha256:2: exit status 1',
    }),
  );
  await node(
    'both-0',
    { ...W, 'node-role.kubernetes.io/infra': '', 'node-role.kubernetes.io/gpu': '' },
    a('rendered-worker-v1', 'rendered-worker-v1', 'Done'),
  );
  // a pod on worker-0 protected by a PDB that allows no disruption
  await c.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'db' } },
  });
  await c.request('POST', '/api/v1/namespaces/db/pods', {
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pg-0', labels: { app: 'pg' } },
      spec: { nodeName: 'worker-0', containers: [{ name: 'pg', image: 'pg' }] },
    },
  });
  await c.request('PATCH', '/api/v1/namespaces/db/pods/pg-0/status', {
    body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
    contentType: 'application/merge-patch+json',
  });
  await c.request('POST', '/apis/policy/v1/namespaces/db/poddisruptionbudgets', {
    body: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'pg-pdb' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'pg' } } },
    },
  });
  await sb.settle();
}, 30_000);

afterAll(async () => {
  await c.close();
  await sb.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('keelson mcp', { timeout: 30_000 }, () => {
  it('prints the oc get mcp columns', async () => {
    const r = await cli('mcp', '--kubeconfig', kubeconfig);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]?.split(/\s+/)).toEqual([
      'NAME',
      'CONFIG',
      'UPDATED',
      'UPDATING',
      'DEGRADED',
      'MACHINECOUNT',
      'READYMACHINECOUNT',
      'UPDATEDMACHINECOUNT',
      'DEGRADEDMACHINECOUNT',
      'AGE',
    ]);
    const worker = lines.find((l) => l.startsWith('worker'))?.split(/\s+/);
    expect(worker?.slice(0, 9)).toEqual(['worker', 'rendered-worker-v1', 'False', 'True', 'True', '4', '1', '1', '1']);
    expect(worker?.[9]).toMatch(/^\d+s$/);
  });

  it('-o json lists the pools', async () => {
    const r = await cli('mcp', '--kubeconfig', kubeconfig, '-o', 'json');
    const j = JSON.parse(r.stdout) as { kind: string; items: Array<{ metadata: { name: string } }> };
    expect(j.kind).toBe('List');
    expect(j.items.map((i) => i.metadata.name).sort()).toEqual(['gpu', 'infra', 'worker']);
  });

  it('why POOL: drain blocked by which PDB, on-disk mismatch, node in two custom pools', async () => {
    const r = await cli('mcp', 'why', 'worker', '--kubeconfig', kubeconfig);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('pool worker targets rendered-worker-v2: 1/4 nodes updated');
    expect(r.stdout).toContain('(maxUnavailable 2)');
    expect(r.stdout).toContain(
      'node worker-0 cannot be drained: PodDisruptionBudget db/pg-pdb allows 0 disruptions and protects pod db/pg-0 on it',
    );
    expect(r.stdout).toContain(
      'node worker-1 is Degraded: its files differ from rendered-worker-v1: unexpected on-disk state validating against rendered-worker-v1: content mismatch for file "/etc/chrony.conf"',
    );
    expect(r.stdout).toContain('/run/machine-config-daemon-force');
    expect(r.stdout).toContain('node worker-3 still runs rendered-worker-v1 and waits its turn for rendered-worker-v2');
    expect(r.stdout).toContain('node both-0 belongs to 2 custom roles, cannot proceed with this Node');
  });

  it('why POOL on a paused pool with pending config says how to unpause; -o json has codes', async () => {
    const r = await cli('mcp', 'why', 'infra', '--kubeconfig', kubeconfig, '-o', 'json');
    const j = JSON.parse(r.stdout) as { kind: string; findings: Array<{ code: string; action?: string }> };
    expect(j.kind).toBe('pool');
    const paused = j.findings.find((f) => f.code === 'PAUSED_PENDING');
    expect(paused?.action).toBe(`kubectl patch mcp infra --type merge -p '{"spec":{"paused":false}}'`);
  });

  it('why NODE explains one node; an unknown name is an error', async () => {
    // the node's MachineConfigNode, as the drain controller leaves it while the drain is refused
    const mcn = await c.request<Record<string, unknown>>('POST', `/apis/${MC}/v1/machineconfignodes`, {
      body: {
        apiVersion: `${MC}/v1`,
        kind: 'MachineConfigNode',
        metadata: { name: 'worker-0' },
        spec: {
          node: { name: 'worker-0' },
          pool: { name: 'worker' },
          configVersion: { desired: 'rendered-worker-v2' },
        },
      },
    });
    const t = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString().replace('.000', '');
    const drained =
      "Error: Node Drain has not succeeded. Error is: Cannot evict pod as it would violate the pod's disruption budget.";
    await c.request('PUT', `/apis/${MC}/v1/machineconfignodes/worker-0/status`, {
      body: {
        ...mcn,
        status: {
          observedGeneration: 2,
          configVersion: { desired: 'rendered-worker-v2', current: 'rendered-worker-v1' },
          conditions: [
            {
              type: 'Updated',
              status: 'False',
              reason: 'Updated',
              message: 'Node worker-0 needs an update',
              lastTransitionTime: t(1),
            },
            {
              type: 'Cordoned',
              status: 'True',
              reason: 'UpdateExecutedCordoned',
              message: 'Cordoned node.',
              lastTransitionTime: t(2),
            },
            {
              type: 'Drained',
              status: 'Unknown',
              reason: 'UpdateExecutedDrained',
              message: drained,
              lastTransitionTime: t(3),
            },
            { type: 'Resumed', status: 'False', reason: 'NotYetOccurred', message: 'x', lastTransitionTime: t(4) },
          ],
        },
      },
    });
    const r = await cli('mcp', 'why', 'worker-0', '--kubeconfig', kubeconfig);
    expect(r.stdout).toContain(
      'node worker-0 (pool worker): node worker-0 cannot be drained: PodDisruptionBudget db/pg-pdb',
    );
    expect(r.stdout).toContain(
      `- MachineConfigNode worker-0 (desired rendered-worker-v2, current rendered-worker-v1): Drained=Unknown (UpdateExecutedDrained): ${drained}`,
    );
    const both = await cli('mcp', 'why', 'both-0', '--kubeconfig', kubeconfig, '-o', 'json');
    expect((JSON.parse(both.stdout) as { findings: Array<{ code: string }> }).findings[0]?.code).toBe(
      'NODE_MULTIPLE_CUSTOM_POOLS',
    );
    const os = await cli('mcp', 'why', 'gpu-0', '--kubeconfig', kubeconfig);
    expect(os.stdout).toContain(
      'node gpu-0 could not update its operating system for rendered-gpu-v1: failed to update OS to quay.io/x/os@sha256:2: error running rpm-ostree rebase',
    );
    expect(os.stdout).toContain('rpm-ostree status');
    const bad = await cli('mcp', 'why', 'nope', '--kubeconfig', kubeconfig);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('no MachineConfigPool or node named nope (pools: gpu, infra, worker)');
  });
});

describe('keelson mcp describe (oc describe mcp)', { timeout: 30_000 }, () => {
  it("prints the pool like kubectl's generic describer, with its Events", async () => {
    await c.request('POST', '/api/v1/namespaces/default/events', {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'worker.1', namespace: 'default' },
        involvedObject: { kind: 'MachineConfigPool', name: 'worker', apiVersion: `${MC}/v1` },
        type: 'Normal',
        reason: 'SetDesiredConfig',
        message: 'Targeted node worker-0 to MachineConfig: rendered-worker-v2',
        source: { component: 'machineconfigcontroller-nodecontroller' },
        firstTimestamp: new Date().toISOString(),
        lastTimestamp: new Date().toISOString(),
        count: 1,
      },
    });
    const r = await cli('mcp', 'describe', 'worker', '--kubeconfig', kubeconfig);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Name: {9}worker\nNamespace:\nLabels: {7}<none>\nAnnotations: {2}<none>\nAPI Version: {2}machineconfiguration\.openshift\.io\/v1\nKind: {9}MachineConfigPool\nMetadata:\n/,
    );
    // tabwriter: the label line and Max Unavailable are one block, so aligned together (as kubectl prints them)
    expect(r.stdout).toContain(
      `Spec:\n  Configuration:\n    Name:  rendered-worker-v2\n  Machine Config Selector:\n    Match Labels:\n      machineconfiguration.openshift.io/role:  worker\n  Max Unavailable:${' '.repeat(29)}2\n  Node Selector:\n    Match Labels:\n      node-role.kubernetes.io/worker:\n`,
    );
    expect(r.stdout).toMatch(
      /Status:\n {2}Conditions:\n {4}Last Transition Time: {2}2026-01-01T00:00:00Z\n {4}Message: *\n {4}Reason: *\n {4}Status: {16}False\n {4}Type: {18}Updated\n/,
    );
    expect(r.stdout).toMatch(/\n {2}Degraded Machine Count: {5}1\n {2}Machine Count: {14}4\n/);
    expect(r.stdout).toMatch(
      /Events:\n {2}Type {4}Reason {12}Age +From +Message\n {2}---- {4}------ {12}---- +---- +-------\n {2}Normal {2}SetDesiredConfig {2}\S+ +machineconfigcontroller-nodecontroller {2}Targeted node worker-0 to MachineConfig: rendered-worker-v2\n$/,
    );
    const none = await cli('mcp', 'describe', 'infra', '--kubeconfig', kubeconfig);
    expect(none.stdout).toMatch(/\nEvents: {2}<none>\n$/);
    const missing = await cli('mcp', 'describe', 'nope', '--kubeconfig', kubeconfig);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('machineconfigpools.machineconfiguration.openshift.io "nope" not found');
  });
});

describe('mcp formatting', () => {
  it('ages like kubectl', () => {
    expect(
      [
        5_000,
        125_000,
        3_600_000,
        4 * 3_600_000 + 60_000,
        30 * 3_600_000,
        3 * 86_400_000 + 3_600_000,
        400 * 86_400_000,
      ].map(humanAge),
    ).toEqual(['5s', '2m5s', '60m', '4h1m', '30h', '3d1h', '400d']);
  });
  it('rows leave counts empty for a pool without status', () => {
    expect(poolRows([{ metadata: { name: 'x' }, spec: {} }], 0)).toEqual([
      ['x', '', '', '', '', '', '', '', '', '<unknown>'],
    ]);
  });
});
