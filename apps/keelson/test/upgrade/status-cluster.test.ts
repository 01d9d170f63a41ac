/**
 * `keelson upgrade status` as a child process against the embedded API server holding an update in progress:
 * ClusterVersion, platform ClusterOperators, master/worker MachineConfigPools, rendered MachineConfigs with their
 * release-image-version and Nodes annotated as the MCO daemon annotates them. Checks oc's sections, the node
 * tables (Draining / Pending / Unavailable / Completed), the worker pool table, the estimate and the health.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli } from '../cli-helpers.js';

vi.setConfig({ testTimeout: 60_000 });

let sb: Sandbox;
let dir: string;
let kubeconfig: string;
const NOW = Date.now();
const ago = (min: number): string => new Date(NOW - min * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const MCO = 'machineconfiguration.openshift.io/';

async function req(method: string, path: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = {
    method,
    headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${sb.url}${path}`, init);
  const out = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

/** Creates an object, then writes its status through /status as its controller would. */
async function create(collection: string, obj: Record<string, unknown>, status?: unknown): Promise<void> {
  const made = (await req('POST', collection, obj)) as { metadata: { name: string } };
  if (status === undefined) return;
  const path = `${collection}/${made.metadata.name}`;
  const live = (await req('GET', path)) as Record<string, unknown>;
  await req('PUT', `${path}/status`, { ...live, status });
}

const cond = (type: string, status: string, min: number, reason?: string, message?: string) => ({
  type,
  status,
  lastTransitionTime: ago(min),
  ...(reason !== undefined ? { reason } : {}),
  ...(message !== undefined ? { message } : {}),
});

async function clusterOperator(name: string, version: string, progressing: ReturnType<typeof cond>): Promise<void> {
  await create(
    '/apis/config.openshift.io/v1/clusteroperators',
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterOperator',
      metadata: { name, annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' } },
      spec: {},
    },
    {
      versions: [{ name: 'operator', version }],
      conditions: [cond('Available', 'True', 100), cond('Degraded', 'False', 100), progressing],
    },
  );
}

async function node(
  name: string,
  role: string,
  current: string,
  desired: string,
  extra: { state?: string; drain?: [string, string]; ready?: { status: string; min: number } } = {},
): Promise<void> {
  const annotations: Record<string, string> = {
    [`${MCO}currentConfig`]: current,
    [`${MCO}desiredConfig`]: desired,
    [`${MCO}state`]: extra.state ?? 'Done',
  };
  if (extra.drain) {
    annotations[`${MCO}desiredDrain`] = extra.drain[0];
    annotations[`${MCO}lastAppliedDrain`] = extra.drain[1];
  }
  const ready = extra.ready ?? { status: 'True', min: 300 };
  await create(
    '/api/v1/nodes',
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { [`node-role.kubernetes.io/${role}`]: '' }, annotations },
      spec: {},
    },
    {
      conditions: [
        {
          ...cond('Ready', ready.status, ready.min, ready.status === 'True' ? 'KubeletReady' : 'KubeletNotReady'),
          message: ready.status === 'True' ? 'kubelet is posting ready status' : 'container runtime is down',
          lastHeartbeatTime: ago(0),
        },
      ],
    },
  );
}

async function pool(name: string, config: string): Promise<void> {
  await create('/apis/machineconfiguration.openshift.io/v1/machineconfigpools', {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name },
    spec: {
      machineConfigSelector: { matchLabels: { [`${MCO}role`]: name } },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
      configuration: { name: config },
    },
  });
}

async function renderedConfig(name: string, version: string): Promise<void> {
  await create('/apis/machineconfiguration.openshift.io/v1/machineconfigs', {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, annotations: { [`${MCO}release-image-version`]: version } },
    spec: {},
  });
}

const IMG = (n: number): string => `quay.io/openshift-release-dev/ocp-release@sha256:${String(n).repeat(64)}`;

beforeAll(async () => {
  sb = await startSandbox({
    openshiftCrds: ['ClusterVersion', 'ClusterOperator', 'MachineConfigPool', 'MachineConfig'],
  });
  dir = await mkdtemp(join(tmpdir(), 'keelson-upgrade-status-'));
  kubeconfig = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
  await create(
    '/apis/config.openshift.io/v1/clusterversions',
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '6d8a2a5e-4a8b-4c39-9d64-2a1b4b9f3c11', desiredUpdate: { version: '4.18.4', image: IMG(4) } },
    },
    {
      desired: { version: '4.18.4', image: IMG(4) },
      observedGeneration: 1,
      versionHash: 'h',
      availableUpdates: null,
      history: [
        {
          state: 'Partial',
          startedTime: ago(40),
          completionTime: null,
          version: '4.18.4',
          image: IMG(4),
          verified: true,
        },
        {
          state: 'Completed',
          startedTime: ago(300),
          completionTime: ago(210),
          version: '4.18.3',
          image: IMG(3),
          verified: true,
        },
        {
          state: 'Completed',
          startedTime: ago(900),
          completionTime: ago(860),
          version: '4.18.2',
          image: IMG(2),
          verified: false,
        },
      ],
      conditions: [
        cond('Available', 'True', 800),
        cond('Failing', 'False', 40),
        cond('Progressing', 'True', 40, undefined, 'Working towards 4.18.4: 700 of 900 done (77% complete)'),
      ],
    },
  );
  await clusterOperator('etcd', '4.18.4', cond('Progressing', 'False', 30));
  await clusterOperator('kube-apiserver', '4.18.4', cond('Progressing', 'False', 25));
  await clusterOperator('dns', '4.18.4', cond('Progressing', 'False', 20));
  await clusterOperator(
    'machine-config',
    '4.18.3',
    cond('Progressing', 'True', 15, 'Updating', 'Working towards 4.18.4'),
  );
  for (const [n, v] of [
    ['rendered-master-old', '4.18.3'],
    ['rendered-master-new', '4.18.4'],
    ['rendered-worker-old', '4.18.3'],
    ['rendered-worker-new', '4.18.4'],
  ] as const)
    await renderedConfig(n, v);
  await pool('master', 'rendered-master-new');
  await pool('worker', 'rendered-worker-new');
  await node('master-0', 'master', 'rendered-master-new', 'rendered-master-new');
  await node('master-1', 'master', 'rendered-master-old', 'rendered-master-new', {
    state: 'Working',
    drain: ['drain-rendered-master-new', 'uncordon-rendered-master-old'],
  });
  await node('master-2', 'master', 'rendered-master-old', 'rendered-master-old');
  await node('worker-0', 'worker', 'rendered-worker-old', 'rendered-worker-old');
  await node('worker-1', 'worker', 'rendered-worker-old', 'rendered-worker-old', {
    ready: { status: 'False', min: 30 },
  });
});
afterAll(async () => {
  await sb.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Splits oc's tabwriter rows (3-space padding) into cells. */
function rows(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const i = lines.indexOf(lines.find((l) => l.startsWith(header)) ?? '\u0000');
  expect(i, `no "${header}" table in:\n${text}`).toBeGreaterThanOrEqual(0);
  const out: string[][] = [];
  for (const l of lines.slice(i + 1)) {
    if (l.trim() === '') break;
    out.push(l.trimEnd().split(/ {2,}/));
  }
  return out;
}

describe('keelson upgrade status (child process, update in progress)', () => {
  it("prints oc's control plane, node tables, worker pools and update health", async () => {
    const r = await cli('upgrade', 'status', '--kubeconfig', kubeconfig);
    expect(r.code, r.stderr).toBe(0);
    // no monitoring in this cluster: oc says so first and goes on without alerts
    expect(r.stdout).toMatch(
      /^Unable to fetch alerts, ignoring alerts in 'Update Health': {2}failed to get alerts from Thanos: .+\n= Control Plane =\n/,
    );
    const t = r.stdout.slice(r.stdout.indexOf('\n') + 1);
    expect(t).toMatch(
      /^= Control Plane =\nAssessment: {6}Progressing\nTarget Version: {2}4\.18\.4 \(from 4\.18\.3\)\nUpdating: {8}machine-config\nCompletion: {6}75% \(3 operators updated, 1 updating, 0 waiting\)\nDuration: {8}40m \(Est\. Time Remaining: [^)]+\)\nOperator Health: 4 Healthy\n\nControl Plane Nodes\n/,
    );
    expect(rows(t, 'NAME  ')).toEqual([
      ['master-1', 'Progressing', 'Draining', '4.18.3', '+10m'],
      ['master-2', 'Outdated', 'Pending', '4.18.3', '?'],
      ['master-0', 'Completed', 'Updated', '4.18.4', '-'],
    ]);
    expect(t).toContain('\n= Worker Upgrade =\n\nWORKER POOL   ASSESSMENT   COMPLETION   STATUS\n');
    expect(rows(t, 'WORKER POOL')).toEqual([
      ['worker', 'Pending', '0% (0/2)', '1 Available, 0 Progressing, 0 Draining'],
    ]);
    const workers = t.slice(t.indexOf('Worker Pool Nodes: worker'));
    expect(rows(workers, 'NAME  ')).toEqual([
      ['worker-1', 'Unavailable', 'Pending', '4.18.3', '?', 'Not ready'],
      ['worker-0', 'Outdated', 'Pending', '4.18.3', '?'],
    ]);
    const health = rows(t, 'SINCE');
    expect(health).toHaveLength(1);
    expect(health[0]?.slice(1)).toEqual(['Warning', 'Update Speed', 'Node worker-1 is not ready']);
    expect(health[0]?.[0]).toMatch(/^30m\d*s?$/);
    expect(t).toContain(
      '\nRun with --details=health for additional description and links to related online documentation\n',
    );
  });

  it('--details=all adds the updating operators and the health details; a bad --details is a usage error', async () => {
    const r = await cli('upgrade', 'status', '--kubeconfig', kubeconfig, '--details=all');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /\nUpdating Cluster Operators\nNAME +SINCE +REASON +MESSAGE\nmachine-config {3}15m\d*s? +Updating +Working towards 4\.18\.4\n/,
    );
    expect(r.stdout).toContain(
      '  Resources:\n    nodes: worker-1\n  Description: Node has a Ready!=True condition with Reason "Not ready" and message "container runtime is down"\n',
    );
    const bad = await cli('upgrade', 'status', '--kubeconfig', kubeconfig, '--details', 'everything');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'invalid value for --details: everything (must be one of none, all, nodes, health, operators)',
    );
  });

  it('-o json carries the same assessment as data', async () => {
    const r = await cli('upgrade', 'status', '--kubeconfig', kubeconfig, '-o', 'json');
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as {
      updating: boolean;
      controlPlaneStatus: { assessment: string; operators: { updated: number; total: number } };
      controlPlaneNodes: { nodes: { name: string; phase: string }[] };
      workerPools: { name: string; assessment: string }[];
      updateHealth: { summary: string }[];
    };
    expect(d.updating).toBe(true);
    expect(d.controlPlaneStatus).toMatchObject({ assessment: 'Progressing', operators: { updated: 3, total: 4 } });
    expect(d.controlPlaneNodes.nodes.map((n) => [n.name, n.phase])).toEqual([
      ['master-1', 'Draining'],
      ['master-2', 'Pending'],
      ['master-0', 'Updated'],
    ]);
    expect(d.workerPools).toMatchObject([{ name: 'worker', assessment: 'Pending' }]);
    expect(d.updateHealth.map((i) => i.summary)).toEqual(['Node worker-1 is not ready']);
  });
});
