/** Pieces {@link startSandbox} is wired from: persistence, review types, listening, node status, sockets, settling. */
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { makeType } from './builtins.js';
import type { Cluster } from './cluster.js';
import type { Controllers } from './controllers.js';
import { SandboxError } from './errors.js';
import { recoverPersistedState, WriteAheadLog, type PersistedState, type StoredItem } from './persist.js';
import { registerCrd } from './strategies/index.js';
import type { JsonObject, KubeObject } from './types.js';
import { clone, isObject, must, nowTime, text } from './util.js';

/** Log records after which the write-ahead log is compacted into the snapshot. */
const WAL_COMPACT_RECORDS = 5000;

/** The persistence of a sandbox: whether state was restored, its log, and the compaction into a snapshot. */
export interface Persistence {
  restored: boolean;
  wal: WriteAheadLog | undefined;
  compactNow: () => void;
}

/**
 * Restores the state persisted in `persistDir` (if any) and logs every later change there, compacting the log
 * into a snapshot once it holds `walCompactRecords` records; nothing without `persistDir`.
 */
export function setupPersistence(
  cluster: Cluster,
  opts: { persistDir?: string; walCompactBytes?: number; walCompactRecords?: number },
): Persistence {
  let restored = false;
  let wal: WriteAheadLog | undefined;
  let compactScheduled = false;
  const compactNow = (): void => {
    compactScheduled = false;
    if (!wal) return;
    const items: StoredItem[] = [];
    for (const { t, obj } of cluster.everything()) items.push({ group: t.group, plural: t.plural, object: obj });
    wal.compact({ resourceVersion: cluster.rv, items });
  };
  const compactSoon = (): void => {
    if (compactScheduled) return;
    compactScheduled = true;
    setImmediate(compactNow);
  };
  if (opts.persistDir) {
    const state = recoverPersistedState(opts.persistDir);
    if (state) {
      restoreState(cluster, state);
      restored = true;
    }
    wal = new WriteAheadLog(opts.persistDir, opts.walCompactBytes);
    const log = wal;
    cluster.onChange((e) => {
      log.append(e.rv, e.type, e.gr, e.object);
      if (log.wantsCompaction(opts.walCompactRecords ?? WAL_COMPACT_RECORDS)) compactSoon();
    });
  }
  return { restored, wal, compactNow };
}

/** Loads persisted objects: CRDs first (so that their types are served), then everything else. */
function restoreState(cluster: Cluster, state: PersistedState): void {
  const crds = state.items.filter(
    (i) => i.group === 'apiextensions.k8s.io' && i.plural === 'customresourcedefinitions',
  );
  cluster.restore(crds, state.resourceVersion);
  for (const c of crds) registerCrd(cluster, c.object);
  cluster.restore(
    state.items.filter((i) => !crds.includes(i)),
    state.resourceVersion,
  );
}

/** The review kinds `kubectl auth whoami` / `can-i --list` create (SelfSubjectAccessReview is built in). */
export function addReviewTypes(cluster: Cluster): void {
  for (const def of [
    {
      group: 'authentication.k8s.io',
      version: 'v1',
      plural: 'selfsubjectreviews',
      kind: 'SelfSubjectReview',
      namespaced: false,
      verbs: ['create'],
    },
    {
      group: 'authorization.k8s.io',
      version: 'v1',
      plural: 'selfsubjectrulesreviews',
      kind: 'SelfSubjectRulesReview',
      namespaced: false,
      verbs: ['create'],
    },
  ])
    if (!cluster.findType(def.group, def.version, def.plural)) cluster.addType(makeType(def));
}

/** Listens on 127.0.0.1:`port`; a typed LISTEN_FAILED error when the port cannot be had. */
export function listenOn(server: Server | HttpsServer, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      reject(
        new SandboxError('LISTEN_FAILED', `cannot listen on 127.0.0.1:${port}: ${e.message}; choose another port`),
      );
    });
    server.listen(port, '127.0.0.1', () => {
      resolve();
    });
  });
}

/** The sandbox's `setNodeReady`: creates the Node or sets its Ready condition (and merges labels). */
export function nodeReadySetter(
  cluster: Cluster,
): (name: string, ready: boolean, labels?: Record<string, string>) => KubeObject {
  const nodeType = must(cluster.findType('', 'v1', 'nodes'), 'built-in type v1/nodes');
  return (name, ready, labels) => {
    const existing = cluster.peek(nodeType, undefined, name);
    const now = nowTime();
    const cond = {
      type: 'Ready',
      status: ready ? 'True' : 'False',
      lastHeartbeatTime: now,
      lastTransitionTime: now,
      reason: ready ? 'KubeletReady' : 'KubeletNotReady',
      message: ready ? 'kubelet is posting ready status' : 'node is not ready',
    };
    if (!existing) {
      return cluster.create(nodeType, undefined, {
        metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...(labels ?? {}) } },
        spec: {},
        status: {
          conditions: [cond],
          nodeInfo: { kubeletVersion: 'v1.32.0', operatingSystem: 'linux', architecture: 'amd64' },
          addresses: [{ type: 'Hostname', address: name }],
        },
      });
    }
    const next = clone(existing);
    const st = (isObject(next['status']) ? next['status'] : (next['status'] = {})) as JsonObject;
    const conds = (Array.isArray(st['conditions']) ? st['conditions'] : []) as JsonObject[];
    const prev = conds.find((c) => c['type'] === 'Ready');
    if (prev && prev['status'] === cond.status) cond.lastTransitionTime = text(prev['lastTransitionTime'] ?? now);
    st['conditions'] = [...conds.filter((c) => c['type'] !== 'Ready'), cond];
    if (labels) (next.metadata ??= {}).labels = { ...(next.metadata?.labels ?? {}), ...labels };
    const out = cluster.applyUpdate(nodeType, existing, next, {
      fieldManager: 'keelson-sandbox',
      subresource: 'status',
    });
    if (labels)
      return cluster.update(nodeType, undefined, name, {
        ...cluster.get(nodeType, undefined, name),
        metadata: { ...cluster.get(nodeType, undefined, name).metadata, labels: next.metadata?.labels },
      });
    return out;
  };
}

/** The open client sockets of the server (destroyed on stop so that close does not wait for keep-alives). */
export function trackSockets(server: Server | HttpsServer, httpsServer: HttpsServer | undefined): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  httpsServer?.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

/** Resolves once no write happened for a turn and the controllers are idle (at most 200 rounds). */
export async function settleCluster(cluster: Cluster, controllers: Controllers): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const rv = cluster.rv;
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 2));
    // a workload pass deferred by WORKLOAD_PASS_INTERVAL_MS is still to come
    if (cluster.rv === rv && controllers.idle()) return;
  }
}
