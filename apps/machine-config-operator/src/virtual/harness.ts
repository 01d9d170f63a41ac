/**
 * startVirtualNodes: N virtual machines in one process against any API server, each with its own root directory
 * under `rootDir/<node>`, sharing one Node watch, one MachineConfig cache and one event recorder. Machines are
 * provisioned from the machine-config-server (`serverUrl`) like real ones, or — without a server — from the pool's
 * rendered config read through the API and served locally with the same code as the MCS.
 */
import { join, resolve } from 'node:path';
import {
  ControllerConfigs,
  EventRecorder,
  Informer,
  KubeClient,
  MachineConfigNodes,
  MachineConfigurations,
  nullLogger,
  type Logger,
} from '@keelson/kube';
import { clientFrom } from '../common/runtime.js';
import { MachineConfigCache, SharedNodeInformer } from '../daemon/cluster.js';
import { DEFAULT_SYNC_BACKOFF, type SyncBackoff } from '../daemon/daemon.js';
import { DEFAULT_DRAIN_TIMEOUTS, type DrainTimeouts } from '../daemon/drain.js';
import type { DaemonEventHandler } from '../daemon/events.js';
import { MACHINE_CONFIGURATION_NAME, type ClusterPlumbing } from '../daemon/start.js';
import { buildServedConfig } from '../server/serve-config.js';
import { markVolatileTree } from '../daemon/writer.js';
import { fetchIgnition } from './fetch-ignition.js';
import { VirtualMachine, type ConfigProvider } from './machine.js';
import { PoolWaiter } from './pool-wait.js';

/** One virtual node. */
export interface VirtualNodeSpec {
  readonly name: string;
  /** Role label `node-role.kubernetes.io/<role>` (default `worker`). */
  readonly role?: string;
  /** Pool to fetch `/config/<pool>` from (default: the role). */
  readonly pool?: string;
  /** Extra labels (e.g. a custom pool's `node-role.kubernetes.io/infra`). */
  readonly labels?: Record<string, string>;
  /** `topology.kubernetes.io/zone`. */
  readonly zone?: string;
}

/** Injected faults. */
export interface VirtualNodeFaults {
  /** Nodes that never come back from their next reboot (NotReady for good). */
  readonly failBootOn?: readonly string[];
  /** Files edited by hand on a node right after it is provisioned (the daemon must report the drift). */
  readonly onDiskDrift?: readonly { readonly node: string; readonly path: string }[];
}

/** Options of {@link startVirtualNodes}. */
export interface VirtualNodesOptions {
  /** Kubeconfig file, or give `client`. */
  readonly kubeconfig?: string;
  readonly client?: KubeClient;
  /**
   * The kubelets' credentials (Node registration and status), when they differ from the daemons' (the daemons then
   * run with `kubeconfig`/`client`, e.g. the machine-config-daemon ServiceAccount): a kubeconfig file, or a client.
   */
  readonly kubeletKubeconfig?: string;
  readonly kubeletClient?: KubeClient;
  readonly nodes: readonly VirtualNodeSpec[];
  /** machine-config-server base URL (`https://…:22623` or `http://…:22624`); absent: serve locally from the API. */
  readonly serverUrl?: string;
  /** PEM CA of the server's certificate (HTTPS). */
  readonly serverCA?: string;
  /** How long a node stays NotReady in a reboot (default 0). */
  readonly rebootDurationMs?: number;
  /** Directory holding one root per node. */
  readonly rootDir: string;
  /** OS image of fresh machines. */
  readonly bootImage?: string;
  readonly faults?: VirtualNodeFaults;
  readonly logger?: Logger;
  readonly onEvent?: DaemonEventHandler;
  readonly drainTimeouts?: DrainTimeouts;
  readonly syncBackoff?: SyncBackoff;
  /** Report each node's MachineConfigNode (default true; one shared MCN watch for all the nodes). */
  readonly machineConfigNodes?: boolean;
  /**
   * Run the daemon's certificate writer on every node (default true, as upstream's daemon: ControllerConfig CAs
   * written to the node, one Node annotation patch per node and ControllerConfig change; one shared watch).
   */
  readonly certificateWriter?: boolean;
  /**
   * How many times faster than wall time the virtual cluster's clock runs (a rehearsal's time scale; default 1): the
   * daemons' event spam filter (client-go's, 25 events per node then one per 5 minutes) refills on it.
   */
  readonly timeScale?: number;
  /** Machines provisioned at the same time (default 32: machine-api creates a MachineSet's machines at once; 32 keeps the server and API answering). */
  readonly concurrency?: number;
}

/** Running virtual nodes. */
export interface VirtualNodes {
  /** The machines by node name. */
  readonly machines: ReadonlyMap<string, VirtualMachine>;
  /** API requests made by the daemons (MachineConfig GETs + Node writes). */
  apiRequests(): number;
  /** Of those, the requests of the MachineConfigNode reporters (GET, create, status writes). */
  mcnRequests(): number;
  stop(): Promise<void>;
}

function labelsOf(spec: VirtualNodeSpec): Record<string, string> {
  return {
    [`node-role.kubernetes.io/${spec.role ?? 'worker'}`]: '',
    ...(spec.zone !== undefined ? { 'topology.kubernetes.io/zone': spec.zone } : {}),
    ...(spec.labels ?? {}),
  };
}

function localProvider(pools: PoolWaiter, configs: MachineConfigCache): ConfigProvider {
  return async (pool, signal) => {
    const mc = await configs.get(await pools.renderedConfig(pool, signal));
    return buildServedConfig({ mc, version: '3.5.0' });
  };
}

/** The daemons' client and the kubelets' (when they have their own credentials); `close` closes the ones opened here. */
function openClients(opts: VirtualNodesOptions): {
  client: KubeClient;
  kubelet: KubeClient | undefined;
  close(): Promise<void>;
} {
  const own = opts.client === undefined;
  const client = opts.client ?? clientFrom(opts.kubeconfig, { userAgent: 'machine-config-daemon-virtual' });
  const ownKubelet = opts.kubeletClient === undefined && opts.kubeletKubeconfig !== undefined;
  const kubelet =
    opts.kubeletClient ??
    (opts.kubeletKubeconfig !== undefined
      ? clientFrom(opts.kubeletKubeconfig, { userAgent: 'kubelet-virtual' })
      : undefined);
  return {
    client,
    kubelet,
    async close() {
      if (own) await client.close();
      if (ownKubelet) await kubelet?.close();
    },
  };
}

/** What the daemons share: one Node watch, the MachineConfig cache, the MCN / ControllerConfig informers, counters. */
interface SharedPlumbing {
  readonly plumbing: ClusterPlumbing;
  readonly informer: SharedNodeInformer;
  readonly configs: MachineConfigCache;
  readonly stats: { writes: number };
  readonly mcnStats: { writes: number };
  /** Stops the informers started here (Node watch last, as they started first). */
  stopInformers(): Promise<void>;
}

async function startPlumbing(client: KubeClient, opts: VirtualNodesOptions, logger: Logger): Promise<SharedPlumbing> {
  const informer = new SharedNodeInformer(client, { logger });
  await informer.start();
  const configs = new MachineConfigCache(client);
  const stats = { writes: 0 };
  const mcnStats = { writes: 0 };
  const mcns = opts.machineConfigNodes === false ? undefined : new Informer(client, MachineConfigNodes, { logger });
  mcns?.start();
  const ccs =
    opts.certificateWriter === false
      ? undefined
      : new Informer(client, ControllerConfigs, { fieldSelector: 'metadata.name=machine-config-controller', logger });
  ccs?.start();
  // the node disruption policies of every update, from one watch (not a GET of MachineConfiguration per node update)
  const mcfgs = new Informer(client, MachineConfigurations, {
    fieldSelector: `metadata.name=${MACHINE_CONFIGURATION_NAME}`,
    logger,
  });
  mcfgs.start();
  const plumbing: ClusterPlumbing = {
    client,
    configs,
    stats,
    logger,
    mcns: mcns ?? false,
    mcnStats,
    ...(ccs ? { controllerConfigs: ccs } : {}),
    machineConfigurations: mcfgs,
    events: new EventRecorder(client, { component: 'machineconfigdaemon', logger, clockRate: opts.timeScale ?? 1 }),
  };
  return {
    plumbing,
    informer,
    configs,
    stats,
    mcnStats,
    async stopInformers() {
      await informer.stop();
      await mcns?.stop();
      await ccs?.stop();
      await mcfgs.stop();
    },
  };
}

/** Where machines get their Ignition: the machine-config-server, or the pool's rendered config served locally. */
function configSource(
  opts: VirtualNodesOptions,
  client: KubeClient,
  logger: Logger,
  configs: MachineConfigCache,
): { fetchConfig: ConfigProvider; pools: PoolWaiter | undefined } {
  const serverUrl = opts.serverUrl;
  const pools = serverUrl === undefined ? new PoolWaiter(client, logger) : undefined;
  const fetchConfig: ConfigProvider =
    pools === undefined
      ? (pool, signal) =>
          fetchIgnition(serverUrl ?? '', pool, {
            signal,
            ...(opts.serverCA !== undefined ? { ca: opts.serverCA } : {}),
          })
      : localProvider(pools, configs);
  return { fetchConfig, pools };
}

/** One {@link VirtualMachine} per node spec, with its faults. */
function createMachines(
  opts: VirtualNodesOptions,
  shared: { plumbing: ClusterPlumbing; informer: SharedNodeInformer; kubelet: KubeClient | undefined },
  fetchConfig: ConfigProvider,
  logger: Logger,
): Map<string, VirtualMachine> {
  const machines = new Map<string, VirtualMachine>();
  for (const spec of opts.nodes) {
    machines.set(
      spec.name,
      new VirtualMachine({
        name: spec.name,
        labels: labelsOf(spec),
        pool: spec.pool ?? spec.role ?? 'worker',
        rootDir: join(opts.rootDir, spec.name),
        plumbing: shared.plumbing,
        ...(shared.kubelet !== undefined ? { kubelet: shared.kubelet } : {}),
        source: shared.informer.source(spec.name),
        fetchConfig,
        rebootDurationMs: opts.rebootDurationMs ?? 0,
        ...(opts.bootImage !== undefined ? { bootImage: opts.bootImage } : {}),
        logger: logger.child({ node: spec.name }),
        onEvent: opts.onEvent,
        drainTimeouts: opts.drainTimeouts ?? DEFAULT_DRAIN_TIMEOUTS,
        syncBackoff: opts.syncBackoff ?? DEFAULT_SYNC_BACKOFF,
        failBoot: opts.faults?.failBootOn?.includes(spec.name) ?? false,
        driftPaths: (opts.faults?.onDiskDrift ?? []).filter((d) => d.node === spec.name).map((d) => d.path),
      }),
    );
  }
  return machines;
}

/** Boots the machines, `concurrency` (default 32) at a time. */
async function bootMachines(
  machines: ReadonlyMap<string, VirtualMachine>,
  concurrency: number | undefined,
): Promise<void> {
  const queue = [...machines.values()];
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency ?? 32, queue.length)) }, async () => {
    for (let m = queue.shift(); m !== undefined; m = queue.shift()) await m.start();
  });
  await Promise.all(workers);
}

/** Starts virtual nodes (see module doc). Resolves once every machine has booted and its daemon runs. */
export async function startVirtualNodes(opts: VirtualNodesOptions): Promise<VirtualNodes> {
  const clients = openClients(opts);
  const logger = opts.logger ?? nullLogger;
  // the machines' roots live as long as this process: atomic writes there skip fsync (see markVolatileTree)
  const unmarkVolatile = markVolatileTree(resolve(opts.rootDir));
  const shared = await startPlumbing(clients.client, opts, logger);
  const { fetchConfig, pools } = configSource(opts, clients.client, logger, shared.configs);
  const machines = createMachines(opts, { ...shared, kubelet: clients.kubelet }, fetchConfig, logger);
  const stop = async (): Promise<void> => {
    await Promise.all([...machines.values()].map((m) => m.stop()));
    await pools?.stop();
    await shared.stopInformers();
    await clients.close();
    unmarkVolatile();
  };
  try {
    await bootMachines(machines, opts.concurrency);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    machines,
    apiRequests: () => shared.configs.gets + shared.stats.writes,
    mcnRequests: () => shared.mcnStats.writes,
    stop,
  };
}
