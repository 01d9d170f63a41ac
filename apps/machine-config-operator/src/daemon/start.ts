/**
 * Wiring of one daemon: cluster access (a Node watch, MachineConfigs, annotation patches, events, node disruption
 * policies) around a host root, a `Host` and an OS driver. Used by the real `machine-config-daemon start` and by
 * each virtual node.
 */
import {
  ControllerConfigs,
  EventRecorder,
  Informer,
  KubeClient,
  MachineConfigNodes,
  MachineConfigurations,
  Registry,
  isNotFound,
  nullLogger,
  startHealthServer,
  type HealthServer,
  type Logger,
  type Manager,
} from '@keelson/kube';
import { clientFrom } from '../common/runtime.js';
import { CONTROLLER_CONFIG_NAME } from '../common/constants.js';
import { Nodes } from '../common/resources.js';
import type { DisruptionAction, NodeDisruptionPolicy } from '@keelson/machineconfig';
import type {
  ControllerConfig,
  MachineConfigNode,
  MachineConfiguration,
  Node,
  NodeDisruptionPolicy as ApiNodeDisruptionPolicy,
  NodeDisruptionPolicyAction,
} from '@keelson/api';
import { MachineConfigNodeReporter } from '../upgrade-monitor/reporter.js';
import { MachineConfigCache, NodeWriter, SharedNodeInformer, type NodeSource } from './cluster.js';
import type { ClusterAccess, DaemonContext } from './context.js';
import { MachineConfigDaemon, DEFAULT_SYNC_BACKOFF, type SyncBackoff } from './daemon.js';
import { DEFAULT_DRAIN_TIMEOUTS, type DrainTimeouts } from './drain.js';
import type { DaemonEventHandler } from './events.js';
import { CommandHost, type Host } from './host.js';
import { hostOsDriver, type OsDriver } from './os.js';
import { ChrootHostExec } from './host-exec.js';
import { DaemonMetrics } from './metrics.js';
import { CertificateSync } from './certificate-writer.js';
import type { HostRoot } from './root.js';

function toAction(a: NodeDisruptionPolicyAction, where: string): DisruptionAction {
  switch (a.type) {
    case 'Reload':
      if (!a.reload)
        throw new Error(`MachineConfiguration cluster: ${where}: a Reload action needs reload.serviceName`);
      return { type: 'Reload', reload: { serviceName: a.reload.serviceName } };
    case 'Restart':
      if (!a.restart)
        throw new Error(`MachineConfiguration cluster: ${where}: a Restart action needs restart.serviceName`);
      return { type: 'Restart', restart: { serviceName: a.restart.serviceName } };
    default:
      return { type: a.type };
  }
}

/** The API's node disruption policy as @keelson/machineconfig's (Reload/Restart must name their service). */
export function toDisruptionPolicy(p: ApiNodeDisruptionPolicy): NodeDisruptionPolicy {
  const out: NodeDisruptionPolicy = {};
  if (p.files)
    out.files = p.files.map((f) => ({ path: f.path, actions: f.actions.map((a) => toAction(a, `file ${f.path}`)) }));
  if (p.units)
    out.units = p.units.map((u) => ({ name: u.name, actions: u.actions.map((a) => toAction(a, `unit ${u.name}`)) }));
  if (p.sshkey) out.sshkey = { actions: p.sshkey.actions.map((a) => toAction(a, 'sshkey')) };
  return out;
}

/** The MachineConfiguration the operator publishes the policies on (upstream ctrlcommon.MCOOperatorKnobsObjectName). */
export const MACHINE_CONFIGURATION_NAME = 'cluster';

/** How long the daemon waits for the operator to publish the policies (upstream: poll 5 s, up to 2 min). */
export interface PolicyStatusWait {
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

/** Upstream's wait (update.go calculatePostConfigChangeNodeDisruptionAction). */
export const DEFAULT_POLICY_STATUS_WAIT: PolicyStatusWait = { intervalMs: 5_000, timeoutMs: 120_000 };

/**
 * Reads the cluster's node disruption policies from MachineConfiguration `cluster` **status**
 * (`nodeDisruptionPolicyStatus.clusterPolicies`, the defaults merged with the spec by the operator), once its
 * `observedGeneration` matches the object's generation — waiting for that as upstream does, then failing with
 * "NodeDisruptionPolicyStatus was not ready: …". Without the object (a cluster with no operator, e.g. daemons started
 * by hand) the MCO's defaults apply.
 *
 * Upstream (pkg/daemon/update.go calculatePostConfigChangeNodeDisruptionAction) GETs the object on every update and
 * polls it every 5 s. With `watched` (a synced informer of MachineConfigurations, e.g. the one shared by all virtual
 * nodes of a process) the object is read from that watch instead: the same content, no request per node update, and
 * the wait re-reads the watch's copy (no API request per poll).
 */
export function nodeDisruptionPolicyReader(
  client: KubeClient,
  wait: PolicyStatusWait = DEFAULT_POLICY_STATUS_WAIT,
  watched?: Informer<MachineConfiguration>,
): () => Promise<NodeDisruptionPolicy | undefined> {
  const read = async (): Promise<MachineConfiguration | undefined> => {
    if (watched?.hasSynced() === true) return watched.store.get(MACHINE_CONFIGURATION_NAME);
    try {
      return await client.resource(MachineConfigurations).get(MACHINE_CONFIGURATION_NAME);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  return async () => {
    const end = Date.now() + wait.timeoutMs;
    for (;;) {
      const mcfg = await read();
      if (mcfg === undefined) return undefined;
      const status = mcfg.status;
      const policies = status?.nodeDisruptionPolicyStatus?.clusterPolicies;
      if (policies !== undefined && status?.observedGeneration === mcfg.metadata.generation)
        return toDisruptionPolicy(policies);
      if (Date.now() >= end)
        throw new Error('NodeDisruptionPolicyStatus was not ready: NodeDisruptionPolicyStatus is not up to date');
      await new Promise((r) => setTimeout(r, wait.intervalMs));
    }
  };
}

/** Shared cluster plumbing for one or many daemons in a process. */
export interface ClusterPlumbing {
  readonly client: KubeClient;
  readonly configs: MachineConfigCache;
  readonly events: EventRecorder;
  /** API writes of all daemons using this plumbing. */
  readonly stats?: { writes: number };
  /**
   * MachineConfigNodes as a watch sees them (one shared informer for many virtual nodes); the reporters read their
   * node's MCN here instead of a GET. `false`: no MCN reporting (a cluster without the CRD, or tests that count
   * only Node writes).
   */
  readonly mcns?: Informer<MachineConfigNode> | false;
  /** API requests of the MCN reporters (also counted in `stats`), for the benchmark's overhead figure. */
  readonly mcnStats?: { writes: number };
  /**
   * ControllerConfig `machine-config-controller` as one shared watch sees it: each node then runs the certificate
   * writer (certificate-writer.ts) over it. Absent: no certificate writer (the real daemon starts its own).
   */
  readonly controllerConfigs?: Informer<ControllerConfig>;
  /**
   * MachineConfigurations as one shared watch sees them: the node disruption policies are read there instead of a
   * GET of `cluster` on every node update (see {@link nodeDisruptionPolicyReader}). Absent: a GET per update.
   */
  readonly machineConfigurations?: Informer<MachineConfiguration>;
  readonly logger?: Logger;
}

function mcnLookup(inf: Informer<MachineConfigNode>, name: string): () => MachineConfigNode | undefined {
  return () => (inf.hasSynced() ? inf.store.get(name) : undefined);
}

/** Builds the {@link ClusterAccess} of one node. */
export function clusterAccessFor(
  p: ClusterPlumbing,
  nodeName: string,
  source: NodeSource,
  pool?: string,
): ClusterAccess {
  return {
    writer: new NodeWriter(p.client, nodeName, p.events, p.stats, source),
    source,
    configs: p.configs,
    nodeDisruptionPolicy: nodeDisruptionPolicyReader(p.client, DEFAULT_POLICY_STATUS_WAIT, p.machineConfigurations),
    ...(p.mcns === false
      ? {}
      : {
          mcn: new MachineConfigNodeReporter({
            client: p.client,
            nodeName,
            node: () => source.current(),
            ...(pool !== undefined ? { pool: () => pool } : {}),
            ...(p.logger ? { logger: p.logger } : {}),
            stats: [p.stats, p.mcnStats].filter((x): x is { writes: number } => x !== undefined),
            ...(p.mcns ? { lookup: mcnLookup(p.mcns, nodeName) } : {}),
          }),
        }),
  };
}

/** Options of {@link startMachineConfigDaemon}. */
export interface StartDaemonOptions {
  /** Node name (`--node-name`, default NODE_NAME). */
  readonly nodeName: string;
  /** Kubeconfig path; default KUBECONFIG / in-cluster. */
  readonly kubeconfig?: string;
  readonly client?: KubeClient;
  /** Host root (`--root-mount`, default `/`); any other root is entered with `chroot` for every host command. */
  readonly rootMount?: string;
  /** OS driver (default: the real `rpm-ostree`). */
  readonly os?: OsDriver;
  /** Host effects (default: real commands). */
  readonly host?: Host;
  readonly logger?: Logger;
  readonly onEvent?: DaemonEventHandler;
  readonly drainTimeouts?: DrainTimeouts;
  readonly syncBackoff?: SyncBackoff;
  /** `/metrics` + `/healthz` listener (the bin's default is {@link DEFAULT_METRICS_ADDRESS}, upstream's); absent/false: none. */
  readonly metrics?: { readonly host: string; readonly port: number } | false;
  /** `--skip-reboot`. */
  readonly skipReboot?: boolean;
  /**
   * The certificate writer (certificate-writer.ts: ControllerConfig CAs and the internal registry pull secret written
   * to the host without a reboot). Default on, as upstream; `false` turns it off.
   */
  readonly certificateWriter?: boolean;
  /**
   * The process's Manager (the bin's `runManaged`): the Node, MachineConfigNode and ControllerConfig informers come
   * from its shared cache (`mgr.informer()`, stopped by the Manager); absent: the daemon's own, stopped by stop().
   */
  readonly manager?: Manager;
}

/** A running daemon. */
export interface RunningDaemon {
  readonly daemon: MachineConfigDaemon;
  /** Base URL of `/metrics` and `/healthz` (undefined with `metrics: false`). */
  readonly metricsUrl: string | undefined;
  /** The certificate writer (undefined with `certificateWriter: false`). */
  readonly certificates: CertificateSync | undefined;
  stop(): Promise<void>;
}

/** Parses `HOST:PORT` (`--metrics-listen-address`, default `DEFAULT_METRICS_ADDRESS` of metrics.ts). */
export function parseListenAddress(v: string): { host: string; port: number } {
  const i = v.lastIndexOf(':');
  const port = Number(v.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid listen address ${JSON.stringify(v)}: expected HOST:PORT`);
  return { host: v.slice(0, i).replace(/^\[(.*)\]$/, '$1') || '127.0.0.1', port };
}

async function startMetrics(
  opts: StartDaemonOptions,
  root: HostRoot,
): Promise<{ metrics?: DaemonMetrics; server?: HealthServer }> {
  if (opts.metrics === undefined || opts.metrics === false) return {};
  const registry = new Registry();
  const metrics = new DaemonMetrics(registry);
  await metrics.readHostOS(root);
  const server = await startHealthServer({ registry, host: opts.metrics.host, port: opts.metrics.port });
  return { metrics, server };
}

/**
 * The daemon's watches of its own Node, its MachineConfigNode and (with a Manager) ControllerConfig
 * `machine-config-controller` (the certificate writer's; without a Manager it makes its own): from the Manager's
 * shared cache when given, else its own. The ControllerConfig informer is started here (the certificate writer
 * does not start one it is handed); a Manager started later leaves a started informer as it is.
 */
function daemonInformers(
  client: KubeClient,
  opts: StartDaemonOptions,
  logger: Logger,
): { nodes: Informer<Node>; mcns: Informer<MachineConfigNode>; controllerConfigs?: Informer<ControllerConfig> } {
  const byName = { fieldSelector: `metadata.name=${opts.nodeName}` };
  const mgr = opts.manager;
  if (mgr === undefined)
    return {
      nodes: new Informer(client, Nodes, { ...byName, logger }),
      mcns: new Informer(client, MachineConfigNodes, { ...byName, logger }),
    };
  const controllerConfigs = mgr.informer(ControllerConfigs, {
    fieldSelector: `metadata.name=${CONTROLLER_CONFIG_NAME}`,
  });
  controllerConfigs.start();
  return { nodes: mgr.informer(Nodes, byName), mcns: mgr.informer(MachineConfigNodes, byName), controllerConfigs };
}

/** Starts the daemon of one (real) node. */
export async function startMachineConfigDaemon(opts: StartDaemonOptions): Promise<RunningDaemon> {
  const own = opts.client === undefined;
  const client = opts.client ?? clientFrom(opts.kubeconfig, { userAgent: 'machine-config-daemon' });
  const logger = opts.logger ?? nullLogger;
  const inf = daemonInformers(client, opts, logger);
  const nodes = new SharedNodeInformer(client, { informer: inf.nodes });
  await nodes.start();
  // the daemon's own MachineConfigNode, watched (not awaited: a cluster without the CRD still runs the daemon)
  const mcns = inf.mcns;
  mcns.start();
  const plumbing: ClusterPlumbing = {
    client,
    logger,
    mcns,
    configs: new MachineConfigCache(client),
    events: new EventRecorder(client, { component: 'machineconfigdaemon', host: opts.nodeName, logger }),
  };
  const abort = new AbortController();
  const exec = new ChrootHostExec(opts.rootMount ?? '/');
  const served = await startMetrics(opts, exec.root);
  const cluster = clusterAccessFor(plumbing, opts.nodeName, nodes.source(opts.nodeName));
  const ctx: DaemonContext = {
    nodeName: opts.nodeName,
    root: exec.root,
    host: opts.host ?? new CommandHost(exec),
    os: opts.os ?? hostOsDriver(exec),
    logger,
    drainTimeouts: opts.drainTimeouts ?? DEFAULT_DRAIN_TIMEOUTS,
    signal: abort.signal,
    onEvent: opts.onEvent,
    cluster,
    metrics: served.metrics,
    skipReboot: opts.skipReboot === true,
  };
  const daemon = new MachineConfigDaemon(ctx, opts.syncBackoff ?? DEFAULT_SYNC_BACKOFF);
  daemon.start();
  const certs =
    opts.certificateWriter === false
      ? undefined
      : new CertificateSync({
          client,
          ...(inf.controllerConfigs !== undefined ? { controllerConfigs: inf.controllerConfigs } : {}),
          root: exec.root,
          node: cluster.source,
          writer: cluster.writer,
          host: ctx.host,
          logger,
        });
  certs?.start();
  return {
    daemon,
    metricsUrl: served.server?.url,
    certificates: certs,
    async stop() {
      abort.abort();
      await certs?.stop();
      await daemon.stop();
      await served.server?.close();
      await nodes.stop();
      // informers of a Manager's cache are the Manager's to stop
      if (opts.manager === undefined) await Promise.all([inf.nodes.stop(), mcns.stop()]);
      if (own) await client.close();
    },
  };
}
