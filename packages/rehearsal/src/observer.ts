/**
 * The rehearsal's observer: an ordinary API client (informers on ClusterVersion, ClusterOperators, MachineConfigPools
 * and Nodes) that turns every change it sees into timeline events. It only reads, so it works the same against the
 * embedded API server and against a real cluster.
 */
import {
  ClusterOperators,
  ClusterVersions,
  defineResource,
  Informer,
  KubeClient,
  MachineConfigNodes,
  MachineConfigPools,
  type KubeObject,
} from '@keelson/kube';
import { mcnEvents } from './mcn.js';
import { unsettledDaemons } from './settled.js';
import {
  clusterOperatorEvents,
  clusterVersionEvents,
  nodeEvents,
  nodeView,
  poolEvents,
  poolOfNode,
  type NodeView,
  type TimelineEvent,
} from './timeline.js';

const Nodes = defineResource<KubeObject>({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
});

/** A running observer. */
export interface Observer {
  /** Latest objects seen (for the live view and the runner's checks). */
  clusterVersion(): KubeObject | undefined;
  clusterOperators(): KubeObject[];
  pools(): KubeObject[];
  nodes(): NodeView[];
  /** Nodes whose daemon has not finished its first sync (see {@link unsettledDaemons}). */
  unsettledDaemons(): string[];
  /** Resolves once every informer has listed. */
  synced(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts observing; every change becomes events passed to `emit` (t relative to `t0`). */
export function startObserver(
  client: KubeClient,
  t0: number,
  emit: (e: TimelineEvent) => void,
  now: () => number = Date.now,
): Observer {
  const t = (): number => now() - t0;
  const cv = new Informer(client, ClusterVersions);
  const cos = new Informer(client, ClusterOperators);
  const mcps = new Informer(client, MachineConfigPools);
  const nodes = new Informer(client, Nodes);
  const mcns = new Informer<KubeObject>(client, MachineConfigNodes);
  const nodeViews = new Map<string, NodeView>();
  const send = (events: TimelineEvent[]): void => {
    for (const e of events) emit(e);
  };
  cv.addHandlers({
    add: (o) => {
      send(clusterVersionEvents(undefined, o, t()));
    },
    update: (a, b) => {
      send(clusterVersionEvents(a, b, t()));
    },
  });
  cos.addHandlers({
    add: (o) => {
      send(clusterOperatorEvents(undefined, o, t()));
    },
    update: (a, b) => {
      send(clusterOperatorEvents(a, b, t()));
    },
  });
  const refreshNode = (o: KubeObject): void => {
    const view = nodeView(o, poolOfNode(o, mcps.store.list()));
    send(nodeEvents(nodeViews.get(view.name), view, t()));
    nodeViews.set(view.name, view);
  };
  mcps.addHandlers({
    add: (o) => {
      send(poolEvents(undefined, o, t()));
      for (const n of nodes.store.list()) refreshNode(n);
    },
    update: (a, b) => {
      send(poolEvents(a, b, t()));
    },
  });
  nodes.addHandlers({
    add: refreshNode,
    update: (_a, b) => {
      refreshNode(b);
    },
    delete: (o) => nodeViews.delete(o.metadata.name ?? ''),
  });
  mcns.addHandlers({
    add: (o) => {
      send(mcnEvents(undefined, o, t()));
    },
    update: (a, b) => {
      send(mcnEvents(a, b, t()));
    },
  });
  const all: { start(): void; stop(): Promise<void>; waitForSync(): Promise<void> }[] = [cv, cos, mcps, nodes];
  for (const i of all) i.start();
  // MachineConfigNodes are watched but not waited for: a cluster without their CRD still rehearses
  mcns.start();
  return {
    clusterVersion: () => cv.store.list().find((o) => o.metadata.name === 'version'),
    clusterOperators: () => cos.store.list(),
    pools: () => mcps.store.list(),
    nodes: () => [...nodeViews.values()],
    unsettledDaemons: () => unsettledDaemons(nodes.store.list(), mcns.store.list()),
    synced: async () => {
      await Promise.all(all.map((i) => i.waitForSync()));
    },
    stop: async () => {
      await Promise.all([...all, mcns].map((i) => i.stop()));
    },
  };
}
