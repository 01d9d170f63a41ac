/**
 * `rehearse`: a whole OpenShift update on one machine. Releases A and B (generated, published as signed OCI images, or
 * the user's), a local update service, the embedded API server behind a counting proxy, the real Keelson components
 * (through {@link loadComponents}), install A, `upgrade --to B`, and a timeline of everything the observer saw.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  publishRehearsalReleases,
  startOciRegistry,
  type OciRegistry,
  type PublishedReleases,
  type ReleaseMirror,
} from './release/index.js';
import { isAlreadyExists, KubeClient } from '@keelson/kube';
import {
  buildKubeconfig,
  clusterCABundleObjects,
  kubeconfigYaml,
  OPERATOR_SIMULATOR_IDENTITY,
  operatorSimulatorManifests,
  startSandbox,
  type KubeObject,
  type Sandbox,
} from '@keelson/kube-sandbox';
import { filterManifests, openPayload, type ReleasePayload } from '@keelson/release-payload';
import { computeRunLevels } from './run-levels.js';
import { startApiProxy, type ApiProxy } from './api-proxy.js';
import { startTlsFront } from './tls-front.js';
import { installCrds } from './bootstrap-crds.js';
import { planCleanup, refOf, releaseObjects, runCleanup, type ObjectRef } from './cleanup.js';
import { checkEmpty, checkRights, CREDENTIALS_REFRESH_MS, openTarget, type TargetCluster } from './target.js';
import {
  loadComponents,
  machineConfigManifestsDir,
  SIMULATED_REBOOT_MS,
  type ComponentContext,
  type RehearsalComponents,
  type Running,
  type RunningNodes,
  type RunningOperators,
  type UpgradeRequester,
} from './components.js';
import { describeFaults, type FaultPlan } from './faults.js';
import { McoSyncFault } from './mco-sync-fault.js';
import { rehearsalPullSecret } from './installer-objects.js';
import { clusterConfigObjects, installClusterConfig } from './cluster-config-install.js';
import { ADMIN_ACK_RELEASES, blockedOnAdminAck, checkAdminAckReleases, giveAdminAcks } from './admin-ack.js';
import { diagnose, type Diagnosis, type PoolDiagnoser } from './diagnosis.js';
import { rehearsalTargets, validateFaultTargets } from './fault-targets.js';
import {
  COMPONENT_WORKLOADS,
  cvoBootstrapRbac,
  ServiceAccountMissing,
  shippedBindings,
  waitForClusterWorkload,
  waitForServiceAccount,
  WorkloadMissing,
  workloadServiceAccount,
  writeServiceAccountKubeconfig,
  type ReleaseComponent,
  type ServiceAccountRef,
} from './identities.js';
import type { IntOrPercent } from './max-unavailable.js';

import { startObserver, type Observer } from './observer.js';
import { decideRestarts } from './supervise.js';
import { computeReport, EXIT_CODES, withinMaxUnavailable, type ApiCounts, type RehearsalReport } from './report.js';
import type { TimelineEvent } from './timeline.js';
import { openUserReleases } from './user-release.js';
import {
  cond,
  decideUpdateVerdict,
  degradedPool,
  explainStall,
  history0,
  poolsUpdated,
  nextRefusedSince,
  type DrainFailure,
  type RehearsalVerdict,
} from './verdict.js';
import { unsettledPools, type MachineConfigLike } from './settled.js';
import { startUpdateService, type UpdateService } from './update-service.js';
import { bootstrapImageConfig, imageConfigObjects } from './image-config.js';
import { applyReleaseMirror, RELEASE_MIRROR_SET } from './release-mirror.js';
import { bootstrapPriorityClasses, priorityClassObjects } from './priority-classes.js';

/** The installer's bootstrap machine-config-server the machines first boot from (see {@link Session.install}). */
const BOOTSTRAP_MCS = 'machine-config-server (bootstrap)';
/** The component with a stop() that runs once however often it is called (stopped early, then at the end). */
function stopOnce<T extends Running>(r: T): T {
  let stopping: Promise<void> | undefined;
  return { ...r, stop: () => (stopping ??= r.stop()) };
}
/** The machine-config-operator's operands: its operator deploys their workloads, the release ships none of them. */
const MCO_OPERANDS: ReadonlySet<string> = new Set([
  'machine-config-controller',
  'machine-config-daemon',
  'machine-config-server',
]);

/** Options of {@link rehearse}. */
export interface RehearseOptions {
  /** Current release (DIR or IMAGE); default: generated release A. */
  from?: string;
  /** Target release; default: generated release B. */
  to?: string;
  /** Request the update with force (`oc adm upgrade --force`): the CVO accepts a target it cannot verify. */
  force?: boolean;
  /**
   * `--release-mirror`: the generated B is published only under a mirror repository of the rehearsal registry; an
   * ImageDigestMirrorSet is created and rolled out to every node (see ./release-mirror.ts) before `upgrade --to`.
   */
  releaseMirror?: boolean;
  masters: number;
  workers: number;
  /** Extra pools: name → node count (nodes labelled worker and <name>, as custom pools are). */
  pools: Record<string, number>;
  /**
   * `spec.maxUnavailable` per pool (`--max-unavailable`): set on master/worker once A is installed, before the update
   * (an admin's `oc patch mcp worker --type merge -p '{"spec":{"maxUnavailable":"10%"}}'`), and in the custom pools'
   * definitions when they are created.
   */
  maxUnavailable?: Record<string, IntOrPercent>;
  timeScale: number;
  faults: FaultPlan;
  /** Give up (Stalled) after this many wall-clock seconds per phase. */
  timeoutSeconds: number;
  workDir: string;
  /** Receives every timeline event as it happens. */
  onEvent?: (e: TimelineEvent) => void;
  /** Component logs (default: dropped). */
  onLog?: (component: string, line: string) => void;
  /**
   * `--hold`: called with the report once the verdict is in, while every component still runs; the cluster is stopped
   * when the returned promise settles (the CLI waits for Ctrl-C).
   */
  hold?: (report: RehearsalReport, kubeconfigPath: string) => Promise<void>;
  /**
   * `--kubeconfig`: rehearse against this existing API server instead of an embedded one (see ./target.ts): refused
   * before anything is written when it lacks the rights or holds OpenShift objects.
   */
  kubeconfig?: string;
  /** With {@link RehearseOptions.kubeconfig}: leave what the rehearsal created in the cluster (`--keep`). */
  keepCluster?: boolean;
  /** Lines for the user outside the report (the cleanup of a `--kubeconfig` cluster). */
  onNotice?: (line: string) => void;
  /**
   * How B is requested once A is installed (the CLI passes its `keelson upgrade --to` code path); default
   * {@link requestUpgradeByPatch}, the `spec.desiredUpdate` merge patch `oc adm upgrade --to` writes.
   */
  requestUpgrade?: UpgradeRequester;
  /**
   * Explains the MachineConfigPools that are not done when the update fails or stalls (the CLI passes `keelson mcp why`);
   * default: pools are not explained (operators, admin acks and workloads are).
   */
  diagnosePools?: PoolDiagnoser;
}

/** Result of {@link rehearse}. */
export interface RehearsalResult {
  report: RehearsalReport;
  events: TimelineEvent[];
}

const EMPTY_API: ApiCounts = { total: 0, byVerb: {}, evictions: 0, pdbRefusals: 0, injectedErrors: 0 };

/** A release the rehearsal can hand to the CVO. */
interface Release {
  version: string;
  pullSpec: string;
  payload: ReleasePayload;
  dir: string;
  /** `--release-mirror`: the only repository holding this release, and the source its pull spec names. */
  mirror?: ReleaseMirror;
}

/** How long one component may take to stop before the rehearsal goes on without it (wall time). */
export const COMPONENT_STOP_TIMEOUT_MS = 30_000;

/**
 * Everything started, to be stopped in reverse order. A component that does not stop within
 * {@link COMPONENT_STOP_TIMEOUT_MS} is named on stderr and left behind, so a stuck component cannot keep the rehearsal
 * (and its report) from ending.
 */
class Stack {
  private readonly items: { name: string; stop: () => Promise<void> }[] = [];
  push(name: string, stop: () => Promise<void>): void {
    this.items.push({ name, stop });
  }
  async stopAll(timeoutMs = COMPONENT_STOP_TIMEOUT_MS): Promise<void> {
    for (const it of this.items.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => {
          resolve('late');
        }, timeoutMs);
      });
      const done = it.stop().then(
        () => 'stopped' as const,
        () => 'stopped' as const, // keep stopping the rest
      );
      const outcome = await Promise.race([done, late]);
      clearTimeout(timer);
      if (outcome === 'late')
        process.stderr.write(
          `keelson rehearse: ${it.name} did not stop within ${timeoutMs / 1000}s; going on without it\n`,
        );
    }
  }
}

/** The node names and roles of the rehearsal cluster. */
export function nodeInventory(
  masters: number,
  workers: number,
  pools: Readonly<Record<string, number>>,
): { name: string; roles: string[] }[] {
  const out: { name: string; roles: string[] }[] = [];
  for (let i = 0; i < masters; i++) out.push({ name: `master-${i}`, roles: ['master'] });
  for (let i = 0; i < workers; i++) out.push({ name: `worker-${i}`, roles: ['worker'] });
  for (const [pool, n] of Object.entries(pools))
    for (let i = 0; i < n; i++) out.push({ name: `${pool}-${i}`, roles: ['worker', pool] });
  return out;
}

/** The sandbox's kubeconfig pointed at another server URL (the proxy). */
export function kubeconfigFor(sandbox: Sandbox, server: string): string {
  return sandbox.kubeconfigYaml().replace(/server: \S+/, `server: ${server}`);
}

/**
 * A custom pool as OpenShift's documentation has admins define one: nodes labelled `node-role.kubernetes.io/<name>`,
 * MachineConfigs of role worker and <name>; with `spec.maxUnavailable` when given.
 */
export function customPool(name: string, maxUnavailable?: IntOrPercent): Record<string, unknown> {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name },
    spec: {
      machineConfigSelector: {
        matchExpressions: [{ key: 'machineconfiguration.openshift.io/role', operator: 'In', values: ['worker', name] }],
      },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
      ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
    },
  };
}

/**
 * The `--pools` custom pools, created with the cluster (as install-time manifests are) so that their machines, which
 * fetch `/config/<pool>` from the machine-config-server when they boot, find a rendered config.
 */
export async function createCustomPools(
  client: KubeClient,
  pools: Readonly<Record<string, number>>,
  maxUnavailable: Readonly<Record<string, IntOrPercent>>,
): Promise<void> {
  for (const name of Object.keys(pools)) {
    await client.request('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools', {
      body: customPool(name, maxUnavailable[name]),
    });
  }
}

/** Creates what the installer creates before the CVO runs: the payload's CRDs, the CVO's namespace, the cluster's CA ConfigMaps, ClusterVersion `version`. */
export async function bootstrapCluster(
  client: KubeClient,
  a: Pick<Release, 'payload'>,
  svc: Pick<UpdateService, 'channel' | 'upstream'>,
  caObjects?: readonly KubeObject[],
): Promise<void> {
  const crds = filterManifests(a.payload).included.filter((m) => m.gvk.kind === 'CustomResourceDefinition');
  await installCrds(
    client,
    crds.map((m) => m.object),
  );
  // the image configuration of an installed cluster (mirror sets reach nodes through the MCO)
  await bootstrapImageConfig(client);
  // openshift-user-critical, which the CVO's version Pod names (kube-apiserver's Priority admission needs it)
  await bootstrapPriorityClasses(client);
  // the CVO's own namespaces (rendered from its manifests/ by the installer's bootstrap, where its Lease lives)
  for (const m of a.payload.manifests.filter(
    (x) => x.dir === 'manifests' && x.gvk.group === '' && x.gvk.kind === 'Namespace',
  )) {
    try {
      await client.request('POST', '/api/v1/namespaces', { body: m.object });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  // the CVO's ServiceAccount and RBAC (the installer creates them with the CVO's Deployment), and the identity of the
  // cluster-operator simulator
  const objects = [...cvoBootstrapRbac(a.payload).map((m) => m.object), ...operatorSimulatorManifests()];
  for (const o of objects) await createIfMissing(client, o);
  // the CA bundles of an installed cluster (the installer's root-ca and initial serving CA, the kube-apiserver
  // operator's client CA, bootstrap complete): the machine-config-operator reads them into its ControllerConfig
  for (const o of caObjects ?? (await clusterCABundleObjects())) {
    const path =
      o.kind === 'Namespace' ? '/api/v1/namespaces' : `/api/v1/namespaces/${o.metadata?.namespace ?? ''}/configmaps`;
    try {
      await client.request('POST', path, { body: o });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  // the installer's cluster configuration (Infrastructure, Network, Proxy, DNS, APIServer, Image) the MCO reads
  await installClusterConfig(client);
  // the installer's global pull secret, which ControllerConfig spec.pullSecret names
  await client
    .request('POST', '/api/v1/namespaces/openshift-config/secrets', { body: rehearsalPullSecret() })
    .catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
  await client.request('POST', '/apis/config.openshift.io/v1/clusterversions', {
    body: {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: randomUUID(), channel: svc.channel, upstream: svc.upstream },
    },
  });
}

const RBAC_PLURALS: Record<string, string> = {
  ServiceAccount: 'serviceaccounts',
  Namespace: 'namespaces',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
};

/** Creates a Namespace, ServiceAccount or RBAC object unless it exists. */
async function createIfMissing(
  client: KubeClient,
  o: { apiVersion?: unknown; kind?: unknown; metadata?: { namespace?: string } },
): Promise<void> {
  const plural = RBAC_PLURALS[String(o.kind)];
  if (plural === undefined) throw new Error(`bootstrap: unexpected kind ${String(o.kind)}`);
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${String(o.apiVersion)}`;
  const ns = o.metadata?.namespace;
  const path =
    ns !== undefined &&
    ns !== '' &&
    plural !== 'namespaces' &&
    plural !== 'clusterroles' &&
    plural !== 'clusterrolebindings'
      ? `${base}/namespaces/${ns}/${plural}`
      : `${base}/${plural}`;
  try {
    await client.request('POST', path, { body: o });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

function configName(p: unknown): string {
  const name = (p as { status?: { configuration?: { name?: unknown } } }).status?.configuration?.name;
  return typeof name === 'string' ? name : '';
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Runs the rehearsal; never throws for a failed update (that is the report's outcome), only for broken setup. */
export async function rehearse(opts: RehearseOptions): Promise<RehearsalResult> {
  const t0 = Date.now();
  const events: TimelineEvent[] = [];
  const emit = (e: TimelineEvent): void => {
    events.push(e);
    opts.onEvent?.(e);
  };
  return runWith(loadComponents(opts.requestUpgrade).components, opts, t0, emit, events);
}

/** One rehearsal's running state: what was started (stopped in reverse), the clock and the event sink. */
class Session {
  readonly stack = new Stack();
  proxy: ApiProxy | undefined;
  constructor(
    readonly c: RehearsalComponents,
    readonly opts: RehearseOptions,
    readonly t0: number,
    readonly emit: (e: TimelineEvent) => void,
    readonly events: readonly TimelineEvent[],
  ) {}

  t(): number {
    return Date.now() - this.t0;
  }

  /** Set once the rehearsal is over: components that finish starting afterwards are stopped at once. */
  closed = false;

  started<R extends Running>(component: string, r: R, detail?: string): R {
    if (this.closed) {
      void r.stop().catch(() => undefined);
      return r;
    }
    this.emit({
      t: this.t(),
      type: 'component',
      component,
      state: 'started',
      ...(detail !== undefined ? { detail } : {}),
    });
    this.stack.push(component, () => r.stop());
    return r;
  }

  /** Releases A and B: generated and published, or the user's. */
  async releases(): Promise<{ a: Release; b: Release }> {
    const { opts, stack } = this;
    await mkdir(opts.workDir, { recursive: true });
    if (opts.releaseMirror === true && (opts.from !== undefined || opts.to !== undefined))
      throw new Error(
        '--release-mirror publishes the generated release B under a mirror: it does not go with --from/--to',
      );
    if (opts.from === undefined || opts.to === undefined) {
      const mcoDir = await machineConfigManifestsDir();
      const pub: PublishedReleases = await publishRehearsalReleases({
        out: join(opts.workDir, 'releases'),
        ...(opts.releaseMirror === true ? { mirrorTarget: true } : {}),
        ...(mcoDir !== undefined ? { machineConfigManifestsDir: mcoDir } : {}),
        // a minor update whose A carries an admin-ack gate
        ...(opts.faults.adminAck !== undefined ? ADMIN_ACK_RELEASES : {}),
      });
      stack.push('releases', () => pub.close());
      return {
        a: {
          version: pub.from.version,
          pullSpec: pub.from.pullSpec,
          payload: await openPayload(pub.from.dir),
          dir: pub.from.dir,
        },
        b: {
          version: pub.to.version,
          pullSpec: pub.to.pullSpec,
          payload: await openPayload(pub.to.dir),
          dir: pub.to.dir,
          ...(pub.mirror !== undefined ? { mirror: pub.mirror } : {}),
        },
      };
    }
    let registry: OciRegistry | undefined;
    const getRegistry = async (): Promise<OciRegistry> => {
      if (registry === undefined) {
        const r = await startOciRegistry();
        registry = r;
        stack.push('registry', () => r.close());
      }
      return registry;
    };
    return openUserReleases(opts.from, opts.to, getRegistry, opts.workDir, opts.force === true);
  }

  /**
   * Every `--fault`/`--kill`/`--pause-pool` target exists in this cluster (else a {@link FaultSpecError} before
   * anything starts); a `cvo@N%` the update will not show is moved to the last point it shows, with a note.
   */
  checkFaultTargets(a: Release, b: Release): void {
    const { opts } = this;
    const nodes = nodeInventory(opts.masters, opts.workers, opts.pools).map((n) => n.name);
    const checked = validateFaultTargets(
      opts.faults,
      rehearsalTargets(a.payload, b.payload, nodes, Object.keys(opts.pools)),
    );
    for (const note of checked.notes) this.emit({ t: this.t(), type: 'fault', fault: 'kill-point', detail: note });
    if (opts.faults.adminAck !== undefined) checkAdminAckReleases(a.payload, b.payload);
    if (checked.killCvoAt !== undefined) this.killCvoAt = checked.killCvoAt;
  }

  /** The cluster's kubeconfig (through the counting proxy), once the API server runs. */
  kubeconfigPath: string | undefined;

  /** `--hold`: an HTTPS front on the proxy (kubectl sends no token over plain HTTP) and its kubeconfig file. */
  async heldKubeconfig(proxy: ApiProxy, kubeconfigPath: string): Promise<string> {
    const front = await startTlsFront(proxy.url);
    this.stack.push('held cluster (https)', () => front.close());
    const token = /token: (\S+)/.exec(await readFile(kubeconfigPath, 'utf8'))?.[1] ?? '';
    const path = join(this.opts.workDir, 'kubeconfig-held');
    await writeFile(path, front.kubeconfig(token), { mode: 0o600 });
    return path;
  }

  /** `--kill cvo@N%` as checked by {@link checkFaultTargets}. */
  killCvoAt: number | undefined;

  /** Update service, API server behind the proxy, bootstrap objects, observer. */
  async cluster(
    a: Release,
    b: Release,
  ): Promise<{ svc: UpdateService; direct: KubeClient; obs: Observer; ctx: ComponentContext }> {
    const { opts, stack } = this;
    const svc = await startUpdateService({
      from: { version: a.version, payload: a.pullSpec },
      to: { version: b.version, payload: b.pullSpec },
    });
    stack.push('update service', () => svc.close());
    const caObjects = await clusterCABundleObjects();
    const { px, kubeconfig, direct } =
      this.target !== undefined ? await this.existingServer(this.target, a, b, caObjects) : await this.embedded();
    this.proxy = px;
    stack.push('api proxy', () => px.close());
    const kubeconfigPath = join(opts.workDir, 'kubeconfig');
    this.kubeconfigPath = kubeconfigPath;
    await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
    this.direct = direct;
    await bootstrapCluster(direct, a, svc, caObjects);
    await createCustomPools(direct, opts.pools, opts.maxUnavailable ?? {});
    const obs = startObserver(direct, this.t0, this.emit);
    stack.push('observer', () => obs.stop());
    await obs.synced();
    // the kubelets of the virtual machines are not Keelson components: they keep the admin credentials
    return {
      svc,
      direct,
      obs,
      ctx: {
        kubeconfigPath,
        kubeletKubeconfigPath: kubeconfigPath,
        timeScale: opts.timeScale,
        workDir: opts.workDir,
        log: opts.onLog ?? (() => undefined),
      },
    };
  }

  direct: KubeClient | undefined;

  /** `--kubeconfig`: the existing API server, checked by {@link Session.connect}. */
  target: TargetCluster | undefined;

  /** `--kubeconfig`: opens the kubeconfig and refuses a server without the rights or with OpenShift objects. */
  async connect(file: string): Promise<void> {
    const t = await openTarget(file);
    await checkRights(t);
    await checkEmpty(
      t,
      nodeInventory(this.opts.masters, this.opts.workers, this.opts.pools).map((n) => n.name),
    );
    this.target = t;
  }

  /** The embedded API server (simulating the kubelets' pods) behind the counting proxy. */
  private async embedded(): Promise<{ px: ApiProxy; kubeconfig: string; direct: KubeClient }> {
    const sandbox = await startSandbox({ simulatePods: true });
    this.stack.push('api server', () => sandbox.stop());
    const px = await startApiProxy({ target: sandbox.url });
    const direct = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml(), { userAgent: 'keelson-rehearse' });
    return { px, kubeconfig: kubeconfigFor(sandbox, px.url), direct };
  }

  /**
   * `--kubeconfig`: the existing server behind the counting proxy (the admin's credentials stay in the proxy); what
   * the rehearsal will create is recorded first and deleted once every component has stopped, unless `--keep`.
   */
  private async existingServer(
    t: TargetCluster,
    a: Release,
    b: Release,
    caObjects: readonly KubeObject[],
  ): Promise<{ px: ApiProxy; kubeconfig: string; direct: KubeClient }> {
    const { opts } = this;
    const nodes = nodeInventory(opts.masters, opts.workers, opts.pools).map((n) => n.name);
    const refs: ObjectRef[] = [
      ...releaseObjects(a.payload),
      ...releaseObjects(b.payload),
      ...[
        ...cvoBootstrapRbac(a.payload).map((m) => m.object),
        ...operatorSimulatorManifests(),
        ...caObjects,
        ...(await imageConfigObjects()),
        ...priorityClassObjects(),
        ...(await clusterConfigObjects()),
      ]
        .map((o) => refOf(o))
        .filter((r) => r !== undefined),
      { apiVersion: 'v1', kind: 'Namespace', name: PDB_NAMESPACE },
    ];
    const plan = await planCleanup(t.client, refs, nodes);
    if (opts.keepCluster !== true)
      // pushed before any component: stopped last, once nothing writes to the cluster any more
      this.stack.push('cleanup', async () => {
        const r = await runCleanup(t.client, plan);
        opts.onNotice?.(
          `cleaned up ${t.server}: ${r.deleted} objects deleted (${plan.namespaces.length} namespaces, ${plan.crds.length} CRDs with their resources, ${nodes.length} Nodes)` +
            (r.failed.length > 0 ? `; could not delete: ${r.failed.join('; ')}` : '') +
            (r.terminating.length > 0 ? `; still terminating: ${r.terminating.join(', ')}` : ''),
        );
      });
    else opts.onNotice?.(`--keep: what the rehearsal created stays in ${t.server}`);
    const px = await startApiProxy({ target: t.server, upstream: t.upstream });
    const refresh = setInterval(() => void t.refresh().catch(() => undefined), CREDENTIALS_REFRESH_MS);
    this.stack.push('credentials refresh', () => {
      clearInterval(refresh);
      return Promise.resolve();
    });
    const kubeconfig = kubeconfigYaml(
      buildKubeconfig({ server: px.url, token: t.upstream.adminToken, name: 'keelson-rehearsal' }),
    );
    return { px, kubeconfig, direct: t.client };
  }

  /** The context of each component, with the kubeconfig of its ServiceAccount (see {@link Session.as}). */
  private readonly identities = new Map<string, { ctx: ComponentContext; who: string }>();

  /** The context a component was started with last (the admin one before it ever started). */
  ctxOf(component: string, ctx: ComponentContext): ComponentContext {
    return this.known(component, ctx).ctx;
  }

  /** The context and identity a component was started with last (the admin's before it ever started). */
  known(component: string, ctx: ComponentContext): { ctx: ComponentContext; who: string | undefined } {
    return this.identities.get(component) ?? { ctx, who: undefined };
  }

  /**
   * The component's context: a kubeconfig of the ServiceAccount its workload in `release` runs as, once the CVO has
   * created and bound it (the admin's when the release ships no workload for it, which the timeline says).
   */
  async as(
    ctx: ComponentContext,
    component: ReleaseComponent | 'cluster-operator simulator' | typeof BOOTSTRAP_MCS,
    release: Release,
    deadline: number,
  ): Promise<{ ctx: ComponentContext; who: string }> {
    const cached = this.identities.get(component);
    if (cached !== undefined) return cached;
    const direct = this.direct;
    let sa: ServiceAccountRef | undefined;
    if (component === 'cluster-operator simulator')
      sa = { namespace: OPERATOR_SIMULATOR_IDENTITY.namespace, name: OPERATOR_SIMULATOR_IDENTITY.serviceAccount };
    else if (component === BOOTSTRAP_MCS)
      // the installer's bootstrap server has no workload; it runs here as the in-cluster server's ServiceAccount
      // (RBAC from the release), so it is refused what that server would be
      sa = { namespace: COMPONENT_WORKLOADS['machine-config-server'].namespace, name: 'machine-config-server' };
    else {
      sa = workloadServiceAccount(release.payload, COMPONENT_WORKLOADS[component]);
      // the MCO's operands: its operator deploys them (the release carries none); their pods start once it has
      if (sa === undefined && direct !== undefined && MCO_OPERANDS.has(component))
        sa = await waitForClusterWorkload(direct, COMPONENT_WORKLOADS[component], deadline, () => this.closed);
    }
    let out: { ctx: ComponentContext; who: string };
    if (sa === undefined || direct === undefined)
      out = { ctx, who: `as the admin: release ${release.version} ships no workload manifest for it` };
    else {
      await waitForServiceAccount(direct, sa, deadline, shippedBindings(release.payload, sa), () => this.closed);
      const path = await writeServiceAccountKubeconfig(
        direct,
        this.proxy?.url ?? '',
        sa,
        ctx.workDir,
        `kubeconfig-${component.replace(/\W+/g, '-')}`,
      );
      out = { ctx: { ...ctx, kubeconfigPath: path }, who: `as system:serviceaccount:${sa.namespace}:${sa.name}` };
    }
    this.identities.set(component, out);
    return out;
  }

  /** Every component, release A installed; resolves when ClusterVersion is Available and every pool Updated on all its MachineConfigs. */
  async install(
    a: Release,
    svc: UpdateService,
    obs: Observer,
    ctx: ComponentContext,
    direct: KubeClient,
  ): Promise<{ nodes: RunningNodes; operators: RunningOperators; startCvo: () => Promise<Running> }> {
    const { c, opts } = this;
    this.emit({ t: this.t(), type: 'phase', phase: 'install', detail: `installing ${a.version} (${a.pullSpec})` });
    const until = Date.now() + opts.timeoutSeconds * 1000;
    const sim = await this.as(ctx, 'cluster-operator simulator', a, until);
    const operators = this.started(
      'cluster-operator simulator',
      await c.startOperatorSimulator(sim.ctx, { versions: {}, degraded: [], never: [] }),
      sim.who,
    );
    const progress = {
      runLevel: (level: string, state: 'started' | 'finished', version: string) => {
        this.emit({ t: this.t(), type: 'runlevel', level, state, version });
      },
    };
    const cvoId = await this.as(ctx, 'cluster-version-operator', a, until);
    const startCvo = async (): Promise<Running> =>
      this.started(
        'cluster-version-operator',
        await c.startCvo(cvoId.ctx, {
          payloadDir: a.dir,
          releaseImage: a.pullSpec,
          updateService: svc.upstream,
          promql: svc.prometheus,
          progress,
          asProcess: opts.faults.killCvoAt !== undefined,
        }),
        cvoId.who,
      );
    this.startCvo = startCvo;
    this.cvo = await startCvo();
    // the MCO's pods start once the CVO has created their ServiceAccounts and RBAC; machines boot meanwhile and
    // fetch their pool's config once the MCO has rendered it
    let nodesError: unknown;
    let nodes: RunningNodes | undefined;
    const failed = (e: unknown): void => {
      nodesError ??= e;
    };
    void this.startMco(ctx, a.version, a, until).catch(failed);
    const booting = (async () => {
      // the machines boot from the installer's bootstrap server (upstream: `machine-config-server bootstrap` on the
      // bootstrap node): the operator deploys the in-cluster server last, and its pods run on the masters
      const mcsId = await this.as(ctx, BOOTSTRAP_MCS, a, until);
      const mcs = this.started(
        BOOTSTRAP_MCS,
        stopOnce(await c.startMachineConfigServer(mcsId.ctx, { apiserverUrl: this.proxy?.url ?? '' })),
        mcsId.who,
      );
      this.machines = {
        nodes: nodeInventory(opts.masters, opts.workers, opts.pools),
        ...(mcs.url !== undefined ? { serverUrl: mcs.url } : {}),
      };
      const mcd = await this.as(ctx, 'machine-config-daemon', a, until);
      nodes = this.started(
        'virtual nodes',
        await c.startVirtualNodes(mcd.ctx, { ...this.machines, failBoot: [], drift: [] }),
        `machine-config-daemon ${mcd.who}; kubelets as the admin`,
      );
      // the machines have booted: the in-cluster server takes over once the operator has deployed it
      await this.followServerDaemonSet(ctx, a, until, mcs);
    })().catch(failed);
    this.stack.push('virtual nodes (booting)', () => Promise.race([booting, sleep(5000)]));
    let unsettled: string[] = [];
    let lastSettleCheck = 0;
    for (;;) {
      if (nodesError instanceof ServiceAccountMissing || nodesError instanceof WorkloadMissing)
        throw new InstallStalled(`install of ${a.version} stalled: ${nodesError.message}`);
      if (nodesError !== undefined)
        throw nodesError instanceof Error
          ? nodesError
          : new Error('the virtual nodes failed to start', { cause: nodesError });
      if (Date.now() > until)
        throw new InstallStalled(
          `install of ${a.version} did not finish in ${opts.timeoutSeconds}s: ${[cond(obs.clusterVersion(), 'Progressing')?.message ?? 'no ClusterVersion progress', ...unsettled].join('; ')}`,
        );
      await this.supervise(ctx);
      const installed =
        cond(obs.clusterVersion(), 'Available')?.status === 'True' &&
        history0(obs.clusterVersion())['state'] === 'Completed' &&
        poolsUpdated(obs.pools(), false);
      if (nodes !== undefined && installed && Date.now() - lastSettleCheck > 250) {
        lastSettleCheck = Date.now();
        unsettled = await this.unsettled(direct, obs);
        if (unsettled.length === 0) return { nodes, operators, startCvo };
      }
      await sleep(50);
    }
  }

  /**
   * Pools whose nodes do not yet run every MachineConfig that selects them (see {@link unsettledPools}): the install
   * is over only when the pools have rolled onto the configs with the payload's base MachineConfigs.
   */
  private async unsettled(direct: KubeClient, obs: Observer): Promise<string[]> {
    const list = await direct.request<{ items?: MachineConfigLike[] }>(
      'GET',
      '/apis/machineconfiguration.openshift.io/v1/machineconfigs',
    );
    return unsettledPools(obs.pools(), list.items ?? []);
  }

  /**
   * Once the machines have booted from the bootstrap server and the operator has deployed the machine-config-server
   * DaemonSet (its last operand), the in-cluster server starts as that DaemonSet's ServiceAccount and takes over
   * (machines that boot from now on, e.g. power-cycled ones, fetch their config from it), and the bootstrap server
   * stops, as the installer removes the bootstrap node once the cluster runs its own.
   */
  private async followServerDaemonSet(
    ctx: ComponentContext,
    a: Release,
    deadline: number,
    bootstrap: Running & { url?: string },
  ): Promise<void> {
    const id = await this.as(ctx, 'machine-config-server', a, deadline);
    if (this.closed) return;
    const mcs = this.started(
      'machine-config-server',
      await this.c.startMachineConfigServer(id.ctx, { apiserverUrl: this.proxy?.url ?? '' }),
      `${id.who}; DaemonSet machine-config-server deployed by the operator`,
    );
    if (this.machines !== undefined && mcs.url !== undefined) this.machines = { ...this.machines, serverUrl: mcs.url };
    await bootstrap.stop();
    this.emit({
      t: this.t(),
      type: 'component',
      component: BOOTSTRAP_MCS,
      state: 'stopped',
      detail: 'the in-cluster machine-config-server took over',
    });
  }

  cvo: Running | undefined;
  /** Starts a new CVO (a new pod of its Deployment). */
  private startCvo: (() => Promise<Running>) | undefined;
  private machines: { nodes: { name: string; roles: string[] }[]; serverUrl?: string } | undefined;

  /**
   * `--fault node-fails-boot=NODE`: the install already reboots machines (its second rendered config), so the fault is
   * armed after it: every machine powers off and starts again (state kept on disk), the named ones set to not come
   * back from their next reboot, the update's.
   */
  async armFailBoot(nodes: RunningNodes, ctx: ComponentContext): Promise<RunningNodes> {
    const fail = this.opts.faults.nodeFailsBoot;
    if (fail.length === 0 || this.machines === undefined) return nodes;
    await nodes.stop();
    const mcd = this.known('machine-config-daemon', ctx);
    const again = this.started(
      'virtual nodes (power-cycled)',
      await this.c.startVirtualNodes(mcd.ctx, { ...this.machines, failBoot: fail, drift: [] }),
      mcd.who,
    );
    for (const n of fail)
      this.emit({
        t: this.t(),
        type: 'fault',
        fault: `node-fails-boot=${n}`,
        detail: `${n} will not come back from the update's reboot`,
      });
    return again;
  }
  private mco: { version: string; operator: Running; controller: Running } | undefined;

  /** The MCO operator and controller of one release (upstream: the pods of the machine-config Deployments). */
  async startMco(
    ctx: ComponentContext,
    releaseVersion: string,
    release?: Release,
    deadline = Date.now() + this.opts.timeoutSeconds * 1000,
  ): Promise<void> {
    const op =
      release !== undefined
        ? await this.as(ctx, 'machine-config-operator', release, deadline)
        : this.known('machine-config-operator', ctx);
    if (this.mco !== undefined) {
      await this.mco.operator.stop();
      await this.mco.controller.stop();
      this.emit({
        t: this.t(),
        type: 'component',
        component: 'machine-config-operator',
        state: 'restarted',
        detail: `Deployment rolled out to ${releaseVersion}`,
      });
    }
    const operator = this.started(
      'machine-config-operator',
      await this.c.startMachineConfigOperator(op.ctx, { releaseVersion }),
      op.who,
    );
    // the controller's pod starts once the operator has deployed its Deployment (waited for on the first start)
    const ctl =
      release !== undefined
        ? await this.as(ctx, 'machine-config-controller', release, deadline)
        : this.known('machine-config-controller', ctx);
    const controller = this.started(
      'machine-config-controller',
      await this.c.startMachineConfigController(ctl.ctx, { releaseVersion }),
      ctl.who,
    );
    this.mco = { version: releaseVersion, operator, controller };
    this.led.delete('machine-config-operator');
    this.led.delete('machine-config-controller');
  }

  /** Components that have held their Lease since they were (re)started (see {@link decideRestarts}). */
  private led = new Set<Supervised>();

  /**
   * The kubelet's part for the operators' pods: upstream the CVO and the MCO's operator and controller exit when they
   * lose their Lease (e.g. renewals refused by API errors) and their container is started again; here the one that
   * lost it is stopped and started again, and waits for the Lease like a new pod. A CVO run as a child process counts
   * as leading once it logged so, and as having lost the Lease when it exited on its own (the bin exits on a lost
   * Lease, as upstream's does).
   */
  async supervise(ctx: ComponentContext): Promise<void> {
    const m = this.mco;
    const leading = new Map<Supervised, boolean | undefined>([
      ['cluster-version-operator', this.startCvo !== undefined ? this.cvo?.leading?.() : undefined],
      ['machine-config-operator', m?.operator.leading?.()],
      ['machine-config-controller', m?.controller.leading?.()],
    ]);
    const exited = new Map<Supervised, boolean>([
      ['cluster-version-operator', this.startCvo !== undefined && this.cvo?.exited?.() === true],
      ['machine-config-operator', m?.operator.exited?.() === true],
      ['machine-config-controller', m?.controller.exited?.() === true],
    ]);
    const d = decideRestarts(this.led, leading, exited);
    this.led = d.led;
    for (const component of d.restart) {
      if (component === 'cluster-version-operator') {
        await this.cvo?.stop();
        this.cvo = await this.startCvo?.();
      } else if (m !== undefined) {
        const part = component === 'machine-config-operator' ? 'operator' : 'controller';
        await m[part].stop();
        m[part] =
          part === 'operator'
            ? await this.c.startMachineConfigOperator(this.ctxOf(component, ctx), { releaseVersion: m.version })
            : await this.c.startMachineConfigController(this.ctxOf(component, ctx), { releaseVersion: m.version });
        this.stack.push(component, () => m[part].stop());
      }
      const why = exited.get(component) === true ? 'its process exited' : 'lost its Lease';
      this.emit({
        t: this.t(),
        type: 'component',
        component,
        state: 'restarted',
        detail: `${why}; started again, as the kubelet restarts the container of a process that exits`,
      });
    }
  }

  /** When the CVO has rolled the machine-config-operator Deployment to another release, runs that release's MCO. */
  async followMcoDeployment(direct: KubeClient, ctx: ComponentContext): Promise<void> {
    let d: unknown;
    try {
      d = await direct.request(
        'GET',
        '/apis/apps/v1/namespaces/openshift-machine-config-operator/deployments/machine-config-operator',
      );
    } catch {
      return;
    }
    const containers =
      (d as { spec?: { template?: { spec?: { containers?: { env?: { name?: string; value?: string }[] }[] } } } }).spec
        ?.template?.spec?.containers ?? [];
    const version = containers.flatMap((c) => c.env ?? []).find((e) => e.name === 'RELEASE_VERSION')?.value;
    if (version !== undefined && version !== this.mco?.version) await this.startMco(ctx, version);
  }

  /**
   * `--release-mirror`: what an admin of a disconnected cluster does before `oc adm upgrade --to-image`: an
   * ImageDigestMirrorSet for B's repository, waited for until every node's registries.conf pulls B from the mirror.
   */
  async mirrorRelease(b: Release, obs: Observer, ctx: ComponentContext, direct: KubeClient): Promise<void> {
    const m = b.mirror;
    if (m === undefined) return;
    this.emit({
      t: this.t(),
      type: 'phase',
      phase: 'install',
      detail: `release mirror: ${b.version} is published only under ${m.mirror}; ImageDigestMirrorSet ${RELEASE_MIRROR_SET} created (${m.source} → ${m.mirror})`,
    });
    try {
      await applyReleaseMirror(direct, m, {
        pullSpec: b.pullSpec,
        nodesDir: join(ctx.workDir, 'nodes'),
        nodes: nodeInventory(this.opts.masters, this.opts.workers, this.opts.pools).map((n) => n.name),
        pools: () => obs.pools(),
        deadline: Date.now() + this.opts.timeoutSeconds * 1000,
        closed: () => this.closed,
      });
    } catch (e) {
      throw new InstallStalled((e as Error).message);
    }
    this.emit({
      t: this.t(),
      type: 'phase',
      phase: 'install',
      detail: `release mirror: every node's registries.conf pulls ${b.pullSpec} from ${m.mirror} (99-<pool>-generated-registries rolled out)`,
    });
  }

  /** Sets the pools' maxUnavailable, pauses pools, creates the blocking PDB; the target's operator simulator with its faults. */
  async arm(b: Release, direct: KubeClient, operators: RunningOperators, ctx: ComponentContext): Promise<void> {
    const { opts } = this;
    for (const [pool, value] of Object.entries(opts.maxUnavailable ?? {})) {
      if (Object.hasOwn(opts.pools, pool)) continue; // a custom pool got it at creation
      await direct.request('PATCH', `/apis/machineconfiguration.openshift.io/v1/machineconfigpools/${pool}`, {
        body: { spec: { maxUnavailable: value } },
        contentType: 'application/merge-patch+json',
      });
      // the observer's pool event shows the new limit
    }
    for (const pool of opts.faults.pausePools) {
      await direct.request('PATCH', `/apis/machineconfiguration.openshift.io/v1/machineconfigpools/${pool}`, {
        body: { spec: { paused: true } },
        contentType: 'application/merge-patch+json',
      });
      this.emit({ t: this.t(), type: 'fault', fault: `pause-pool ${pool}`, detail: 'spec.paused=true' });
    }
    for (const d of opts.faults.onDiskDrift) await this.editByHand(ctx, d);
    if (opts.faults.pdbBlocksDrain)
      await armPdb(direct, this.emit, () => this.t(), this.machines?.nodes.find((n) => n.roles[0] === 'worker')?.name);
    for (const n of opts.faults.degradedOperators)
      this.emit({
        t: this.t(),
        type: 'fault',
        fault: `degraded-operator=${n}`,
        detail: `clusteroperator/${n} reports Degraded=True once the update reaches it`,
      });
    for (const n of opts.faults.neverUpdates)
      this.emit({
        t: this.t(),
        type: 'fault',
        fault: `operator-never-updates=${n}`,
        detail: `clusteroperator/${n} never reports ${b.version}`,
      });
    await operators.stop();
    const sim = this.known('cluster-operator simulator', ctx);
    this.started(
      'cluster-operator simulator (target)',
      await this.c.startOperatorSimulator(sim.ctx, {
        versions: {},
        degraded: opts.faults.degradedOperators,
        never: opts.faults.neverUpdates,
      }),
      sim.who,
    );
  }

  /**
   * `--fault on-disk-drift=NODE:PATH`: appends a line to the file in the node's root, as an admin editing it over ssh
   * would, once the node runs A (edits made at provisioning are rewritten by the first boot's update). The daemon's
   * preflight check before B finds it; a path that is not a file of the rendered config is not validated (as upstream).
   */
  async editByHand(ctx: ComponentContext, d: { node: string; path: string }): Promise<void> {
    const file = join(ctx.workDir, 'nodes', d.node, d.path);
    let detail: string;
    try {
      if (!(await stat(file)).isFile()) throw Object.assign(new Error(`${d.path} is not a file`), { code: 'ENOENT' });
      await appendFile(file, '# edited by hand\n');
      detail = `${d.path} on ${d.node} edited by hand after A was applied`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      detail = `${d.path} does not exist on ${d.node}: nothing to edit (the daemon only validates files of the rendered MachineConfig)`;
    }
    this.emit({ t: this.t(), type: 'fault', fault: `on-disk-drift=${d.node}:${d.path}`, detail });
  }

  /** Whether the CVO's admin-ack block was reported, and the ack given (`--fault admin-ack-required`). */
  private adminAck = { reported: false, given: false };

  /**
   * `--fault admin-ack-required[=never]`: once the CVO refuses B on the admin ack, says so; then (unless `=never`)
   * gives the ack as an admin would, through the same API, and says with which `oc patch`.
   */
  async adminAckStep(cv: unknown, direct: KubeClient): Promise<void> {
    const mode = this.opts.faults.adminAck;
    if (mode === undefined || this.adminAck.given || !blockedOnAdminAck(cv)) return;
    if (!this.adminAck.reported) {
      this.adminAck.reported = true;
      this.emit({
        t: this.t(),
        type: 'fault',
        fault: 'admin-ack-required',
        detail: `the CVO refuses the minor update until an admin acknowledges: ReleaseAccepted=False PreconditionChecks: ${cond(cv, 'ReleaseAccepted')?.message ?? ''}`,
      });
    }
    if (mode === 'never') return;
    const history = (cv as { status?: { history?: { state?: string; version?: string }[] } } | undefined)?.status
      ?.history;
    const { acked, command } = await giveAdminAcks(direct, history);
    if (acked.length === 0) return;
    this.adminAck.given = true;
    this.emit({
      t: this.t(),
      type: 'fault',
      fault: 'admin-ack',
      detail: `acknowledged ${acked.map((g) => g.gate).join(', ')} as an admin would: ${command}`,
    });
  }

  /** `upgrade --to B`, then watches until {@link decideUpdateVerdict} says it is over; kills components on cue. */
  async update(
    b: Release,
    obs: Observer,
    nodes: RunningNodes,
    startCvo: () => Promise<Running>,
    ctx: ComponentContext,
    installedConfigs: ReadonlyMap<string, string>,
    direct: KubeClient,
  ): Promise<RehearsalVerdict> {
    const { opts } = this;
    this.proxy?.markUpdate();
    this.emit({
      t: this.t(),
      type: 'phase',
      phase: 'upgrade',
      detail: `keelson upgrade --to ${b.version} (${b.pullSpec}, offered by the local update service)`,
    });
    await this.c.requestUpgrade(ctx, { toImage: b.pullSpec, version: b.version, force: opts.force === true });
    // armed once the request is in: the fault is about how the operators cope, not about `upgrade --to` itself
    if (opts.faults.apiErrorRate > 0) {
      this.proxy?.setErrorRate(opts.faults.apiErrorRate);
      this.emit({
        t: this.t(),
        type: 'fault',
        fault: 'api-errors',
        detail: `${opts.faults.apiErrorRate * 100}% of the components' API requests answered 500 InternalError`,
      });
    }
    const startedAt = Date.now();
    const deadline = startedAt + opts.timeoutSeconds * 1000;
    let killedCvo = false;
    const killedDaemons = new Set<string>();
    let failingSince: number | undefined;
    let degradedSince: number | undefined;
    let refusedSince: number | undefined;
    const downSince = new Map<string, number>();
    let drainFailure: DrainFailure | undefined;
    let lastDeploymentCheck = 0;
    const mcoFault =
      opts.faults.mcoSyncFails === true
        ? new McoSyncFault(direct, (e) => {
            this.emit({ t: this.t(), type: 'fault', ...e });
          })
        : undefined;
    for (;;) {
      if (Date.now() - lastDeploymentCheck > 500) {
        lastDeploymentCheck = Date.now();
        await this.followMcoDeployment(direct, ctx);
        await this.supervise(ctx);
        drainFailure = await latestDrainFailure(direct);
        await mcoFault?.step(this.mco?.version, b.version, obs.clusterVersion());
      }
      const cv = obs.clusterVersion();
      const now = Date.now();
      failingSince = cond(cv, 'Failing')?.status === 'True' ? (failingSince ?? now) : undefined;
      degradedSince = degradedPool(obs.pools()) !== undefined ? (degradedSince ?? now) : undefined;
      refusedSince = nextRefusedSince(refusedSince, cv, now);
      await this.adminAckStep(cv, direct);
      for (const n of obs.nodes()) {
        if (n.ready) downSince.delete(n.name);
        // a machine still in its reboot is not stuck: on a busy machine (5,000 virtual nodes on two cores) reboots
        // end late; the clock starts once the reboot is over and the Node is still NotReady
        else if (nodes.rebooting?.(n.name) === true) downSince.set(n.name, now);
        else if (!downSince.has(n.name)) downSince.set(n.name, now);
      }
      const downNodes = [...downSince].map(([name, since]) => ({ name, since }));
      const killAt = this.killCvoAt ?? opts.faults.killCvoAt;
      const verdict = decideUpdateVerdict({
        clusterVersion: cv,
        pools: obs.pools(),
        target: b.version,
        installedConfigs,
        pausedPools: opts.faults.pausePools,
        now,
        failingSince,
        degradedSince,
        refusedSince,
        downNodes,
        rebootMs: SIMULATED_REBOOT_MS / opts.timeScale,
        drainFailure,
        startedAt,
        deadline,
      });
      if (verdict !== undefined && killAt !== undefined && !killedCvo) {
        // said, not hidden: the report must not read as if the CVO had been killed
        this.emit({
          t: this.t(),
          type: 'fault',
          fault: 'kill-point',
          detail: `cvo@${Math.round(killAt * 100)}% was never reached (the update ended first): nothing was killed`,
        });
      }
      if (verdict !== undefined)
        return verdict.outcome === 'Stalled'
          ? {
              ...verdict,
              message: explainStall(verdict.message, obs.pools(), this.proxy?.counts().pdbRefusals ?? 0, obs.nodes()),
            }
          : verdict;
      const prog = this.events.findLast((e) => e.type === 'progress');
      if (
        killAt !== undefined &&
        !killedCvo &&
        prog?.type === 'progress' &&
        prog.version === b.version &&
        prog.done / prog.total >= killAt
      ) {
        killedCvo = true;
        const kill = this.cvo?.kill;
        if (kill === undefined) throw new Error('the wired CVO cannot be killed abruptly (run it as a child process)');
        await kill();
        this.emit({
          t: this.t(),
          type: 'component',
          component: 'cluster-version-operator',
          state: 'killed',
          detail: `at ${prog.done}/${prog.total}`,
        });
        this.cvo = await startCvo();
        this.led.delete('cluster-version-operator');
        this.emit({
          t: this.t(),
          type: 'component',
          component: 'cluster-version-operator',
          state: 'restarted',
          detail: "new process; waits for the dead holder's Lease to expire, then resumes the update",
        });
      }
      for (const n of opts.faults.killDaemons) {
        if (killedDaemons.has(n) || obs.nodes().find((x) => x.name === n)?.phase !== 'updating') continue;
        killedDaemons.add(n);
        await nodes.restartDaemon(n);
        this.emit({
          t: this.t(),
          type: 'component',
          component: `machine-config-daemon/${n}`,
          state: 'restarted',
          detail: 'killed mid-update',
        });
      }
      await sleep(50);
    }
  }
}

async function runWith(
  c: RehearsalComponents,
  opts: RehearseOptions,
  t0: number,
  emit: (e: TimelineEvent) => void,
  events: TimelineEvent[],
): Promise<RehearsalResult> {
  const s = new Session(c, opts, t0, emit, events);
  let verdict: RehearsalVerdict = { outcome: 'Stalled', message: '' };
  let a: Release | undefined;
  let b: Release | undefined;
  let diagnosis: Diagnosis[] = [];
  let direct: KubeClient | undefined;
  let result: RehearsalResult | undefined;
  // refused before anything is started, written or reported
  if (opts.kubeconfig !== undefined) await s.connect(opts.kubeconfig);
  try {
    try {
      emit({
        t: s.t(),
        type: 'phase',
        phase: 'setup',
        detail:
          opts.kubeconfig !== undefined
            ? `releases, registry, signature store, update service; the API server of --kubeconfig ${opts.kubeconfig}`
            : 'releases, registry, signature store, update service, API server',
      });
      ({ a, b } = await s.releases());
      s.checkFaultTargets(a, b);
      emit({
        t: s.t(),
        type: 'phase',
        phase: 'setup',
        detail: `releases ${a.version} (${a.pullSpec}) -> ${b.version} (${b.pullSpec})`,
        from: a.version,
        to: b.version,
      });
      const cl = await s.cluster(a, b);
      direct = cl.direct;
      const { nodes, operators, startCvo } = await s.install(a, cl.svc, cl.obs, cl.ctx, cl.direct);
      await s.mirrorRelease(b, cl.obs, cl.ctx, cl.direct);
      const installedConfigs = new Map(cl.obs.pools().map((p) => [p.metadata.name ?? '', configName(p)]));
      await s.arm(b, cl.direct, operators, cl.ctx);
      const machines = await s.armFailBoot(nodes, cl.ctx);
      verdict = await s.update(b, cl.obs, machines, startCvo, cl.ctx, installedConfigs, cl.direct);
    } catch (e) {
      if (!(e instanceof InstallStalled)) throw e;
      verdict = { outcome: 'Stalled', message: e.message };
    }
    // what holds a failed or stalled run, read while the cluster still runs
    if (verdict.outcome !== 'Completed' && direct !== undefined)
      diagnosis = await diagnose(direct, b?.version ?? a?.version ?? '', {
        workloads: opts.kubeconfig !== undefined,
        ...(opts.diagnosePools !== undefined ? { pools: opts.diagnosePools } : {}),
      });
    emit({ t: s.t(), type: 'phase', phase: 'finished', detail: verdict.outcome });
    result = {
      report: finalReport(events, opts, { a, b, verdict, api: s.proxy?.counts() ?? EMPTY_API, diagnosis }),
      events,
    };
    if (opts.hold !== undefined && s.proxy !== undefined && s.kubeconfigPath !== undefined)
      await opts.hold(result.report, await s.heldKubeconfig(s.proxy, s.kubeconfigPath));
  } finally {
    s.closed = true;
    if (result === undefined) emit({ t: s.t(), type: 'phase', phase: 'finished', detail: verdict.outcome });
    await s.stack.stopAll();
  }
  return result;
}

/** The report of a run, with the maxUnavailable invariant checked. */
function finalReport(
  events: readonly TimelineEvent[],
  opts: RehearseOptions,
  r: {
    a: Release | undefined;
    b: Release | undefined;
    verdict: RehearsalVerdict;
    api: ApiCounts;
    diagnosis: Diagnosis[];
  },
): RehearsalReport {
  const { a, b } = r;
  const report = computeReport(events, {
    from: a?.version ?? opts.from ?? 'A',
    to: b?.version ?? opts.to ?? 'B',
    outcome: r.verdict.outcome,
    message: r.verdict.message,
    timeScale: opts.timeScale,
    api: r.api,
    runLevels:
      a !== undefined && b !== undefined
        ? computeRunLevels(a.payload, b.payload).map((l) => ({
            level: l.level,
            operators: l.operators.map((o) => o.name),
          }))
        : [],
    faults: describeFaults(opts.faults),
    diagnosis: r.diagnosis,
  });
  if (report.outcome === 'Completed' && !withinMaxUnavailable(report)) {
    return {
      ...report,
      outcome: 'InvariantViolated',
      exitCode: EXIT_CODES.InvariantViolated,
      message: `more nodes than maxUnavailable were unavailable at once: ${report.pools.map((p) => `${p.name} ${p.maxUnavailableSeen}/${p.maxUnavailable}`).join(', ')}`,
    };
  }
  return report;
}

/**
 * The newest `DrainThresholdExceeded` Event (the machine-config-controller's "Drain has been failing for more than 10
 * minutes"), read with the field selector a real API server supports for Events; undefined when there is none.
 */
async function latestDrainFailure(client: KubeClient): Promise<DrainFailure | undefined> {
  type Ev = { involvedObject?: { name?: string }; message?: string; lastTimestamp?: string; eventTime?: string };
  let list: { items?: Ev[] };
  try {
    list = await client.request<{ items?: Ev[] }>('GET', '/api/v1/events', {
      query: { fieldSelector: 'reason=DrainThresholdExceeded' },
    });
  } catch {
    return undefined;
  }
  const newest = [...(list.items ?? [])]
    .sort((x, y) => (x.lastTimestamp ?? x.eventTime ?? '').localeCompare(y.lastTimestamp ?? y.eventTime ?? ''))
    .at(-1);
  return newest === undefined ? undefined : { node: newest.involvedObject?.name ?? '', message: newest.message ?? '' };
}

/** The components {@link Session.supervise} restarts when they lose their Lease. */
type Supervised = 'cluster-version-operator' | 'machine-config-operator' | 'machine-config-controller';

/** The install did not finish: reported as Stalled. */
class InstallStalled extends Error {}

/** Where `--fault pdb-blocks-drain` puts its workload. */
const PDB_NAMESPACE = 'rehearsal-workload';

/** A workload on the workers whose PodDisruptionBudget allows no eviction. */
async function armPdb(
  client: KubeClient,
  emit: (e: TimelineEvent) => void,
  t: () => number,
  worker: string | undefined,
): Promise<void> {
  const ns = PDB_NAMESPACE;
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  await client.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'critical-app', namespace: ns },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'critical-app' } },
        template: {
          metadata: { labels: { app: 'critical-app' } },
          spec: {
            nodeSelector: { 'node-role.kubernetes.io/worker': '' },
            ...(worker !== undefined ? { nodeName: worker } : {}),
            containers: [{ name: 'app', image: 'registry.example/critical-app:1' }],
          },
        },
      },
    },
  });
  await client.request('POST', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
    body: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'critical-app', namespace: ns },
      spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'critical-app' } } },
    },
  });
  emit({
    t: t(),
    type: 'fault',
    fault: 'pdb-blocks-drain',
    detail: `${ns}/critical-app: PodDisruptionBudget maxUnavailable 0 over 2 pods on ${worker ?? 'the workers'}`,
  });
}
