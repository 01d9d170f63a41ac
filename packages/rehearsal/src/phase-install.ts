/**
 * The install phase of a rehearsal (see ./run.ts): every component started on release A, the machines booted from the
 * installer's bootstrap machine-config-server, waited for until ClusterVersion is Available and every pool runs all its
 * MachineConfigs; `--release-mirror`'s mirror set and `--fault node-fails-boot`'s power cycle once A is installed.
 */
import { join } from 'node:path';
import { KubeClient } from '@keelson/kube';
import { type ComponentContext, type Running, type RunningNodes, type RunningOperators } from './components.js';
import { ServiceAccountMissing, WorkloadMissing } from './identities.js';
import { type Observer } from './observer.js';
import { cond, history0, poolsUpdated } from './verdict.js';
import { unsettledPools, type MachineConfigLike } from './settled.js';
import { type UpdateService } from './update-service.js';
import { applyReleaseMirror, RELEASE_MIRROR_SET } from './release-mirror.js';
import { BOOTSTRAP_MCS, InstallStalled, Session, sleep, stopOnce } from './session.js';
import { type Release } from './options.js';
import { nodeInventory } from './cluster-bootstrap.js';
import { startMco, supervise } from './phase-supervise.js';

/** Every component, release A installed; resolves when ClusterVersion is Available and every pool Updated on all its MachineConfigs. */
export async function install(
  s: Session,
  a: Release,
  svc: UpdateService,
  obs: Observer,
  ctx: ComponentContext,
  direct: KubeClient,
): Promise<{ nodes: RunningNodes; operators: RunningOperators; startCvo: () => Promise<Running> }> {
  const { c, opts } = s;
  s.emit({ t: s.t(), type: 'phase', phase: 'install', detail: `installing ${a.version} (${a.pullSpec})` });
  const until = Date.now() + opts.timeoutSeconds * 1000;
  const sim = await s.as(ctx, 'cluster-operator simulator', a, until);
  const operators = s.started(
    'cluster-operator simulator',
    await c.startOperatorSimulator(sim.ctx, { versions: {}, degraded: [], never: [] }),
    sim.who,
  );
  const progress = {
    runLevel: (level: string, state: 'started' | 'finished', version: string) => {
      s.emit({ t: s.t(), type: 'runlevel', level, state, version });
    },
  };
  const cvoId = await s.as(ctx, 'cluster-version-operator', a, until);
  const startCvo = async (): Promise<Running> =>
    s.started(
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
  s.startCvo = startCvo;
  s.cvo = await startCvo();
  // the MCO's pods start once the CVO has created their ServiceAccounts and RBAC; machines boot meanwhile and
  // fetch their pool's config once the MCO has rendered it
  let nodesError: unknown;
  let nodes: RunningNodes | undefined;
  const failed = (e: unknown): void => {
    nodesError ??= e;
  };
  void startMco(s, ctx, a.version, a, until).catch(failed);
  const booting = (async () => {
    // the machines boot from the installer's bootstrap server (upstream: `machine-config-server bootstrap` on the
    // bootstrap node): the operator deploys the in-cluster server last, and its pods run on the masters
    const mcsId = await s.as(ctx, BOOTSTRAP_MCS, a, until);
    const mcs = s.started(
      BOOTSTRAP_MCS,
      stopOnce(await c.startMachineConfigServer(mcsId.ctx, { apiserverUrl: s.proxy?.url ?? '' })),
      mcsId.who,
    );
    s.machines = {
      nodes: nodeInventory(opts.masters, opts.workers, opts.pools),
      ...(mcs.url !== undefined ? { serverUrl: mcs.url } : {}),
    };
    const mcd = await s.as(ctx, 'machine-config-daemon', a, until);
    nodes = s.started(
      'virtual nodes',
      await c.startVirtualNodes(mcd.ctx, { ...s.machines, failBoot: [], drift: [] }),
      `machine-config-daemon ${mcd.who}; kubelets as the admin`,
    );
    // the machines have booted: the in-cluster server takes over once the operator has deployed it
    await followServerDaemonSet(s, ctx, a, until, mcs);
  })().catch(failed);
  s.stack.push('virtual nodes (booting)', () => Promise.race([booting, sleep(5000)]));
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
    await supervise(s, ctx);
    const installed =
      cond(obs.clusterVersion(), 'Available')?.status === 'True' &&
      history0(obs.clusterVersion())['state'] === 'Completed' &&
      poolsUpdated(obs.pools(), false);
    if (nodes !== undefined && installed && Date.now() - lastSettleCheck > 250) {
      lastSettleCheck = Date.now();
      unsettled = await unsettledAfterInstall(direct, obs);
      if (unsettled.length === 0) return { nodes, operators, startCvo };
    }
    await sleep(50);
  }
}

/**
 * Pools whose nodes do not yet run every MachineConfig that selects them (see {@link unsettledPools}): the install
 * is over only when the pools have rolled onto the configs with the payload's base MachineConfigs.
 */
export async function unsettledAfterInstall(direct: KubeClient, obs: Observer): Promise<string[]> {
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
export async function followServerDaemonSet(
  s: Session,
  ctx: ComponentContext,
  a: Release,
  deadline: number,
  bootstrap: Running & { url?: string },
): Promise<void> {
  const id = await s.as(ctx, 'machine-config-server', a, deadline);
  if (s.closed) return;
  const mcs = s.started(
    'machine-config-server',
    await s.c.startMachineConfigServer(id.ctx, { apiserverUrl: s.proxy?.url ?? '' }),
    `${id.who}; DaemonSet machine-config-server deployed by the operator`,
  );
  if (s.machines !== undefined && mcs.url !== undefined) s.machines = { ...s.machines, serverUrl: mcs.url };
  await bootstrap.stop();
  s.emit({
    t: s.t(),
    type: 'component',
    component: BOOTSTRAP_MCS,
    state: 'stopped',
    detail: 'the in-cluster machine-config-server took over',
  });
}

/**
 * `--fault node-fails-boot=NODE`: the install already reboots machines (its second rendered config), so the fault is
 * armed after it: every machine powers off and starts again (state kept on disk), the named ones set to not come
 * back from their next reboot, the update's.
 */
export async function armFailBoot(s: Session, nodes: RunningNodes, ctx: ComponentContext): Promise<RunningNodes> {
  const fail = s.opts.faults.nodeFailsBoot;
  if (fail.length === 0 || s.machines === undefined) return nodes;
  await nodes.stop();
  const mcd = s.known('machine-config-daemon', ctx);
  const again = s.started(
    'virtual nodes (power-cycled)',
    await s.c.startVirtualNodes(mcd.ctx, { ...s.machines, failBoot: fail, drift: [] }),
    mcd.who,
  );
  for (const n of fail)
    s.emit({
      t: s.t(),
      type: 'fault',
      fault: `node-fails-boot=${n}`,
      detail: `${n} will not come back from the update's reboot`,
    });
  return again;
}

/**
 * `--release-mirror`: what an admin of a disconnected cluster does before `oc adm upgrade --to-image`: an
 * ImageDigestMirrorSet for B's repository, waited for until every node's registries.conf pulls B from the mirror.
 */
export async function mirrorRelease(
  s: Session,
  b: Release,
  obs: Observer,
  ctx: ComponentContext,
  direct: KubeClient,
): Promise<void> {
  const m = b.mirror;
  if (m === undefined) return;
  s.emit({
    t: s.t(),
    type: 'phase',
    phase: 'install',
    detail: `release mirror: ${b.version} is published only under ${m.mirror}; ImageDigestMirrorSet ${RELEASE_MIRROR_SET} created (${m.source} → ${m.mirror})`,
  });
  try {
    await applyReleaseMirror(direct, m, {
      pullSpec: b.pullSpec,
      nodesDir: join(ctx.workDir, 'nodes'),
      nodes: nodeInventory(s.opts.masters, s.opts.workers, s.opts.pools).map((n) => n.name),
      pools: () => obs.pools(),
      deadline: Date.now() + s.opts.timeoutSeconds * 1000,
      closed: () => s.closed,
    });
  } catch (e) {
    throw new InstallStalled((e as Error).message);
  }
  s.emit({
    t: s.t(),
    type: 'phase',
    phase: 'install',
    detail: `release mirror: every node's registries.conf pulls ${b.pullSpec} from ${m.mirror} (99-<pool>-generated-registries rolled out)`,
  });
}
