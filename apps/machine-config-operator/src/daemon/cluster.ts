/**
 * The daemon's view of the cluster: its own Node (cached from a watch), annotation patches, and MachineConfigs by
 * name (rendered configs are content-addressed, so a fetched one is cached for good). A `NodeSource` is either a
 * per-node informer (a real daemon) or one shared informer dispatching to many virtual nodes.
 */
import {
  EventRecorder,
  Informer,
  MachineConfigs,
  defineResource,
  isNotFound,
  type KubeClient,
  type Logger,
} from '@keelson/kube';
import { type MachineConfig, type Node } from '@keelson/api';

/** Descriptor of core/v1 Nodes (not among @keelson/kube's descriptors). */
export const Nodes = defineResource<Node>({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
});

/** Latest state of one Node and its changes. */
export interface NodeSource {
  /** The cached Node (undefined before the first list or after deletion). */
  current(): Node | undefined;
  /** Calls `cb` on every change of the Node; returns the unsubscribe function. */
  subscribe(cb: (node: Node | undefined) => void): () => void;
}

/** A MachineConfig named by a node annotation does not exist. */
export class MachineConfigNotFoundError extends Error {
  readonly code = 'MCD_MC_NOT_FOUND';
  constructor(readonly configName: string) {
    super(`machineconfig.machineconfiguration.openshift.io "${configName}" not found`);
    this.name = 'MachineConfigNotFoundError';
  }
}

/** Fetches MachineConfigs by name with a shared cache. */
export class MachineConfigCache {
  readonly #client: KubeClient;
  readonly #cache = new Map<string, Promise<MachineConfig>>();
  /** Number of API GETs made (for the benchmark's API requests per node update). */
  gets = 0;
  constructor(client: KubeClient) {
    this.#client = client;
  }
  /** The MachineConfig `name`; throws {@link MachineConfigNotFoundError} when it does not exist. */
  get(name: string): Promise<MachineConfig> {
    const hit = this.#cache.get(name);
    if (hit) return hit;
    this.gets++;
    const p = this.#client
      .resource(MachineConfigs)
      .get(name)
      .catch((e: unknown) => {
        this.#cache.delete(name);
        if (isNotFound(e)) throw new MachineConfigNotFoundError(name);
        throw e;
      });
    this.#cache.set(name, p);
    return p;
  }
}

/** One informer over Nodes that dispatches changes to per-node subscribers (one per daemon). */
export class SharedNodeInformer {
  readonly informer: Informer<Node>;
  readonly #subs = new Map<string, Set<(n: Node | undefined) => void>>();
  /** Whether the informer is this object's (else a Manager's shared one: started here, stopped by its Manager). */
  readonly #own: boolean;
  readonly #unhandle: () => void;
  /**
   * @param opts.informer a Node informer to fan out (a Manager's shared one, `mgr.informer(Nodes, …)`); default: an
   * informer of its own with the given selection
   */
  constructor(
    client: KubeClient,
    opts: { fieldSelector?: string; labelSelector?: string; logger?: Logger; informer?: Informer<Node> } = {},
  ) {
    const { informer, ...selection } = opts;
    this.#own = informer === undefined;
    this.informer = informer ?? new Informer(client, Nodes, selection);
    const fire = (name: string | undefined, n: Node | undefined): void => {
      for (const cb of this.#subs.get(name ?? '') ?? []) cb(n);
    };
    this.#unhandle = this.informer.addHandlers({
      add: (n) => {
        fire(n.metadata.name, n);
      },
      update: (_o, n) => {
        fire(n.metadata.name, n);
      },
      delete: (n) => {
        fire(n.metadata.name, undefined);
      },
    });
  }
  /** Starts the watch and waits for the first list. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync();
  }
  /** Stops the watch (an informer handed in is left to its owner). */
  async stop(): Promise<void> {
    this.#unhandle();
    if (this.#own) await this.informer.stop();
  }
  /** The source for one node name. */
  source(name: string): NodeSource {
    return {
      current: () => this.informer.store.get(name),
      subscribe: (cb) => {
        let set = this.#subs.get(name);
        if (!set) {
          set = new Set();
          this.#subs.set(name, set);
        }
        set.add(cb);
        return () => set.delete(cb);
      },
    };
  }
}

/** Whether `a` is a later version of the object than `b` (etcd resource versions are increasing integers). */
function newerNode(a: Node, b: Node): boolean {
  const x = Number(a.metadata.resourceVersion);
  const y = Number(b.metadata.resourceVersion);
  return Number.isSafeInteger(x) && Number.isSafeInteger(y) && x > y;
}

/** Writes to the daemon's own Node. */
export class NodeWriter {
  readonly #client: KubeClient;
  readonly #name: string;
  readonly #events: EventRecorder;
  readonly #source: NodeSource | undefined;
  /** The Node as our last patch returned it (newer than the watch's copy until the watch catches up). */
  #written: Node | undefined;
  /** API writes made (patches + events), shared by the writers of one process, for the benchmark. */
  readonly stats: { writes: number };
  /**
   * @param source the node's watch: an annotation patch that would change nothing there (or in the node our last
   * patch returned, when that is newer) is not sent, as upstream's UpdateNodeRetry (internal/kubeutils.go) skips the
   * patch when the lister's copy already carries it
   */
  constructor(
    client: KubeClient,
    name: string,
    events: EventRecorder,
    stats: { writes: number } = { writes: 0 },
    source?: NodeSource,
  ) {
    this.#client = client;
    this.#name = name;
    this.#events = events;
    this.stats = stats;
    this.#source = source;
  }
  /** The node name. */
  get name(): string {
    return this.#name;
  }
  /** The latest copy of the node we know: the watch's, or our last patch's answer when that is newer. */
  #latest(): Node | undefined {
    const seen = this.#source?.current();
    const own = this.#written;
    if (seen === undefined || own === undefined) return seen ?? own;
    return newerNode(own, seen) ? own : seen;
  }
  /** Merge-patches annotations (a null value removes one); no request when the node already carries them. */
  async setAnnotations(annotations: Record<string, string | null>): Promise<Node> {
    const latest = this.#source === undefined ? undefined : this.#latest();
    const have = latest?.metadata.annotations ?? {};
    const unchanged = Object.entries(annotations).every(([k, v]) =>
      v === null ? !Object.hasOwn(have, k) : have[k] === v,
    );
    if (latest !== undefined && unchanged) return latest;
    this.stats.writes++;
    const node = await this.#client.resource(Nodes).patch(this.#name, { metadata: { annotations } }, { type: 'merge' });
    this.#written = node;
    return node;
  }
  /** Records an Event on the Node (best effort). */
  event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.stats.writes++;
    const obj: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: this.#name } };
    void (type === 'Normal' ? this.#events.normal(obj, reason, message) : this.#events.warning(obj, reason, message));
  }
}
