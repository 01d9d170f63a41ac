/**
 * THE adapter between the rehearsal and the real Keelson components it composes: the CVO app, the MCO app (operator,
 * controller, server, virtual nodes with their daemons), the cluster-operator simulator and the `keelson upgrade --to`
 * code path. The rehearsal only sees the interfaces below; each loader finds the component's entry point (the same one
 * users run) and wraps it. A component that is not there (yet) is reported as missing with the reason, and the
 * rehearsal refuses to run instead of faking its results.
 */

import { access, mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { KubeClient } from '@keelson/kube';
import { generateTls } from '@keelson/kube-sandbox';
import { clientFromKubeconfig, requestUpgrade } from '../upgrade/cluster.js';
import { startCvoProcess } from './cvo-process.js';
import { readMcoImages } from './mco-images.js';
import { UpgradeRequestError } from '../upgrade/request.js';

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

type Fn = (...args: unknown[]) => unknown;
type Module = Record<string, unknown>;

async function importModule(specifier: string): Promise<Module | string> {
  try {
    const m: unknown = await import(specifier);
    return m as Module;
  } catch (e) {
    return `cannot import ${specifier}: ${(e as Error).message.split('\n')[0] ?? ''}`;
  }
}

function exported(mod: Module | string, name: string, specifier: string): Fn | string {
  if (typeof mod === 'string') return mod;
  const f = mod[name];
  return typeof f === 'function' ? (f as Fn) : `${specifier} does not export ${name} (not merged into this branch yet)`;
}

function asRunning(v: unknown, what: string): Running {
  const o = v as { stop?: unknown; kill?: unknown; isLeader?: unknown } | null;
  if (o === null || typeof o.stop !== 'function') throw new TypeError(`${what} returned no stop()`);
  const stop = o.stop as () => Promise<void>;
  const kill = o.kill;
  const isLeader = o.isLeader;
  return {
    stop: () => stop.call(o),
    ...(typeof kill === 'function' ? { kill: () => (kill as () => Promise<void>).call(o) } : {}),
    ...(typeof isLeader === 'function' ? { leading: () => (isLeader as () => unknown).call(o) === true } : {}),
  };
}

interface Entry {
  name: string;
  specifier: string;
  exportName: string;
}

const ENTRIES: readonly Entry[] = [
  {
    name: 'cluster-version-operator',
    specifier: '@keelson/cluster-version-operator',
    exportName: 'startClusterVersionOperator',
  },
  {
    name: 'machine-config-operator',
    specifier: '@keelson/machine-config-operator',
    exportName: 'startMachineConfigOperator',
  },
  {
    name: 'machine-config-controller',
    specifier: '@keelson/machine-config-operator',
    exportName: 'startMachineConfigController',
  },
  {
    name: 'machine-config-server',
    specifier: '@keelson/machine-config-operator',
    exportName: 'startMachineConfigServer',
  },
  {
    name: 'virtual nodes (machine-config-daemon)',
    specifier: '@keelson/machine-config-operator',
    exportName: 'startVirtualNodes',
  },
  { name: 'cluster-operator simulator', specifier: '@keelson/kube-sandbox', exportName: 'startOperatorSimulator' },
  {
    name: 'virtual kubelets (payload-retrieval Pods)',
    specifier: '@keelson/cluster-version-operator',
    exportName: 'startPayloadKubelet',
  },
];

/** `keelson upgrade --to`: the same code path as the command (apps/keelson src/upgrade/cluster.ts requestUpgrade). */
const REQUEST_UPGRADE: ComponentStatus = {
  name: 'keelson upgrade --to (requestUpgrade)',
  provider: 'apps/keelson src/upgrade/cluster.ts requestUpgrade',
  available: true,
};

/**
 * Imports a component package by name (packages with an `exports` map), else its built `dist/index.js` (apps that
 * ship no `exports` map).
 */
async function importEntry(specifier: string): Promise<Module | string> {
  const byName = await importModule(specifier);
  if (typeof byName !== 'string') return byName;
  const dist = await importModule(`${specifier}/dist/index.js`);
  return typeof dist === 'string' ? byName : dist;
}

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

/** Finds every component; `components` is set only when all of them are available. */
export async function loadComponents(): Promise<{ components?: RehearsalComponents; status: ComponentStatus[] }> {
  const mods = new Map<string, Module | string>();
  const fns = new Map<string, Fn>();
  const status: ComponentStatus[] = [];
  for (const e of ENTRIES) {
    if (!mods.has(e.specifier)) mods.set(e.specifier, await importEntry(e.specifier));
    const f = exported(mods.get(e.specifier) ?? '', e.exportName, e.specifier);
    const provider = `${e.specifier} ${e.exportName}`;
    if (typeof f === 'string') status.push({ name: e.name, provider, available: false, reason: f });
    else {
      fns.set(e.exportName, f);
      status.push({ name: e.name, provider, available: true });
    }
  }
  status.push(REQUEST_UPGRADE);
  if (status.some((s) => !s.available)) return { status };
  return { status, components: wire(fns) };
}

function need(fns: ReadonlyMap<string, Fn>, name: string): Fn {
  const f = fns.get(name);
  if (f === undefined) throw new Error(`component ${name} is not loaded`);
  return f;
}

/**
 * Leader election on the compressed clock: Lease durations are whole seconds in the API, so the upstream 137 s / 107 s
 * / 26 s are scaled and rounded up, keeping lease > renew deadline > retry period. The scaled values are floored at
 * 15 s / 10 s / 2 s of wall time: API latency does not shrink with the simulated clock, and on a loaded machine a 2 s
 * renew deadline made the in-process CVO step down mid-install (nothing restarts it, as kubelet would a pod).
 */
export function leaderElectionIntervals(timeScale: number): {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
} {
  const retry = Math.max(2, Math.ceil(26 / timeScale));
  const renew = Math.max(retry + 1, 10, Math.ceil(107 / timeScale));
  const lease = Math.max(renew + 1, 15, Math.ceil(137 / timeScale));
  return { leaseDurationMs: lease * 1000, renewDeadlineMs: renew * 1000, retryPeriodMs: retry * 1000 };
}

/** Wraps the loaded entry points into {@link RehearsalComponents} (the one place that knows their option shapes). */
function wire(fns: ReadonlyMap<string, Fn>): RehearsalComponents {
  const logger = (ctx: ComponentContext, component: string): unknown => {
    const line = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
      ctx.log(component, JSON.stringify({ level, msg, ...fields }));
    };
    return {
      info: line('info'),
      warn: line('warn'),
      error: line('error'),
      debug: line('debug'),
      child: () => logger(ctx, component),
    };
  };
  return {
    async startCvo(ctx, o) {
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
      const r = await need(
        fns,
        'startClusterVersionOperator',
      )({
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
        logger: logger(ctx, 'cluster-version-operator'),
        onEvent: (e: { type: string; runLevel?: string; version?: string }) => {
          if ((e.type === 'runLevelStarted' || e.type === 'runLevelFinished') && e.runLevel !== undefined)
            o.progress.runLevel?.(e.runLevel, e.type === 'runLevelStarted' ? 'started' : 'finished', e.version ?? '');
        },
      });
      return asRunning(r, 'startClusterVersionOperator');
    },
    async startMachineConfigOperator(ctx, o) {
      // the Deployment's images volume: ControllerConfig spec.images come from the release's images.json
      const images = await readMcoImages(ctx.kubeconfigPath);
      return asRunning(
        await need(
          fns,
          'startMachineConfigOperator',
        )({
          kubeconfig: ctx.kubeconfigPath,
          releaseVersion: o.releaseVersion,
          ...(images !== undefined ? { images } : {}),
          timeScale: ctx.timeScale,
          logger: logger(ctx, 'machine-config-operator'),
        }),
        'startMachineConfigOperator',
      );
    },
    async startMachineConfigController(ctx, o) {
      return asRunning(
        await need(
          fns,
          'startMachineConfigController',
        )({
          kubeconfig: ctx.kubeconfigPath,
          releaseVersion: o.releaseVersion,
          timeScale: ctx.timeScale,
          logger: logger(ctx, 'machine-config-controller'),
        }),
        'startMachineConfigController',
      );
    },
    async startMachineConfigServer(ctx, o) {
      const r = (await need(
        fns,
        'startMachineConfigServer',
      )({
        kubeconfig: ctx.kubeconfigPath,
        apiserverURL: o.apiserverUrl,
        securePort: null,
        insecurePort: 0,
        host: '127.0.0.1',
        noKubeconfig: true,
        logger: logger(ctx, 'machine-config-server'),
      })) as { insecureUrl?: unknown };
      const url = typeof r.insecureUrl === 'string' ? r.insecureUrl : undefined;
      return { ...asRunning(r, 'startMachineConfigServer'), ...(url !== undefined ? { url } : {}) };
    },
    async startVirtualNodes(ctx, o) {
      const specs = o.nodes.map((n) => {
        const pool = n.roles.at(-1) ?? 'worker';
        return {
          name: n.name,
          role: n.roles[0] ?? 'worker',
          pool,
          labels: Object.fromEntries(n.roles.map((r) => [`node-role.kubernetes.io/${r}`, ''])),
        };
      });
      const r = (await need(
        fns,
        'startVirtualNodes',
      )({
        kubeconfig: ctx.kubeconfigPath,
        ...(ctx.kubeletKubeconfigPath !== undefined && ctx.kubeletKubeconfigPath !== ctx.kubeconfigPath
          ? { kubeletKubeconfig: ctx.kubeletKubeconfigPath }
          : {}),
        nodes: specs,
        ...(o.serverUrl !== undefined ? { serverUrl: o.serverUrl } : {}),
        rebootDurationMs: Math.round(SIMULATED_REBOOT_MS / ctx.timeScale),
        rootDir: `${ctx.workDir}/nodes`,
        faults: { failBootOn: o.failBoot, onDiskDrift: o.drift },
        logger: logger(ctx, 'machine-config-daemon'),
      })) as { machines?: unknown };
      const machines = asRunning(r, 'startVirtualNodes');
      // each master's kubelet runs the CVO's payload-retrieval Pods bound to it (the MCO's virtual machines run the
      // daemon only)
      const kubeletClient = KubeClient.fromKubeconfigFile(ctx.kubeletKubeconfigPath ?? ctx.kubeconfigPath, {
        userAgent: 'kubelet/keelson-virtual',
      });
      const kubelets = await Promise.all(
        specs
          .filter((n) => n.role === 'master')
          .map(async (n) =>
            asRunning(
              await need(
                fns,
                'startPayloadKubelet',
              )({
                client: kubeletClient,
                nodeName: n.name,
                root: `${ctx.workDir}/nodes/${n.name}`,
                timeScale: ctx.timeScale,
                log: logger(ctx, `kubelet-${n.name}`),
              }),
              'startPayloadKubelet',
            ),
          ),
      );
      const base: Running = {
        ...machines,
        stop: async () => {
          await Promise.all(kubelets.map((k) => k.stop()));
          await kubeletClient.close();
          await machines.stop();
        },
      };
      const machineMap = r.machines instanceof Map ? (r.machines as Map<string, { rebooting?: unknown }>) : undefined;
      return {
        ...base,
        rebooting: (node) => machineMap?.get(node)?.rebooting === true,
        restartDaemon: async (node) => {
          // the machine powers off (its daemon aborted mid-step, state left as is) and boots again
          const m =
            (r.machines instanceof Map
              ? (r.machines as Map<string, { stop?: unknown; start?: unknown }>).get(node)
              : undefined) ?? {};
          if (typeof m.stop !== 'function' || typeof m.start !== 'function')
            throw new Error(`no virtual machine ${node}`);
          await (m.stop as () => Promise<void>).call(m);
          await (m.start as () => Promise<void>).call(m);
        },
      };
    },
    async startOperatorSimulator(ctx, o) {
      const faults: Record<string, unknown> = {};
      for (const n of o.degraded) faults[n] = { kind: 'degraded' };
      for (const n of o.never) faults[n] = { kind: 'never' };
      const { readFile } = await import('node:fs/promises');
      const r = (await need(
        fns,
        'startOperatorSimulator',
      )({
        kubeconfig: await readFile(ctx.kubeconfigPath, 'utf8'),
        delayMs: Math.max(10, 5000 / ctx.timeScale),
        faults,
        versions: o.versions,
      })) as { setVersions?: unknown };
      const base = asRunning(r, 'startOperatorSimulator');
      const set = r.setVersions;
      return {
        ...base,
        setVersions: (v) => {
          if (typeof set === 'function') (set as (x: unknown) => void).call(r, v);
        },
      };
    },
    async requestUpgrade(ctx, o) {
      await requestUpgradeLikeTheCli(ctx.kubeconfigPath, o);
    },
  };
}

/**
 * `keelson upgrade --to VERSION` against the rehearsal cluster. The CVO publishes B in `status.availableUpdates` once it
 * has polled the local update service; until then oc's "not one of the possible targets" refusal is retried (for at most
 * 60 s), and any other refusal is final.
 */
async function requestUpgradeLikeTheCli(
  kubeconfigPath: string,
  o: { toImage: string; version: string; force?: boolean },
): Promise<void> {
  const client = await clientFromKubeconfig(kubeconfigPath);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await requestUpgrade(client, { to: o.version, ...(o.force === true ? { force: true } : {}) });
        return;
      } catch (e) {
        const notYetOffered =
          e instanceof UpgradeRequestError &&
          !e.usage &&
          /not one of the possible targets|no recommended updates|cannot refresh available updates/i.test(e.message);
        if (!notYetOffered || attempt >= 120) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await client.close();
  }
}
