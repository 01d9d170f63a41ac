/**
 * THE adapter between the rehearsal and the real Keelson components it composes: the CVO app, the MCO app (operator,
 * controller, server, virtual nodes with their daemons), the cluster-operator simulator and the `keelson upgrade --to`
 * request. The rehearsal only sees the interfaces below; each component is the entry point users run, imported with a
 * plain typed import and wrapped here (a renamed option fails the build).
 */

import { access, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startClusterVersionOperator, startPayloadKubelet, type CvoOptions } from '@keelson/cluster-version-operator';
import { createLogger, KubeClient, scaledLeaderElection, type LeaderElectionTiming, type Logger } from '@keelson/kube';
import { generateTls, startOperatorSimulator, type OperatorSimulatorOptions } from '@keelson/kube-sandbox';
import {
  startMachineConfigController,
  startMachineConfigOperator,
  startMachineConfigServer,
  startVirtualNodes,
  type MachineConfigControllerOptions,
  type MachineConfigOperatorOptions,
  type MachineConfigServerOptions,
  type VirtualNodeSpec,
  type VirtualNodesOptions,
} from '@keelson/machine-config-operator';
import { startCvoProcess } from './cvo-process.js';
import { readMcoImages } from './mco-images.js';

/** How long a virtual node's reboot takes on the simulated clock (a real RHCOS reboot: about 4 minutes). */
export const SIMULATED_REBOOT_MS = 240_000;
/**
 * The node the rehearsal's CVO runs on. Target payloads are retrieved as upstream does: a `version-<v>-<rand>` Pod on
 * that node, run by the node's virtual kubelet (`@keelson/cluster-version-operator` `startPayloadKubelet`), which pulls
 * the release image through the node's registries.conf and writes it to the node's `/etc/cvo/updatepayloads`.
 */
export const CVO_NODE = 'master-0';

/** Where the CVO sees {@link CVO_NODE}'s `/etc/cvo/updatepayloads` (its hostPath mount). */
function cvoPayloadsDir(ctx: { workDir: string }): string {
  return `${ctx.workDir}/nodes/${CVO_NODE}/etc/cvo/updatepayloads`;
}

/**
 * The CVO's metrics serving pair on {@link CVO_NODE}, where upstream mounts service-ca's
 * `cluster-version-operator-serving-cert` Secret (`/etc/tls/serving-cert/tls.{crt,key}`): made once per work dir, kept
 * across CVO restarts. Upstream serves metrics over HTTPS only (`--listen` needs `--serving-cert-file`).
 */
async function cvoServingCert(ctx: { workDir: string }): Promise<{ certFile: string; keyFile: string }> {
  const dir = `${ctx.workDir}/nodes/${CVO_NODE}/etc/tls/serving-cert`;
  const pair = { certFile: `${dir}/tls.crt`, keyFile: `${dir}/tls.key` };
  try {
    await Promise.all([access(pair.certFile), access(pair.keyFile)]);
    return pair;
  } catch {
    // not made yet
  }
  const tls = await generateTls();
  await mkdir(dir, { recursive: true });
  // each file appears whole (a CVO reloading its pair never reads half a PEM)
  await writeFile(`${pair.keyFile}.tmp`, tls.serverKey, { mode: 0o600 });
  await writeFile(`${pair.certFile}.tmp`, tls.serverCert);
  await rename(`${pair.keyFile}.tmp`, pair.keyFile);
  await rename(`${pair.certFile}.tmp`, pair.certFile);
  return pair;
}

/** What every component is given. */
export interface ComponentContext {
  /**
   * Kubeconfig file of the rehearsal cluster (through the counting proxy): the admin's, or the component's own
   * ServiceAccount's once the release has created it (see identities.ts).
   */
  kubeconfigPath: string;
  /** The virtual machines' kubelets' kubeconfig (Node registration and status) when it differs from `kubeconfigPath`. */
  kubeletKubeconfigPath?: string;
  /** Durations are divided by this (e.g. 60: a 4-minute reboot takes 4 s). */
  timeScale: number;
  /** Scratch directory for the component. */
  workDir: string;
  /** Log sink (JSON lines of the component go here, not to the terminal). */
  log: (component: string, line: string) => void;
}

/** A started component. */
export interface Running {
  /** Graceful stop. */
  stop(): Promise<void>;
  /** Abrupt stop, as SIGKILL (no lease release, no status write); absent when the component cannot be killed. */
  kill?: () => Promise<void>;
  /**
   * Whether it holds its leader-election Lease now (undefined: it cannot tell); absent when the component does not
   * elect.
   */
  leading?: () => boolean | undefined;
  /** True once its process ended without the rehearsal stopping it (a crash); absent for in-process components. */
  exited?: () => boolean;
}

/** Progress the CVO reports beyond what its status shows. */
export interface CvoProgress {
  runLevel?: (level: string, state: 'started' | 'finished', version: string) => void;
}

/** The virtual nodes (each with its machine-config-daemon). */
export interface RunningNodes extends Running {
  /** Kills one node's daemon (as SIGKILL) and starts it again. */
  restartDaemon(node: string): Promise<void>;
  /** Whether the node's machine is in a reboot (requested, not yet booted again); false when unknown. */
  rebooting?(node: string): boolean;
}

/** The started cluster-operator simulator. */
export interface RunningOperators extends Running {
  /** Fixed versions per ClusterOperator (the rehearsal passes none: the simulator follows the Deployments the CVO rolls out). */
  setVersions(versions: Record<string, { name: string; version: string }[]>): void;
}

/** Every component the rehearsal needs. */
export interface RehearsalComponents {
  /** `asProcess`: the `cluster-version-operator start` bin as a child process (killable; no run-level progress events). */
  startCvo(
    ctx: ComponentContext,
    o: {
      payloadDir: string;
      releaseImage: string;
      updateService: string;
      promql: string;
      progress: CvoProgress;
      asProcess?: boolean;
    },
  ): Promise<Running>;
  /** The operator of release `releaseVersion` (upstream: the Deployment's RELEASE_VERSION). */
  startMachineConfigOperator(ctx: ComponentContext, o: { releaseVersion: string }): Promise<Running>;
  startMachineConfigController(ctx: ComponentContext, o: { releaseVersion: string }): Promise<Running>;
  /** The server; `url` is where machines fetch `/config/<pool>`. */
  startMachineConfigServer(ctx: ComponentContext, o: { apiserverUrl: string }): Promise<Running & { url?: string }>;
  startVirtualNodes(
    ctx: ComponentContext,
    o: {
      nodes: { name: string; roles: string[] }[];
      serverUrl?: string;
      failBoot: string[];
      drift: { node: string; path: string }[];
    },
  ): Promise<RunningNodes>;
  startOperatorSimulator(
    ctx: ComponentContext,
    o: { versions: Record<string, { name: string; version: string }[]>; degraded: string[]; never: string[] },
  ): Promise<RunningOperators>;
  /** `keelson upgrade --to VERSION [--force]` (the oc adm upgrade code path; the image is the one the update service offers). */
  requestUpgrade(ctx: ComponentContext, o: { toImage: string; version: string; force?: boolean }): Promise<void>;
}

/** Whether a component is available, and from where. */
export interface ComponentStatus {
  name: string;
  /** Package and export that provide it. */
  provider: string;
  available: boolean;
  /** Why it is missing. */
  reason?: string;
}

/**
 * The components and their providers: each entry point is a plain typed import of its package (a renamed option or
 * export fails the build, not the rehearsal).
 */
const PROVIDERS: readonly { name: string; provider: string }[] = [
  { name: 'cluster-version-operator', provider: '@keelson/cluster-version-operator startClusterVersionOperator' },
  { name: 'machine-config-operator', provider: '@keelson/machine-config-operator startMachineConfigOperator' },
  { name: 'machine-config-controller', provider: '@keelson/machine-config-operator startMachineConfigController' },
  { name: 'machine-config-server', provider: '@keelson/machine-config-operator startMachineConfigServer' },
  { name: 'virtual nodes (machine-config-daemon)', provider: '@keelson/machine-config-operator startVirtualNodes' },
  { name: 'cluster-operator simulator', provider: '@keelson/kube-sandbox startOperatorSimulator' },
  {
    name: 'virtual kubelets (payload-retrieval Pods)',
    provider: '@keelson/cluster-version-operator startPayloadKubelet',
  },
];

/**
 * How the rehearsal asks for the update (`keelson upgrade --to VERSION [--force]`, `oc adm upgrade`): the CLI passes its
 * own command's code path; {@link requestUpgradeByPatch} otherwise.
 */
export type UpgradeRequester = (
  kubeconfigPath: string,
  o: { toImage: string; version: string; force?: boolean },
) => Promise<void>;

/**
 * The MCO app's own release manifests (`manifests/0000_80_machine-config_*`), when the app ships them; the rehearsal
 * releases then carry them instead of generated equivalents.
 */
export async function machineConfigManifestsDir(): Promise<string | undefined> {
  try {
    const dir = join(
      dirname(createRequire(import.meta.url).resolve('@keelson/machine-config-operator/package.json')),
      'manifests',
    );
    return (await readdir(dir)).some((n) => n.startsWith('0000_80_machine-config_')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The components (typed imports of the operator apps and the sandbox's simulator) and where each comes from. */
export function loadComponents(requestUpgrade: UpgradeRequester = requestUpgradeByPatch): {
  components: RehearsalComponents;
  status: ComponentStatus[];
} {
  const status: ComponentStatus[] = PROVIDERS.map((p) => ({ ...p, available: true }));
  status.push({
    name: 'update request (upgrade --to)',
    provider: requestUpgrade === requestUpgradeByPatch ? '@keelson/rehearsal requestUpgradeByPatch' : 'the caller',
    available: true,
  });
  return { status, components: wire(requestUpgrade) };
}

/**
 * The daemons' retry of a failed sync (the MCO daemon's 1 s doubling to 60 s) on the rehearsal's clock, as every other
 * duration: unscaled, one transient API error held a node Degraded for up to a simulated hour at time scale 60.
 */
export function daemonSyncBackoff(timeScale: number): { initialMs: number; maxMs: number } {
  return {
    initialMs: Math.max(10, Math.round(1000 / timeScale)),
    maxMs: Math.max(10, Math.round(60_000 / timeScale)),
  };
}

/**
 * Leader election on the compressed clock: `scaledLeaderElection` of `@keelson/kube` (the one copy of the Lease timing:
 * upstream's 137 s / 107 s / 26 s scaled, rounded up to whole seconds, floored at 15 s / 10 s / 2 s of wall time).
 */
export function leaderElectionIntervals(timeScale: number): LeaderElectionTiming {
  return scaledLeaderElection(timeScale);
}

/**
 * A component's JSON lines, tagged with its name, into the rehearsal's log sink: the style of `processLogger` (`ts`,
 * `level`, `msg`, `component`, the child loggers' fields), every level kept (debug included, as before).
 */
export function componentLogger(ctx: ComponentContext, component: string): Logger {
  return createLogger({
    level: 'debug',
    fields: { component },
    stream: {
      write: (line: string) => {
        ctx.log(component, line.trimEnd());
      },
    },
  });
}

/** The common shape of a started operator process ({@link Running} of the apps, {@link RunningCvo}). */
function running(r: { stop(): Promise<void>; isLeader(): boolean }): Running {
  return { stop: () => r.stop(), leading: () => r.isLeader() };
}

/** The CVO in process (`startClusterVersionOperator`) or as the `cluster-version-operator start` child process. */
async function startCvo(ctx: ComponentContext, o: Parameters<RehearsalComponents['startCvo']>[1]): Promise<Running> {
  const servingCert = await cvoServingCert(ctx);
  if (o.asProcess === true) {
    return startCvoProcess({
      kubeconfig: ctx.kubeconfigPath,
      payloadDir: o.payloadDir,
      releaseImage: o.releaseImage,
      payloadCache: cvoPayloadsDir(ctx),
      nodeName: CVO_NODE,
      servingCert,
      updateService: o.updateService,
      promqlTarget: o.promql,
      timeScale: 1 / ctx.timeScale,
      ...leaderElectionIntervals(ctx.timeScale),
      log: (line) => {
        ctx.log('cluster-version-operator', line);
      },
    });
  }
  const options: CvoOptions = {
    kubeconfig: ctx.kubeconfigPath,
    payloadDir: o.payloadDir,
    releaseImage: o.releaseImage,
    payloadCache: cvoPayloadsDir(ctx),
    payloadRetrieval: 'pod',
    nodeName: CVO_NODE,
    listen: '127.0.0.1:0',
    servingCertFile: servingCert.certFile,
    servingKeyFile: servingCert.keyFile,
    updateService: o.updateService,
    promqlTarget: o.promql,
    timeScale: 1 / ctx.timeScale,
    intervals: leaderElectionIntervals(ctx.timeScale),
    logger: componentLogger(ctx, 'cluster-version-operator'),
    onEvent: (e) => {
      if ((e.type === 'runLevelStarted' || e.type === 'runLevelFinished') && e.runLevel !== undefined)
        o.progress.runLevel?.(e.runLevel, e.type === 'runLevelStarted' ? 'started' : 'finished', e.version ?? '');
    },
  };
  return running(await startClusterVersionOperator(options));
}

/** The virtual machines (each with its daemon) plus a virtual kubelet on each master for the CVO's payload Pods. */
async function startNodes(
  ctx: ComponentContext,
  o: Parameters<RehearsalComponents['startVirtualNodes']>[1],
): Promise<RunningNodes> {
  const specs: VirtualNodeSpec[] = o.nodes.map((n) => ({
    name: n.name,
    role: n.roles[0] ?? 'worker',
    pool: n.roles.at(-1) ?? 'worker',
    labels: Object.fromEntries(n.roles.map((r) => [`node-role.kubernetes.io/${r}`, ''])),
  }));
  const options: VirtualNodesOptions = {
    kubeconfig: ctx.kubeconfigPath,
    ...(ctx.kubeletKubeconfigPath !== undefined && ctx.kubeletKubeconfigPath !== ctx.kubeconfigPath
      ? { kubeletKubeconfig: ctx.kubeletKubeconfigPath }
      : {}),
    nodes: specs,
    ...(o.serverUrl !== undefined ? { serverUrl: o.serverUrl } : {}),
    rebootDurationMs: Math.round(SIMULATED_REBOOT_MS / ctx.timeScale),
    syncBackoff: daemonSyncBackoff(ctx.timeScale),
    timeScale: ctx.timeScale,
    rootDir: `${ctx.workDir}/nodes`,
    faults: { failBootOn: o.failBoot, onDiskDrift: o.drift },
    logger: componentLogger(ctx, 'machine-config-daemon'),
  };
  const machines = await startVirtualNodes(options);
  // each master's kubelet runs the CVO's payload-retrieval Pods bound to it (the MCO's virtual machines run the
  // daemon only)
  const kubeletClient = KubeClient.fromKubeconfigFile(ctx.kubeletKubeconfigPath ?? ctx.kubeconfigPath, {
    userAgent: 'kubelet/keelson-virtual',
  });
  const kubelets = await Promise.all(
    specs
      .filter((n) => n.role === 'master')
      .map((n) =>
        startPayloadKubelet({
          client: kubeletClient,
          nodeName: n.name,
          root: `${ctx.workDir}/nodes/${n.name}`,
          timeScale: ctx.timeScale,
          log: componentLogger(ctx, `kubelet-${n.name}`),
        }),
      ),
  );
  return {
    stop: async () => {
      await Promise.all(kubelets.map((k) => k.stop()));
      await kubeletClient.close();
      await machines.stop();
    },
    rebooting: (node) => machines.machines.get(node)?.rebooting === true,
    restartDaemon: async (node) => {
      // the machine powers off (its daemon aborted mid-step, state left as is) and boots again
      const m = machines.machines.get(node);
      if (m === undefined) throw new Error(`no virtual machine ${node}`);
      await m.stop();
      await m.start();
    },
  };
}

/** The cluster-operator simulator of `@keelson/kube-sandbox` on the compressed clock. */
async function startSimulator(
  ctx: ComponentContext,
  o: Parameters<RehearsalComponents['startOperatorSimulator']>[1],
): Promise<RunningOperators> {
  const faults: NonNullable<OperatorSimulatorOptions['faults']> = {};
  for (const n of o.degraded) faults[n] = { kind: 'degraded' };
  for (const n of o.never) faults[n] = { kind: 'never' };
  const sim = await startOperatorSimulator({
    kubeconfig: await readFile(ctx.kubeconfigPath, 'utf8'),
    delayMs: Math.max(10, 5000 / ctx.timeScale),
    faults,
    versions: o.versions,
  });
  return {
    stop: () => sim.stop(),
    setVersions: (v) => {
      sim.setVersions(v);
    },
  };
}

/** Wraps the typed entry points into {@link RehearsalComponents} (the one place that knows their option shapes). */
function wire(requestUpgrade: UpgradeRequester): RehearsalComponents {
  return {
    startCvo,
    async startMachineConfigOperator(ctx, o) {
      // the Deployment's images volume: ControllerConfig spec.images come from the release's images.json
      const images = await readMcoImages(ctx.kubeconfigPath);
      const options: MachineConfigOperatorOptions = {
        kubeconfig: ctx.kubeconfigPath,
        releaseVersion: o.releaseVersion,
        ...(images !== undefined ? { images } : {}),
        timeScale: ctx.timeScale,
        logger: componentLogger(ctx, 'machine-config-operator'),
      };
      return running(await startMachineConfigOperator(options));
    },
    async startMachineConfigController(ctx) {
      // MachineConfigControllerOptions has no release version (the controller stamps its own build's version); the
      // untyped wiring used to pass one, which was silently ignored
      const options: MachineConfigControllerOptions = {
        kubeconfig: ctx.kubeconfigPath,
        timeScale: ctx.timeScale,
        logger: componentLogger(ctx, 'machine-config-controller'),
      };
      return running(await startMachineConfigController(options));
    },
    async startMachineConfigServer(ctx, o) {
      const options: MachineConfigServerOptions = {
        kubeconfig: ctx.kubeconfigPath,
        apiserverURL: o.apiserverUrl,
        securePort: null,
        insecurePort: 0,
        host: '127.0.0.1',
        noKubeconfig: true,
        logger: componentLogger(ctx, 'machine-config-server'),
      };
      const r = await startMachineConfigServer(options);
      return { stop: () => r.stop(), ...(r.insecureUrl !== undefined ? { url: r.insecureUrl } : {}) };
    },
    startVirtualNodes: startNodes,
    startOperatorSimulator: startSimulator,
    async requestUpgrade(ctx, o) {
      await requestUpgrade(ctx.kubeconfigPath, o);
    },
  };
}

/** ClusterVersion as far as {@link requestUpgradeByPatch} reads it. */
interface ClusterVersionUpdates {
  status?: { availableUpdates?: { version?: string; image?: string }[] | null };
}

/**
 * The update request `oc adm upgrade --to VERSION [--force]` makes, without the CLI: once the CVO offers `version` in
 * `status.availableUpdates` (it has polled the update service), `spec.desiredUpdate` is written as oc's JSON merge
 * patch (openshift/oc pkg/cli/admin/upgrade/upgrade.go `Run`). Waits at most 60 s for the offer.
 */
export async function requestUpgradeByPatch(
  kubeconfigPath: string,
  o: { toImage: string; version: string; force?: boolean },
): Promise<void> {
  const client = KubeClient.fromKubeconfigFile(kubeconfigPath, { userAgent: 'keelson-rehearsal' });
  const path = '/apis/config.openshift.io/v1/clusterversions/version';
  try {
    for (let attempt = 0; ; attempt++) {
      const cv = await client.request<ClusterVersionUpdates>('GET', path);
      const offered = (cv.status?.availableUpdates ?? []).find((u) => u.version === o.version);
      if (offered !== undefined) {
        const desiredUpdate = {
          architecture: '',
          version: o.version,
          image: offered.image ?? o.toImage,
          force: o.force === true,
        };
        await client.request('PATCH', path, {
          body: { spec: { desiredUpdate } },
          contentType: 'application/merge-patch+json',
        });
        return;
      }
      if (attempt >= 120)
        throw new Error(`the CVO does not offer ${o.version} in status.availableUpdates: cannot request the update`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await client.close();
  }
}
