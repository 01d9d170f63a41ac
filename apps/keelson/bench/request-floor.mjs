#!/usr/bin/env node
// The per-request floor of this architecture (issue 25 goal 3): what one API request costs in CPU when the API
// server, the controllers and the daemons share one process, as in `keelson rehearse`. One process starts the
// embedded API server (@keelson/kube-sandbox, plain HTTP on loopback, as the rehearsal does), creates `--nodes`
// Nodes of a rehearsal's size (labels, the MCO's annotations, conditions, addresses, capacity, images: ~4 KiB of
// JSON), opens one watch per Node selected by `metadata.name` (each daemon's) and `--watchers` watches of all Nodes
// (the MCO's shared informer, the rehearsal's monitor, ...), every one decoding its events with @keelson/kube's
// client as the components do. Then it sends requests one after the other through @keelson/kube's KubeClient and
// measures the process's CPU time (user + sys, process.cpuUsage) per request, both ends and the watch fan-out
// included:
//
//   get        GET of one Node (no write, no watch event)
//   patch      merge patch of one annotation of one Node (a daemon's or controller's typical write), its events
//              delivered to the Node's own watch and to every watch of all Nodes
//   patch-0    the same with no watch of all Nodes (only the per-Node watches: one event per request)
//   status     PUT of the Node's status subresource (a heartbeat-sized write of the whole object)
//
// and prints, per scenario, CPU µs per request and what `--requests-per-node` requests per node cost at that floor,
// beside the goal of 0.015 CPU-s per node.
//
// Usage (after a build): node bench/request-floor.mjs [--nodes 300] [--watchers 4] [--requests 2000]
//                        [--requests-per-node 60] [--json FILE]
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { KubeClient, KubeConfig } from '@keelson/kube';
import { startSandbox } from '@keelson/kube-sandbox';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '300' },
    watchers: { type: 'string', default: '4' },
    requests: { type: 'string', default: '2000' },
    'requests-per-node': { type: 'string', default: '60' },
    json: { type: 'string' },
  },
});
const NODES = Number(values.nodes);
const WATCHERS = Number(values.watchers);
const REQUESTS = Number(values.requests);
const PER_NODE = Number(values['requests-per-node']);
const GOAL_CPU_PER_NODE = 0.015;

const NodesRes = { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false };

/** A Node as a rehearsal's virtual node looks after its install (sizes as there). */
function nodeObject(name) {
  const ann = {
    'machineconfiguration.openshift.io/currentConfig': 'rendered-worker-0123456789abcdef0123456789abcdef',
    'machineconfiguration.openshift.io/desiredConfig': 'rendered-worker-0123456789abcdef0123456789abcdef',
    'machineconfiguration.openshift.io/desiredDrain': 'uncordon-rendered-worker-0123456789abcdef0123456789abcdef',
    'machineconfiguration.openshift.io/lastAppliedDrain': 'uncordon-rendered-worker-0123456789abcdef0123456789abcdef',
    'machineconfiguration.openshift.io/state': 'Done',
    'machineconfiguration.openshift.io/reason': '',
    'machineconfiguration.openshift.io/post-config-action': '',
    'machineconfiguration.openshift.io/lastSyncedControllerConfigResourceVersion': '12345',
    'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
  };
  const labels = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'node-role.kubernetes.io/worker': '',
    'node.openshift.io/os_id': 'rhel',
  };
  const t = '2026-01-01T00:00:00Z';
  const cond = (type, status, reason) => ({
    type,
    status,
    reason,
    message: `kubelet ${reason}`,
    lastHeartbeatTime: t,
    lastTransitionTime: t,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels, annotations: ann },
    spec: { providerID: `keelson://${name}` },
    status: {
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID'),
        cond('Ready', 'True', 'KubeletReady'),
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: name },
      ],
      capacity: { cpu: '4', memory: '16393576Ki', pods: '250', 'ephemeral-storage': '125293548Ki' },
      allocatable: { cpu: '3500m', memory: '15242600Ki', pods: '250', 'ephemeral-storage': '114396791822' },
      nodeInfo: {
        machineID: '0123456789abcdef0123456789abcdef',
        systemUUID: '01234567-89ab-cdef-0123-456789abcdef',
        bootID: '01234567-89ab-cdef-0123-456789abcdef',
        kernelVersion: '5.14.0-427.el9.x86_64',
        osImage: 'Red Hat Enterprise Linux CoreOS 9.6',
        containerRuntimeVersion: 'cri-o://1.33.0',
        kubeletVersion: 'v1.33.2',
        kubeProxyVersion: 'v1.33.2',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: Array.from({ length: 8 }, (_, i) => ({
        names: [`quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${String(i).repeat(64)}`],
        sizeBytes: 500_000_000 + i,
      })),
    },
  };
}

function cpuSeconds(u) {
  return (u.user + u.system) / 1e6;
}

/** Runs `n` requests one after the other; returns CPU seconds and wall seconds per request. */
async function measure(n, fn) {
  await settle();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  await settle();
  const cpu = cpuSeconds(process.cpuUsage(c0));
  const wall = (performance.now() - t0) / 1000;
  return { cpuPerRequest: cpu / n, wallPerRequest: wall / n };
}

/** Lets the watch events of the last requests arrive (they are counted in the CPU of their requests). */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 50));
}

const sb = await startSandbox({ historySize: 20_000 });
const kc = new KubeConfig();
kc.loadFromString(sb.kubeconfigYaml());
const client = new KubeClient(kc, { userAgent: 'request-floor' });
const nodes = client.resource(NodesRes);
const names = Array.from({ length: NODES }, (_, i) => `worker-${i}`);
for (const n of names) await nodes.create(nodeObject(n));

let events = 0;
// a client holds at most 64 sockets and a watch keeps one: the watches get clients of their own, 50 watches each
const watchClients = [];
const watchNodes = (i) => {
  const k = Math.floor(i / 50);
  watchClients[k] ??= new KubeClient(kc, { userAgent: `request-floor-watch-${k}` });
  return watchClients[k].resource(NodesRes);
};
const stop = new AbortController();
const everyNode = new AbortController();
const watch = (i, opts, signal) =>
  void watchNodes(i)
    .watch({ ...opts, signal, resourceVersion: '0' }, () => {
      events++;
    })
    .catch(() => undefined);
names.forEach((n, i) => watch(i, { fieldSelector: `metadata.name=${n}` }, stop.signal));
for (let i = 0; i < WATCHERS; i++) watch(NODES + i, {}, everyNode.signal);
await new Promise((r) => setTimeout(r, 1000));

const body = JSON.stringify(nodeObject('x')).length;
const pick = (i) => names[i % names.length];
const patch = (i) =>
  nodes.patch(pick(i), { metadata: { annotations: { 'keelson.io/bench': String(i) } } }, { type: 'merge' });
const results = {};
const load0 = loadavg()[0];
// warm-up (JIT, connection pool)
await measure(200, (i) => nodes.get(pick(i)));
await measure(200, patch);
results.get = await measure(REQUESTS, (i) => nodes.get(pick(i)));
let before = events;
results.patch = await measure(REQUESTS, patch);
results.patch.eventsPerRequest = (events - before) / REQUESTS;
results.status = await measure(REQUESTS, async (i) => {
  const n = await nodes.get(pick(i));
  n.status.conditions[3].lastHeartbeatTime = new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString();
  return nodes.updateStatus(n);
});
results.status.note = 'GET + PUT status: two requests, per pair';
everyNode.abort();
await new Promise((r) => setTimeout(r, 200));
before = events;
results['patch-0'] = await measure(REQUESTS, patch);
results['patch-0'].eventsPerRequest = (events - before) / REQUESTS;
const load1 = loadavg()[0];
stop.abort();
await client.close();
for (const c of watchClients) await c.close();
await sb.stop();

console.log(
  `request floor: ${NODES} Nodes (${body} B of JSON each), ${NODES} per-Node watches + ${WATCHERS} watches of all Nodes, ` +
    `${REQUESTS} requests per scenario, one process (server + client + watchers); load ${load0.toFixed(1)} → ${load1.toFixed(1)}`,
);
for (const [k, r] of Object.entries(results)) {
  const floor = r.cpuPerRequest * PER_NODE;
  console.log(
    `  ${k.padEnd(8)} ${(r.cpuPerRequest * 1e6).toFixed(0).padStart(6)} CPU-µs/request` +
      `${r.eventsPerRequest !== undefined ? ` (${r.eventsPerRequest.toFixed(1)} watch events each)` : ''}` +
      `  wall ${(r.wallPerRequest * 1e3).toFixed(2)} ms` +
      `  → ${PER_NODE} requests/node: ${floor.toFixed(4)} CPU-s/node (${(floor / GOAL_CPU_PER_NODE).toFixed(2)}× the 0.015 goal)` +
      `${r.note ? `  [${r.note}]` : ''}`,
  );
}
const perEvent =
  (results.patch.cpuPerRequest - results['patch-0'].cpuPerRequest) /
  Math.max(1e-9, results.patch.eventsPerRequest - results['patch-0'].eventsPerRequest);
console.log(`  one more watch event delivered: ${(perEvent * 1e6).toFixed(0)} CPU-µs`);
if (values.json !== undefined)
  await writeFile(
    values.json,
    `${JSON.stringify({ nodes: NODES, watchers: WATCHERS, requests: REQUESTS, bodyBytes: body, load: [load0, load1], results, perEventCpuS: perEvent }, null, 2)}\n`,
  );
process.exit(0);
