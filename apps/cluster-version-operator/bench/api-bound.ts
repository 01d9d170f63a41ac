/**
 * The API bound of a sync, from the requests the run really made:
 * - every API request of the operator is attributed to its task-graph node (the node scope of `runPayload`, read in
 *   `http.client.request.start`);
 * - a probe of the same request mix (create, update, read, delete of copies of payload manifests, CRDs apart) measures
 *   the cost of each request class on this server; it runs before and after the sync and the two are averaged;
 * - the bound is the larger of the critical path (requests of one node serial at their probed latency, nodes in
 *   parallel as the graph allows: upstream's Initializing runs every node at once, `maxWorkers = len(graph.Nodes)`) and
 *   the CPU of all of the operator's requests (the server, the operator and the simulator share one event loop, so no
 *   two requests' CPU overlaps: that sum is the least wall time any schedule needs).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import type { KubeClient } from '@keelson/kube';
import type { TaskNode } from '@keelson/manifest-graph';
import type { Manifest } from '@keelson/release-payload';
import { RestMapper, type RestMapping } from '@keelson/cluster-version';

/**
 * Time (ms) this process's main thread has waited on a run queue, ready to run while other processes had the CPUs
 * (Linux `/proc/self/schedstat`, second field); undefined where the kernel does not tell. Subtracted from wall times it
 * leaves what the run would take on an idle machine.
 */
export function runQueueWaitMs(): number | undefined {
  try {
    const waited = Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]);
    return Number.isFinite(waited) ? waited / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/** A request class: verb and whether the object is a CustomResourceDefinition (their writes compile schemas). */
export type RequestClass = `${'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OTHER'} ${'crd' | 'obj'}`;

/** One request the operator made. */
interface Seen {
  node: number | undefined;
  method: string;
  path: string;
}

/** Records the process's HTTP client requests of one User-Agent with their graph node while `active`. */
export class RequestRecorder {
  readonly seen: Seen[] = [];
  active = false;
  private readonly onStart = (m: unknown): void => {
    if (!this.active) return;
    const req = (m as { request: ClientRequest }).request;
    const ua = req.getHeader('user-agent');
    if (typeof ua !== 'string' || !ua.startsWith(this.userAgent)) return;
    this.seen.push({ node: this.currentNode(), method: req.method, path: req.path });
  };
  constructor(
    private readonly userAgent: string,
    /** `currentGraphNode` of the operator module under measurement. */
    private readonly currentNode: () => number | undefined,
  ) {
    subscribe('http.client.request.start', this.onStart);
  }
  close(): void {
    unsubscribe('http.client.request.start', this.onStart);
  }
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function classOf(method: string, path: string): RequestClass {
  const verb = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].includes(method) ? method : 'OTHER';
  return `${verb as 'GET'} ${path.startsWith(CRD_PATH) ? 'crd' : 'obj'}`;
}

/**
 * Mean cost per request class as a probe measured it: wall time (latency), wall time less the run-queue wait (the
 * latency on an idle machine) and CPU of this process.
 */
export type ClassCosts = Map<RequestClass, { ms: number; readyMs: number; cpuMs: number; n: number }>;

/** A probe copy of a manifest (renamed; CRDs get their own group) or undefined when it cannot be copied. */
function probeCopy(m: Manifest, i: number): Record<string, unknown> | undefined {
  const obj = structuredClone(m.object) as Record<string, unknown>;
  delete obj['status'];
  const meta = { ...((obj['metadata'] ?? {}) as Record<string, unknown>) };
  delete meta['ownerReferences'];
  if (m.gvk.kind === 'CustomResourceDefinition') {
    const spec = { ...((obj['spec'] ?? {}) as Record<string, unknown>) };
    const names = (spec['names'] ?? {}) as { plural?: string };
    if (typeof spec['group'] !== 'string' || typeof names.plural !== 'string') return undefined;
    spec['group'] = `probe${i}.${spec['group']}`;
    meta['name'] = `${names.plural}.${spec['group'] as string}`;
    obj['spec'] = spec;
  } else meta['name'] = `kp${i}-${m.name}`.slice(0, 63).replace(/[-.]+$/, '');
  obj['metadata'] = meta;
  return obj;
}

async function timed(costs: ClassCosts, cls: RequestClass, fn: () => Promise<unknown>): Promise<unknown> {
  const t = performance.now();
  const w = runQueueWaitMs() ?? 0;
  const c0 = process.cpuUsage();
  const r = await fn();
  const cpu = process.cpuUsage(c0);
  const ms = performance.now() - t;
  const c = costs.get(cls) ?? { ms: 0, readyMs: 0, cpuMs: 0, n: 0 };
  costs.set(cls, {
    ms: c.ms + ms,
    readyMs: c.readyMs + ms - ((runQueueWaitMs() ?? 0) - w),
    cpuMs: c.cpuMs + (cpu.user + cpu.system) / 1000,
    n: c.n + 1,
  });
  return r;
}

/**
 * Probe: for each sample manifest a copy is created, updated (a label added), read and deleted, one request at a time;
 * returns the mean cost per class. Manifests whose kind the server does not serve yet are skipped.
 */
export async function probe(
  client: KubeClient,
  sample: readonly { m: Manifest; mapping: RestMapping }[],
  round: number,
): Promise<ClassCosts> {
  const costs: ClassCosts = new Map();
  for (const [i, { m, mapping }] of sample.entries()) {
    const copy = probeCopy(m, round * 1000 + i);
    if (!copy) continue;
    const name = (copy['metadata'] as { name: string }).name;
    const crd = m.gvk.kind === 'CustomResourceDefinition';
    const k = (v: 'GET' | 'POST' | 'PUT' | 'DELETE'): RequestClass => `${v} ${crd ? 'crd' : 'obj'}`;
    const { group, version } = m.gvk;
    const coll = RestMapper.path(group, version, mapping, m.namespace, '');
    const path = RestMapper.path(group, version, mapping, m.namespace, name);
    let created: Record<string, unknown>;
    try {
      created = (await timed(costs, k('POST'), () => client.request('POST', coll, { body: copy }))) as Record<
        string,
        unknown
      >;
    } catch {
      continue; // not creatable here (e.g. refused by admission): no sample
    }
    const meta = created['metadata'] as { labels?: Record<string, string> };
    meta.labels = { ...(meta.labels ?? {}), 'keelson.dev/probe': 'updated' };
    await timed(costs, k('PUT'), () => client.request('PUT', path, { body: created }));
    await timed(costs, k('GET'), () => client.request('GET', path));
    await timed(costs, k('DELETE'), () => client.request('DELETE', path));
  }
  const out: ClassCosts = new Map();
  for (const [c, v] of costs) out.set(c, { ms: v.ms / v.n, readyMs: v.readyMs / v.n, cpuMs: v.cpuMs / v.n, n: v.n });
  return out;
}

/** The mean of two probes per class (a class only one of them saw keeps that one's figure). */
export function meanCosts(a: ClassCosts, b: ClassCosts): ClassCosts {
  const out: ClassCosts = new Map();
  for (const c of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(c);
    const y = b.get(c);
    out.set(
      c,
      x && y
        ? { ms: (x.ms + y.ms) / 2, readyMs: (x.readyMs + y.readyMs) / 2, cpuMs: (x.cpuMs + y.cpuMs) / 2, n: x.n + y.n }
        : (x ?? y ?? { ms: 0, readyMs: 0, cpuMs: 0, n: 0 }),
    );
  }
  return out;
}

function costOf(costs: ClassCosts, cls: RequestClass): { ms: number; readyMs: number; cpuMs: number } {
  // a class the probe did not see (PATCH, or a verb on CRDs): the same verb on other objects, else a GET
  const c = costs.get(cls) ?? costs.get(`${cls.split(' ')[0] as 'GET'} obj`) ?? costs.get('GET obj');
  return { ms: c?.ms ?? 0, readyMs: c?.readyMs ?? 0, cpuMs: c?.cpuMs ?? 0 };
}

/** What {@link apiBound} found. */
export interface ApiBound {
  /** Requests of the operator attributed to a graph node / all requests of the operator in the window. */
  nodeRequests: number;
  operatorRequests: number;
  /** Requests of the operator outside any node (status writes, Lease, informer lists), watches excluded. */
  otherRequests: number;
  criticalPathRequests: number;
  /** The critical path at the probed latency, and at the latency less run-queue waits (an idle machine). */
  criticalPathMs: number;
  criticalPathReadyMs: number;
  /** All of the operator's requests (node work and the rest) one after another: wall and CPU. */
  serialMs: number;
  serialCpuMs: number;
  boundMs: number;
  byClass: Record<string, number>;
  /** Requests outside any node's work, by verb and path (watches excluded). */
  other: Record<string, number>;
}

/** Requests of a node that are its work: its manifests' object and collection paths, and discovery. */
function nodePaths(
  node: TaskNode<Manifest>,
  mappings: ReadonlyMap<Manifest, RestMapping>,
): { objects: Set<string>; collections: Set<string> } {
  const objects = new Set<string>();
  const collections = new Set<string>();
  for (const t of node.tasks) {
    const m = t.data;
    const mapping = m ? mappings.get(m) : undefined;
    if (!m || !mapping) continue;
    const p = RestMapper.path(m.gvk.group, m.gvk.version, mapping, m.namespace, m.name);
    objects.add(p).add(`${p}/status`);
    collections.add(RestMapper.path(m.gvk.group, m.gvk.version, mapping, m.namespace, ''));
  }
  return { objects, collections };
}

function isDiscovery(path: string): boolean {
  return /^\/apis?(\/[^/]+){0,2}$/.test(path);
}

/** The bound of the recorded run over `nodes` (upstream Initializing: every node may run at once). */
export function apiBound(
  seen: readonly Seen[],
  nodes: readonly TaskNode<Manifest>[],
  mappings: ReadonlyMap<Manifest, RestMapping>,
  costs: ClassCosts,
): ApiBound {
  const byKey = new Map<number, number>();
  nodes.forEach((n, i) => byKey.set(n.tasks[0]?.index ?? 0, i));
  const paths = nodes.map((n) => nodePaths(n, mappings));
  const weight = new Array<number>(nodes.length).fill(0);
  const readyWeight = new Array<number>(nodes.length).fill(0);
  const count = new Array<number>(nodes.length).fill(0);
  const byClass: Record<string, number> = {};
  const other: Record<string, number> = {};
  let serialMs = 0;
  let serialCpuMs = 0;
  let nodeRequests = 0;
  let operatorRequests = 0;
  for (const s of seen) {
    const [path = '', query = ''] = s.path.split('?');
    if (/(^|&)watch=(1|true)/.test(query)) continue;
    operatorRequests++;
    const cls = classOf(s.method, path);
    const cost = costOf(costs, cls);
    serialMs += cost.ms;
    serialCpuMs += cost.cpuMs;
    const idx = s.node === undefined ? undefined : byKey.get(s.node);
    const p = idx === undefined ? undefined : paths[idx];
    const own =
      p !== undefined &&
      ((s.method === 'POST' && p.collections.has(path)) ||
        (s.method !== 'POST' && p.objects.has(path)) ||
        (s.method === 'GET' && isDiscovery(path)));
    if (!own || idx === undefined) {
      const key = `${s.method} ${path}`;
      other[key] = (other[key] ?? 0) + 1;
      continue;
    }
    nodeRequests++;
    byClass[cls] = (byClass[cls] ?? 0) + 1;
    weight[idx] = (weight[idx] ?? 0) + cost.ms;
    readyWeight[idx] = (readyWeight[idx] ?? 0) + cost.readyMs;
    count[idx] = (count[idx] ?? 0) + 1;
  }
  const cp = longestPath(nodes, weight, count);
  const cpReady = longestPath(nodes, readyWeight, count);
  return {
    nodeRequests,
    operatorRequests,
    otherRequests: operatorRequests - nodeRequests,
    criticalPathRequests: cp.requests,
    criticalPathMs: cp.ms,
    criticalPathReadyMs: cpReady.ms,
    serialMs,
    serialCpuMs,
    boundMs: Math.max(cp.ms, serialCpuMs),
    byClass,
    other,
  };
}

/** The heaviest path through the graph (memoized over the in-edges): its weight and its requests. */
function longestPath(
  nodes: readonly TaskNode<Manifest>[],
  weight: readonly number[],
  count: readonly number[],
): { ms: number; requests: number } {
  const finish = new Array<number | undefined>(nodes.length);
  const reqs = new Array<number>(nodes.length).fill(0);
  const visit = (i: number): number => {
    const done = finish[i];
    if (done !== undefined) return done;
    let start = 0;
    let before = 0;
    for (const j of nodes[i]?.in ?? []) {
      const f = visit(j);
      if (f > start || (f === start && (reqs[j] ?? 0) > before)) {
        start = f;
        before = reqs[j] ?? 0;
      }
    }
    reqs[i] = before + (count[i] ?? 0);
    return (finish[i] = start + (weight[i] ?? 0));
  };
  let last = 0;
  for (let i = 0; i < nodes.length; i++) if (visit(i) > (finish[last] ?? 0)) last = i;
  return { ms: finish[last] ?? 0, requests: reqs[last] ?? 0 };
}
